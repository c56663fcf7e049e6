// `tsmpi run`: environment, arguments, output tagging, exit codes, option errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostname } from 'node:os';
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
    assert.deepEqual(r.env, { TSMPI_RANK: String(r.rank), TSMPI_SIZE: '3', TSMPI_LOCAL_RANK: String(r.rank), TSMPI_LOCAL_SIZE: '3', FROM_X: 'hello', EXPORTED: 'from the launcher' });
    assert.deepEqual(r.argv, ['a', 'b c', '--flag'], 'options after the program belong to the program');
    assert.equal(r.argv1, fixture('env-report.ts'));
  }
});

for (const mode of [['--procs'], ['--ranks-per-proc', '2']]) {
  test(`TSMPI_LOCAL_RANK is the rank's place on its node, not in its process (${mode.join(' ')}; issue 22)`, async () => {
    const result = await tsmpi(['run', ...mode, '-n', '3', fixture('env-report.ts')]);
    assert.equal(result.code, 0, explain(result));
    const reports = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Report).sort((a, b) => a.rank - b.rank);
    assert.deepEqual(
      reports.map((r) => [r.env.TSMPI_RANK, r.env.TSMPI_LOCAL_RANK, r.env.TSMPI_LOCAL_SIZE]),
      [['0', '0', '3'], ['1', '1', '3'], ['2', '2', '3']],
    );
  });
}

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

test('a rank that exits with 3 while the others finish: the job exits 3', async () => {
  const result = await runFixture('fail-throw.ts', 3, ['2', 'exit3']);
  assert.equal(result.code, 3, explain(result));
  assert.match(result.stderr, /rank 2 exited with code 3/);
  assert.match(result.stdout, /rank 0 done/);
});

test('-np N, as mpirun spells it, works for run and sim; the program keeps its own -np (issue 12)', async () => {
  for (const command of [['run'], ['run', '--procs'], ['sim', '--quiet']]) {
    const result = await tsmpi([command[0]!, '-np', '2', ...command.slice(1), fixture('env-report.ts'), '-np', '7']);
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { size: number; argv: string[] });
    assert.equal(lines.length, command[0] === 'sim' ? 2 : 2, explain(result));
    for (const line of lines) {
      assert.equal(line.size, 2);
      assert.deepStrictEqual(line.argv, ['-np', '7']);
    }
  }
});

test('program arguments reach process.argv.slice(2) in every launch mode (issue 12)', async () => {
  const args = ['input.dat', '--steps=3', '-v', '--', 'x y'];
  for (const command of [['run', '-n', '2'], ['run', '-n', '2', '--procs'], ['run', '-n', '2', '--ranks-per-proc', '2'], ['sim', '-n', '2', '--quiet']]) {
    const result = await tsmpi([...command, fixture('env-report.ts'), ...args]);
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { argv: string[]; argv1: string });
    assert.equal(lines.length, 2, explain(result));
    for (const line of lines) {
      assert.deepStrictEqual(line.argv, args, command.join(' '));
      assert.equal(line.argv1, fixture('env-report.ts'));
    }
  }
});

test('a usage error prints the error and where help is, not the whole help, and exits 2 (issue 12)', async () => {
  const cases: [string[], RegExp][] = [
    [['run', '-n', '0', fixture('plain.mjs')], /-n\/--np takes a whole number >= 1, got "0"/],
    [['run', '-n', 'abc', fixture('plain.mjs')], /-n\/--np takes a whole number >= 1, got "abc"/],
    [['run', fixture('plain.mjs')], /required option '-n, --np <N>' not specified/],
    [['sim', '-n', '-3', fixture('plain.mjs')], /-n\/--np takes a whole number >= 1, got "-3"|unknown option '-3'/],
    [['run', '-n', '2', '--no-such-flag', fixture('plain.mjs')], /unknown option '--no-such-flag'/],
  ];
  for (const [args, error] of cases) {
    const result = await tsmpi(args);
    assert.equal(result.code, 2, explain(result));
    assert.match(result.stderr, error);
    assert.match(result.stderr, new RegExp(`\\(run 'tsmpi ${args[0]} --help' for its options\\)`));
    assert.doesNotMatch(result.stderr, /Options:|--tag-output|Usage:/, `the whole help was printed\n${result.stderr}`);
    assert.ok(result.stderr.trim().split('\n').length <= 2, result.stderr);
  }
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

test('--procs: the launcher compiles the program once; one that does not compile fails the job once, before any process starts', async () => {
  const result = await tsmpi(['run', '--procs', '-n', '3', fixture('syntax-error.ts')]);
  assert.equal(result.code, 2, explain(result));
  assert.equal(result.stderr.match(/cannot compile/g)?.length, 1, `said once\n${result.stderr}`);
  assert.match(result.stderr, /tsmpi run: cannot compile .*syntax-error\.ts:\d+:\d+/);
  assert.doesNotMatch(result.stderr, /tsmpi exec|process \d+ \(rank/);
});

test('tsmpi info lists every tunable with its variable', async () => {
  const result = await tsmpi(['info', '--json']);
  assert.equal(result.code, 0, explain(result));
  const info = JSON.parse(result.stdout) as { tunables: { env: string }[] };
  const names = info.tunables.map((t) => t.env);
  for (const env of ['TSMPI_SPIN_US', 'TSMPI_SHM_RING_BYTES', 'TSMPI_EAGER_LIMIT', 'TSMPI_HANG_TIMEOUT', 'TSMPI_COLL_ALLREDUCE']) assert.ok(names.includes(env), env);
});

test('processorName() is the rank\'s node (this host; the simulated host under sim), before and after init(); wtick() the clock\'s step', { timeout: 60_000 }, async () => {
  const here = hostname();
  for (const launch of [['run', '-n', '2'], ['run', '--procs', '-n', '2']]) {
    const result = await tsmpi([...launch, fixture('processor-name.ts')], { timeoutMs: 30_000 });
    assert.equal(result.code, 0, explain(result));
    assert.deepEqual(result.stdout.split('\n').filter((l) => l.startsWith('rank ')).sort(), [0, 1].map((r) => `rank ${r} before ${here} after ${here} tick 0.000001`), launch.join(' '));
  }
  const sim = await tsmpi(['sim', '--quiet', '-n', '4', '--ranks-per-host', '2', fixture('processor-name.ts')], { timeoutMs: 30_000 });
  assert.equal(sim.code, 0, explain(sim));
  assert.deepEqual(sim.stdout.split('\n').filter((l) => l.startsWith('rank ')).sort(), [0, 1, 2, 3].map((r) => `rank ${r} before node-${r >> 1} after node-${r >> 1} tick 1e-9`));
});
