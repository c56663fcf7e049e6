// Allreduces of typed arrays from 32 KiB on a world of more than 2 ranks that are all threads of
// one process go through the process's staging regions (staged-reduction.ts): no messages in the
// timeline, messages across processes or when another algorithm is forced; nonblocking ones in
// flight across a world barrier keep their order; a hang names a rank that has not arrived, and a
// rank that ended is named. Every algorithm's results are checked by the collectives suite
// (cco-suite.test.ts: the forced `shared` row and the default on 3-8 ranks).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';
import { everyRankOk, stagedFlows } from '../helpers/staged-runs.ts';

const flows = (args: string[], env: Record<string, string>): Promise<number> => stagedFlows('staged-allreduces.ts', [args, env], ['allreduce', 'iallreduce'], 6);

test('a staged allreduce sends no message; across processes, forced to the ring, or on 2 ranks it does', { timeout: 150_000 }, async () => {
  assert.equal(await flows(['-n', '4'], {}), 0);
  assert.equal(await flows(['-n', '3'], { TSMPI_RANKS_PER_THREAD: '3' }), 0);
  assert.ok((await flows(['-n', '4'], { TSMPI_COLL_ALLREDUCE: 'ring' })) > 0);
  assert.ok((await flows(['-n', '4', '--ranks-per-proc', '2'], {})) > 0);
  assert.ok((await flows(['-n', '2'], {})) > 0);
  assert.equal(await flows(['-n', '2'], { TSMPI_COLL_ALLREDUCE: 'shared' }), 0);
});

test('staged allreduces in flight across a world barrier, larger than a region, in place and into an array: exact on every rank', { timeout: 150_000 }, async () => {
  await everyRankOk('staged-allreduces.ts', [
    [['-n', '4'], {}],
    [['-n', '5'], { TSMPI_COLL_BARRIER: 'shared' }],
    [['-n', '8'], { TSMPI_RANKS_PER_THREAD: '4' }],
  ]);
});

test('a hang in a staged allreduce names a rank that has not arrived', { timeout: 60_000 }, async () => {
  // Ranks 0 and 1 deadlock in receives; 2 and 3 wait in the allreduce for them.
  const r = await tsmpi(['run', '-n', '4', '--hang-timeout', '1', fixture('deadlock.ts'), 'allreduce'], { timeoutMs: 50_000 });
  assert.equal(r.code, 124, explain(r));
  assert.match(r.stderr, /rank 2: waiting in allreduce from rank [01] on world\n/);
  assert.match(r.stderr, /rank 3: waiting in allreduce from rank [01] on world\n/);
});

test('a staged allreduce whose rank ended fails on the others, naming it', { timeout: 60_000 }, async () => {
  const r = await tsmpi(['run', '-n', '4', fixture('allreduce-rank-ended.ts')], { timeoutMs: 50_000 });
  assert.equal(r.code, 1, explain(r));
  assert.match(r.stderr, /rank [123], allreduce: allreduce from rank 0 on world: world rank 0 exited \(code 0\), so this can never complete/, explain(r));
  assert.doesNotMatch(r.stdout, /rank [123] done/, explain(r));
});
