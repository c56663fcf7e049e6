// The launcher's stdin is one rank's process.stdin (rank 0, or --stdin N / TSMPI_STDIN, none:
// no rank's), as mpirun forwards it, in threads, processes and both mixed: every byte, in order;
// nothing read from it unless that rank reads; and an input left open does not keep a job alive
// once the rank stopped reading.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const modes = { threads: [], procs: ['--procs'], mixed: ['--ranks-per-proc', '2'], 'shared threads': ['--ranks-per-thread', '2'] } as const;

for (const [mode, launch] of Object.entries(modes)) {
  test(`rank 0 reads the launcher's stdin, every other rank an empty one (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', ...launch, '-n', '3', fixture('stdin-read.ts'), '0'], { input: 'one\ntwo\n', timeoutMs: 30_000 });
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.split('\n').filter((l) => l !== '').sort();
    assert.deepEqual(lines, ['rank 0 read "one\\ntwo\\n"', 'rank 1 read ""', 'rank 2 read ""', 'ranks 3']);
  });

  test(`--stdin 3 gives it to rank 3, and no other rank reads a byte of it (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', ...launch, '-n', '4', '--stdin', '3', fixture('stdin-read.ts'), 'others'], { input: 'to three\n', timeoutMs: 30_000 });
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.split('\n').filter((l) => l !== '').sort();
    assert.deepEqual(lines, ['rank 0 read ""', 'rank 1 read ""', 'rank 2 read ""', 'rank 3 read "to three\\n"', 'ranks 4']);
  });
}

test('4 MiB of stdin arrives whole and in order (threads and processes)', { timeout: 60_000 }, async () => {
  const input = randomBytes(3 << 20).toString('base64');
  const digest = createHash('sha256').update(input).digest('hex');
  for (const launch of [[], ['--procs']]) {
    const result = await tsmpi(['run', ...launch, '-n', '2', fixture('stdin-digest.ts')], { input, timeoutMs: 40_000 });
    assert.equal(result.code, 0, explain(result));
    assert.equal(result.stdout.trim(), `${input.length} ${digest}`, launch.join(' ') || 'threads');
  }
});

test('--stdin none and TSMPI_STDIN=none: rank 0 reads an empty stdin', { timeout: 60_000 }, async () => {
  const flag = await tsmpi(['run', '-n', '2', '--stdin', 'none', fixture('stdin-read.ts'), '0'], { input: 'unread\n', timeoutMs: 30_000 });
  assert.equal(flag.code, 0, explain(flag));
  assert.match(flag.stdout, /rank 0 read ""\n/);
  const variable = await tsmpi(['run', '--procs', '-n', '2', fixture('stdin-read.ts'), '0'], { input: 'unread\n', env: { TSMPI_STDIN: 'none' }, timeoutMs: 30_000 });
  assert.equal(variable.code, 0, explain(variable));
  assert.match(variable.stdout, /rank 0 read ""\n/);
});

test('a bad --stdin is refused before anything runs, naming what it takes', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', '--stdin', 'first', fixture('stdin-read.ts')], { timeoutMs: 30_000 });
  assert.equal(result.code, 2, explain(result));
  assert.match(result.stderr, /TSMPI_STDIN.*first.*a world rank \(0, 1, \.\.\.\) or none/);
  const beyond = await tsmpi(['run', '-n', '2', '--stdin', '2', fixture('stdin-read.ts')], { timeoutMs: 30_000 });
  assert.equal(beyond.code, 2, explain(beyond));
  assert.match(beyond.stderr, /--stdin 2: there is no rank 2 among 2 \(hint: give a rank from 0 to 1, or none\)/);
  const hosts = await tsmpi(['run', '-H', 'localhost:2', '--stdin', '0', fixture('stdin-read.ts')], { timeoutMs: 30_000 });
  assert.equal(hosts.code, 2, explain(hosts));
  assert.match(hosts.stderr, /--stdin 0 and hosts conflict/);
});

test('an input left open ends no rank and holds no job: a rank that reads one line and stops, a job that never reads', { timeout: 60_000 }, async () => {
  for (const launch of [[], ['--procs']]) {
    const oneLine = await tsmpi(['run', ...launch, '-n', '2', fixture('stdin-read.ts'), '0', 'line'], { input: 'first\nsecond\n', keepInputOpen: true, timeoutMs: 30_000 });
    assert.equal(oneLine.code, 0, explain(oneLine));
    assert.match(oneLine.stdout, /rank 0 read "first\\n"\n/);
    const unread = await tsmpi(['run', ...launch, '-n', '2', fixture('stdin-read.ts'), 'none'], { input: 'never read\n', keepInputOpen: true, timeoutMs: 30_000 });
    assert.equal(unread.code, 0, explain(unread));
  }
});

test('stdin read before init(): the world still forms (threads, processes)', { timeout: 60_000 }, async () => {
  for (const launch of [[], ['--procs']]) {
    const result = await tsmpi(['run', ...launch, '-n', '2', fixture('stdin-before-init.ts')], { input: 'early\n', timeoutMs: 30_000 });
    assert.equal(result.code, 0, explain(result));
    assert.deepEqual(result.stdout.split('\n').filter((l) => l !== '').sort(), ['rank 0 read "early\\n" of 2', 'rank 1 read "" of 2'], launch.join(' ') || 'threads');
  }
});
