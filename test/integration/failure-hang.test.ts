// A deliberate deadlock with a hang timeout: the job prints what every rank waits for and exits 124.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn, spawnSync } from 'node:child_process';
import { cli, explain, runFixture, tsmpi, fixture } from '../helpers/run-job.ts';

test('a deadlock with --hang-timeout prints both ranks\' waits and exits 124', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '3', '--hang-timeout', '1', fixture('deadlock.ts')], { timeoutMs: 30_000 });
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /no rank made progress for 1 s/);
  assert.match(result.stderr, /rank 0: waiting in recv from rank 1, tag 7, on world\n/);
  assert.match(result.stderr, /rank 1: waiting in recv from rank 0, tag 8, on world\n/);
  assert.match(result.stderr, /rank 2: waiting in barrier from rank \d on world\n/);
});

test('the hang report names communicators: a split by its parent and colour, a named dup by its name (issue 12)', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '4', '--hang-timeout', '1', fixture('deadlock-split.ts')], { timeoutMs: 30_000 });
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /rank 0: waiting in recv from rank 1 \(world rank 2\), tag 5, on split of world \(color 0\)\n/);
  assert.match(result.stderr, /rank 1: waiting in recv from rank 3, tag 6, on halo\n/);
  assert.match(result.stderr, /rank 2: waiting in barrier from rank \d on world\n/);
  assert.doesNotMatch(result.stderr, /context \d/);
});

test('the simulator\'s deadlock report names communicators too', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '4', '--quiet', fixture('deadlock-split.ts')]);
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /rank 0: recv from rank 1 \(world rank 2\), tag 5, on split of world \(color 0\)/);
  assert.match(result.stderr, /rank 1: recv from rank 3, tag 6, on halo/);
});

test('without a hang timeout a deadlock is reported once and the job keeps waiting', { timeout: 60_000 }, async () => {
  const result = await runFixture('deadlock.ts', 2, [], { env: { TSMPI_HANG_WARN: '1' }, timeoutMs: 6_000 });
  assert.equal(result.signal, 'SIGKILL', `the job must still be waiting when the test kills it\n${explain(result)}`);
  assert.match(result.stderr, /every rank has waited \d+ s without progress \(a deadlock\?\)/);
  assert.match(result.stderr, /rank 1: waiting in recv from rank 0, tag 8/);
  assert.equal(result.stderr.match(/a deadlock\?/g)?.length, 1, 'reported once');
});

// Issue 22: one job-wide report across processes: the launcher gathers every rank's state from
// every process and prints it once, in rank order, then ends the job with 124.
for (const launch of [['--procs'], ['--ranks-per-proc', '2']]) {
  test(`a deadlock across processes (${launch.join(' ')}) gives one report of every rank, in rank order, and exits 124`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', ...launch, '-n', '4', '--hang-timeout', '2', fixture('deadlock.ts')], { timeoutMs: 40_000 });
    assert.equal(result.code, 124, explain(result));
    assert.equal(result.stderr.match(/no rank made progress for 2 s/g)?.length, 1, `one report\n${explain(result)}`);
    const lines = result.stderr.split('\n').filter((l) => /^ {2}rank \d+: /.test(l));
    assert.deepEqual(
      lines.map((l) => l.replace(/barrier from rank \d/, 'barrier from rank N')),
      ['  rank 0: waiting in recv from rank 1, tag 7, on world', '  rank 1: waiting in recv from rank 0, tag 8, on world', '  rank 2: waiting in barrier from rank N on world', '  rank 3: waiting in barrier from rank N on world'],
      explain(result),
    );
    assert.match(result.stderr, /aborting the job \(exit code 124\)/);
  });
}

test('without a hang timeout, a deadlock across processes is reported once for the whole job', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '--procs', '-n', '3', fixture('deadlock.ts')], { env: { TSMPI_HANG_WARN: '1' }, timeoutMs: 8_000 });
  assert.equal(result.signal, 'SIGKILL', `the job must still be waiting when the test kills it\n${explain(result)}`);
  assert.equal(result.stderr.match(/every rank has waited \d+ s without progress \(a deadlock\?\)/g)?.length, 1, explain(result));
  assert.match(result.stderr, /rank 0: waiting in recv from rank 1, tag 7, on world\n {2}rank 1: waiting in recv from rank 0, tag 8, on world\n {2}rank 2: waiting in barrier/);
});

