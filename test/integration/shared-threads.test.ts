// Ranks that share a worker thread (TSMPI_RANKS_PER_THREAD): the semantics suites pass unchanged,
// each rank keeps its own program instance, a failure names its rank, and a rank that polls
// without awaiting is told why its thread-mates do not move.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CCO_SUITE_LINES, P2P_SUITE_LINES, explain, fixture, runFixture } from '../helpers/run-job.ts';

const okLines = (stdout: string, prefix: string): number => stdout.split('\n').filter((line) => line.startsWith(prefix)).length;

for (const [np, perThread] of [
  [4, 2],
  [5, 4],
] as const) {
  test(`collectives on ${np} ranks, ${perThread} per thread`, { timeout: 300_000 }, async () => {
    const result = await runFixture('cco-suite.ts', np, [], { env: { TSMPI_RANKS_PER_THREAD: String(perThread) } });
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout, 'cco ok '), CCO_SUITE_LINES, explain(result));
  });
}

test('point-to-point semantics on 4 ranks in one thread', { timeout: 180_000 }, async () => {
  const result = await runFixture('p2p-suite.ts', 4, [], { env: { TSMPI_RANKS_PER_THREAD: '4' } });
  assert.equal(result.code, 0, explain(result));
  assert.equal(okLines(result.stdout, 'p2p ok '), P2P_SUITE_LINES, explain(result));
});

test('each rank of a shared thread has its own instance of the program; the thread has no one rank number', { timeout: 60_000 }, async () => {
  const result = await runFixture('shared-thread.ts', 6, ['instances'], { env: { TSMPI_RANKS_PER_THREAD: '3' } });
  assert.equal(result.code, 0, explain(result));
  for (let rank = 0; rank < 6; rank++) {
    assert.ok(result.stdout.includes(`instances ok rank ${rank} of 6: calls 50,50,50,50,50,50; TSMPI_RANK=unset`), explain(result));
  }
  const alone = await runFixture('shared-thread.ts', 2, ['instances']);
  assert.equal(alone.code, 0, explain(alone));
  assert.ok(alone.stdout.includes('instances ok rank 1 of 2: calls 50,50; TSMPI_RANK=1'), explain(alone));
});

for (const perThread of [2, 4]) {
  test(`a rank that throws in a thread of ${perThread} ranks is named, and the job ends with 1`, { timeout: 30_000 }, async () => {
    const result = await runFixture('fail-throw.ts', 4, ['2', 'throw'], { env: { TSMPI_RANKS_PER_THREAD: String(perThread) }, timeoutMs: 20_000 });
    assert.equal(result.signal, null, `the job did not end by itself\n${explain(result)}`);
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stderr, /tsmpi: rank 2 failed:/);
    assert.match(result.stderr, /deliberate failure on rank 2/);
    assert.ok(result.stderr.includes(`${fixture('fail-throw.ts')}:`), `the stack names the .ts source\n${result.stderr}`);
  });
}

test('a rank that polls with test() without awaiting is told that its thread-mates cannot run', { timeout: 60_000 }, async () => {
  const result = await runFixture('shared-thread.ts', 2, ['poll'], { env: { TSMPI_RANKS_PER_THREAD: '2' } });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stderr, /rank 0 has polled with test\(\) for 3 s without awaiting; the ranks that share its thread \(TSMPI_RANKS_PER_THREAD\) run only while it awaits/);
  assert.match(result.stdout, /poll ok: got from the mate after \d+ polls without awaiting, then an await/);
});

test('a bad TSMPI_RANKS_PER_THREAD stops the job naming the variable', { timeout: 30_000 }, async () => {
  const result = await runFixture('shared-thread.ts', 2, ['instances'], { env: { TSMPI_RANKS_PER_THREAD: '0' } });
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /TSMPI_RANKS_PER_THREAD/);
  assert.match(result.stderr, /a whole number of ranks >= 1/);
});
