// `tsmpi run`: environment, arguments, output tagging, exit codes, option errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, runFixture, tsmpi } from '../helpers/run-job.ts';

interface Report {
  rank: number;
  size: number;
  env: Record<string, string | undefined>;
  argv: string[];
  argv1: string;
}

test('every rank sees its rank, size, local rank, -x variables and its arguments', async () => {
  const result = await tsmpi(['run', '-n', '3', '-x', 'FROM_X=hello', '-x', 'EXPORTED', fixture('env-report.ts'), 'a', 'b c', '--flag'], {
    env: { EXPORTED: 'from the launcher' },
  });
  assert.equal(result.code, 0, explain(result));
  const reports = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Report).sort((a, b) => a.rank - b.rank);
  assert.deepEqual(reports.map((r) => r.rank), [0, 1, 2]);
  for (const r of reports) {
    assert.equal(r.size, 3);
    assert.deepEqual(r.env, { TSMPI_RANK: String(r.rank), TSMPI_SIZE: '3', TSMPI_LOCAL_RANK: String(r.rank), FROM_X: 'hello', EXPORTED: 'from the launcher' });
    assert.deepEqual(r.argv, ['a', 'b c', '--flag'], 'options after the program belong to the program');
    assert.equal(r.argv1, fixture('env-report.ts'));
  }
});

test('--tag-output prefixes every line with its rank and stream', async () => {
  const result = await tsmpi(['run', '-n', '2', '--tag-output', fixture('multiline-output.ts')]);
  assert.equal(result.code, 0, explain(result));
  const lines = result.stdout.trim().split('\n').sort();
  assert.deepEqual(lines, ['[1,0]<stdout>:line one of 0', '[1,0]<stdout>:line two of 0', '[1,1]<stdout>:line one of 1', '[1,1]<stdout>:line two of 1']);
  assert.deepEqual(result.stderr.trim().split('\n').sort(), ['[1,0]<stderr>:warning from 0', '[1,1]<stderr>:warning from 1']);
});

test('a JavaScript program runs as it is', async () => {
  const result = await tsmpi(['run', '-n', '2', fixture('plain.mjs')]);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /js ok \[0,2\]/);
});

test('the exit code is the highest rank exit code', async () => {
  const result = await runFixture('fail-throw.ts', 3, ['2', 'exit3']);
  assert.equal(result.code, 3, explain(result));
  assert.match(result.stderr, /rank 2 exited with code 3/);
  assert.match(result.stdout, /rank 0 done/);
});

test('bad options name the option and what it takes', async () => {
  const zero = await tsmpi(['run', '-n', '0', fixture('plain.mjs')]);
  assert.notEqual(zero.code, 0);
  assert.match(zero.stderr, /-n\/--np takes a whole number >= 1, got "0"/);
  const hang = await tsmpi(['run', '-n', '1', '--hang-timeout', 'soon', fixture('plain.mjs')]);
  assert.match(hang.stderr, /--hang-timeout takes a number >= 0, got "soon"/);
  const missing = await tsmpi(['run', '-n', '2', 'no-such-program.ts']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read the program no-such-program\.ts/);
  const badEnv = await tsmpi(['run', '-n', '2', fixture('plain.mjs')], { env: { TSMPI_SHM_RING_BYTES: 'lots' } });
  assert.equal(badEnv.code, 2);
  assert.match(badEnv.stderr, /TSMPI_SHM_RING_BYTES="lots" is not valid.*a size from 16k to 256M|TSMPI_SHM_RING_BYTES="lots" is not valid/);
});

test('a program that does not compile is reported with its file and line', async () => {
  const result = await tsmpi(['run', '-n', '2', fixture('syntax-error.ts')]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /cannot compile .*syntax-error\.ts:\d+:\d+/);
});

test('tsmpi info lists every tunable with its variable', async () => {
  const result = await tsmpi(['info', '--json']);
  assert.equal(result.code, 0, explain(result));
  const info = JSON.parse(result.stdout) as { tunables: { env: string }[] };
  const names = info.tunables.map((t) => t.env);
  for (const env of ['TSMPI_SPIN_US', 'TSMPI_SHM_RING_BYTES', 'TSMPI_EAGER_LIMIT', 'TSMPI_HANG_TIMEOUT', 'TSMPI_COLL_ALLREDUCE']) assert.ok(names.includes(env), env);
});
