// alltoallv on a world of rank threads that outnumber the cores goes through the staging regions
// (staged-exchange.ts): no messages in the timeline; messages on 2 ranks, across processes or
// when another algorithm is forced. Blocks over several rounds, uneven and empty, of three array
// kinds, staged allreduces and allgathervs between them, receive counts not given, and
// nonblocking exchanges in flight across a world barrier stay exact; a rank whose receive counts
// disagree with a sender's fails alone, naming both ranks, and every rank goes on. The
// collectives suite checks the forced `shared` row (cco-suite.test.ts). Staged calls started in
// one order pair in that order on every rank, whichever earlier steps finished first.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';
import { everyRankOk, stagedFlows } from '../helpers/staged-runs.ts';

// 3 passes of 3 array kinds and one into an array: 10 alltoallv slices a rank.
const flows = (args: string[], env: Record<string, string>): Promise<number> => stagedFlows('staged-exchanges.ts', [args, { TSMPI_COLL_ALLGATHER: 'shared', TSMPI_COLL_ALLREDUCE: 'shared', ...env }], ['alltoallv'], 10);

// A world of rank threads one larger than the machine's cores, at least 4: they outnumber the cores.
const crowdedRanks = String(Math.max(4, availableParallelism() + 1));

test('a staged alltoallv sends no message; on 2 ranks, across processes or forced to pairwise rounds it does', { timeout: 150_000, skip: Number(crowdedRanks) > 16 ? 'more than 16 cores' : false }, async () => {
  assert.equal(await flows(['-n', crowdedRanks], {}), 0);
  assert.ok((await flows(['-n', crowdedRanks], { TSMPI_COLL_ALLTOALL: 'pairwise' })) > 0);
  assert.ok((await flows(['-n', '4', '--ranks-per-proc', '2'], { TSMPI_COLL_ALLTOALL: 'shared' })) > 0);
  assert.ok((await flows(['-n', '2'], {})) > 0);
  assert.equal(await flows(['-n', '2'], { TSMPI_COLL_ALLTOALL: 'shared' }), 0);
});

test('staged alltoallvs over several rounds, between other staged collectives, with counts exchanged and in flight across a barrier: exact on every rank', { timeout: 150_000 }, async () => {
  await everyRankOk('staged-exchanges.ts', [
    [['-n', '3'], {}],
    [['-n', '5'], { TSMPI_COLL_BARRIER: 'shared' }],
    [['-n', '4', '--ranks-per-proc', '2'], {}],
  ]);
});

test('receive counts that disagree with a sender fail that rank alone, naming both ranks; the others complete and every rank goes on', { timeout: 60_000 }, async () => {
  for (const algorithm of ['shared', 'pairwise']) {
    const r = await tsmpi(['run', '-n', '4', fixture('staged-exchanges.ts'), 'mismatch'], { env: { TSMPI_COLL_ALLTOALL: algorithm }, timeoutMs: 50_000 });
    assert.equal(r.code, 0, explain(r));
    for (const rank of [0, 2, 3]) assert.match(r.stdout, new RegExp(`^rank ${rank} no error$`, 'm'), explain(r));
    if (algorithm === 'shared') assert.match(r.stdout, /^rank 1 error: TSMPI_ERR_TRUNCATE .*alltoallv on world: rank 0 sends 40000 bytes to rank 1, whose receive counts say 32000/m, explain(r));
    else assert.match(r.stdout, /^rank 1 error: TSMPI_ERR_TRUNCATE .*40000-byte message from rank 0/m, explain(r));
    for (let rank = 0; rank < 4; rank++) assert.match(r.stdout, new RegExp(`^rank ${rank} after 6$`, 'm'), explain(r));
  }
});

test("staged collectives pair by the program's order on every rank, when an earlier call's counts arrive at different times on different ranks (with and without TSMPI_CHECK)", { timeout: 120_000 }, async () => {
  await everyRankOk('staged-order.ts', [
    [['-n', '8'], {}],
    [['-n', '5'], { TSMPI_CHECK: '1' }],
  ]);
});
