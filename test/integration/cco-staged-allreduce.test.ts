// Allreduces of typed arrays from 32 KiB on a world of more than 2 ranks that are all threads of
// one process go through the process's staging regions (staged-reduction.ts): no messages in the
// timeline, messages across processes or when another algorithm is forced; nonblocking ones in
// flight across a world barrier keep their order; a hang names a rank that has not arrived, and a
// rank that ended is named. Every algorithm's results are checked by the collectives suite
// (cco-suite.test.ts: the forced `shared` row and the default on 3-8 ranks).
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
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

// Rank threads that outnumber the cores stage small arrays whole (one barrier a call, the halves
// of the regions taking turns): a world one larger than the machine's cores, at least 5.
const crowdedRanks = Math.max(5, availableParallelism() + 1);

test('small allreduces, reduce-scatters and allgathervs of crowded rank threads are staged: no message', { timeout: 120_000, skip: crowdedRanks > 16 ? 'more than 16 cores' : false }, async () => {
  const smallFlows = (args: string[], env: Record<string, string>): Promise<number> => stagedFlows('staged-small.ts', [args, env], ['allreduce', 'reduceScatterBlock', 'allgatherv'], 3);
  assert.equal(await smallFlows(['-n', String(crowdedRanks)], {}), 0);
  assert.equal(await smallFlows(['-n', '3'], { TSMPI_COLL_ALLREDUCE: 'shared', TSMPI_COLL_REDUCESCATTER: 'shared', TSMPI_COLL_ALLGATHER: 'shared' }), 0);
  assert.ok((await smallFlows(['-n', String(crowdedRanks)], { TSMPI_COLL_ALLREDUCE: 'recursive-doubling' })) > 0);
  assert.ok((await smallFlows(['-n', String(crowdedRanks)], { TSMPI_COLL_REDUCESCATTER: 'ring' })) > 0);
  assert.ok((await smallFlows(['-n', String(crowdedRanks)], { TSMPI_COLL_ALLGATHER: 'ring' })) > 0);
  assert.ok((await smallFlows(['-n', '4', '--ranks-per-proc', '2'], {})) > 0);
});

test('small staged collectives between staged gathers, nonblocking ones and larger than a region: exact on every rank', { timeout: 150_000 }, async () => {
  const forced = { TSMPI_COLL_ALLREDUCE: 'shared', TSMPI_COLL_REDUCESCATTER: 'shared', TSMPI_COLL_ALLGATHER: 'shared' };
  await everyRankOk('staged-small.ts', [
    [['-n', '3'], forced],
    [['-n', '2'], forced],
    [['-n', String(Math.min(crowdedRanks, 16))], {}],
    [['-n', '6'], { ...forced, TSMPI_RANKS_PER_THREAD: '3' }],
  ]);
});

test('ranks whose arrays differ in length, so that only some stage them whole, fail with the lengths named', { timeout: 60_000 }, async () => {
  // Rank 0's 10 doubles go whole, the others' 70,000 a region at a time.
  const r = await tsmpi(['run', '-n', '4', fixture('staged-mismatch.ts')], { env: { TSMPI_COLL_ALLREDUCE: 'shared' }, timeoutMs: 50_000 });
  assert.equal(r.code, 1, explain(r));
  assert.match(r.stderr, /rank 0, allreduce: rank [123] is not in allreduce \(Op\.sum\) on world as rank 0 is: this rank passed a Float64Array\(10\)/, explain(r));
});

test('reduce-scatters of crowded rank threads up to 1 MiB are staged, a part of every block at a time: no message, exact', { timeout: 120_000, skip: crowdedRanks > 16 ? 'more than 16 cores' : false }, async () => {
  const flows = (env: Record<string, string>): Promise<number> => stagedFlows('staged-reduce-scatter.ts', [['-n', String(crowdedRanks)], env], ['reduceScatterBlock', 'reduceScatter'], 2);
  assert.equal(await flows({}), 0);
  assert.ok((await flows({ TSMPI_COLL_REDUCESCATTER: 'ring' })) > 0);
});