test('a launcher killed outright (SIGKILL) leaves no rank process running', { timeout: 60_000 }, async () => {
  const token = `orphan-check-${process.pid}-${Date.now()}`;
  const running = (): number => {
    const ps = spawnSync('pgrep', ['-f', token], { encoding: 'utf8' });
    return ps.stdout.split('\n').filter((l) => l.trim() !== '').length;
  };
  const launcher = spawn(process.execPath, [cli, 'run', '--procs', '-n', '3', fixture('deadlock.ts'), token], { stdio: 'ignore' });
  const started = Date.now();
  while (running() < 4 && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(running(), 4, 'the launcher and its 3 processes run');
  launcher.kill('SIGKILL');
  const killed = Date.now();
  while (running() > 0 && Date.now() - killed < 10_000) await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(running(), 0, 'every rank process ended with its launcher');
});

// A rank whose program returned but whose thread lives on (a timer the program never cleared)
// kept the job waiting with nothing said: it is reported as such, with what keeps it.
const LINGERING = /rank 1: its program returned, but its thread has not ended: the program's Timeout keeps it alive \(a timer not cleared, a socket or server not closed\); clear or close it, or end the rank with process\.exit\(0\)\n/;

for (const launch of [[], ['--procs']]) {
  test(`a rank kept alive by its program's timer after it returned is reported, and --hang-timeout ends the job (${launch.join(' ') || 'threads'})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', ...launch, '-n', '3', '--hang-timeout', '1', fixture('linger.ts')], { timeoutMs: 30_000 });
    assert.equal(result.code, 124, explain(result));
    assert.match(result.stdout, /sum 6/);
    assert.equal(result.stderr.match(/no rank made progress for 1 s/g)?.length, 1, explain(result));
    assert.match(result.stderr, / {2}rank 0: exited with code 0\n/);
    assert.match(result.stderr, LINGERING);
    assert.match(result.stderr, / {2}rank 2: exited with code 0\n/);
  });
}

test('without a hang timeout a lingering rank is reported once, the job keeps running, and ends when the timer is cleared', { timeout: 60_000 }, async () => {
  const kept = await runFixture('linger.ts', 3, [], { env: { TSMPI_HANG_WARN: '1' }, timeoutMs: 6_000 });
  assert.equal(kept.signal, 'SIGKILL', `the job must still be running when the test kills it\n${explain(kept)}`);
  assert.equal(kept.stderr.match(/the ranks still running have returned from the program/g)?.length, 1, explain(kept));
  assert.match(kept.stderr, LINGERING);
  const cleared = await runFixture('linger.ts', 3, ['1', 'clear'], { env: { TSMPI_HANG_WARN: '1' }, timeoutMs: 30_000 });
  assert.equal(cleared.code, 0, explain(cleared));
});

test('ranks sharing a thread that one of them keeps alive are each reported as lingering', { timeout: 60_000 }, async () => {
  const result = await runFixture('linger.ts', 4, ['1'], { env: { TSMPI_HANG_WARN: '1', TSMPI_RANKS_PER_THREAD: '2' }, timeoutMs: 6_000 });
  assert.equal(result.signal, 'SIGKILL', explain(result));
  assert.match(result.stderr, / {2}rank 0: its program returned, but its thread has not ended/);
  assert.match(result.stderr, LINGERING);
  assert.match(result.stderr, / {2}rank 2: exited with code 0\n {2}rank 3: exited with code 0\n/);
});

test('a rank still at work after its module returned (main() not awaited) is no lingering rank: no report, no abort', { timeout: 60_000 }, async () => {
  for (const [mode, launch] of [['async', []], ['sync', []], ['sync', ['--procs']]] as const) {
    const result = await tsmpi(['run', ...launch, '-n', '3', '--hang-timeout', '1', fixture('unawaited-main.ts'), mode, '4'], { env: { TSMPI_HANG_WARN: '1' }, timeoutMs: 30_000 });
    assert.equal(result.code, 0, `${mode}: ${explain(result)}`);
    assert.match(result.stdout, /rank 1 computed 4 s/, mode);
    assert.doesNotMatch(result.stderr, /made progress|returned from the program/, `${mode}: nothing reported\n${explain(result)}`);
  }
});
