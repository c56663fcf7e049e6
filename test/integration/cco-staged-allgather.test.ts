// allgatherv of large blocks on a world of rank threads of one process goes through the staging
// regions (staged-gather.ts): no messages in the timeline, messages on 2 ranks, across processes
// or when another algorithm is forced; blocks over several rounds, uneven and empty, staged
// allreduces between gathers and nonblocking gathers across a world barrier stay exact; counts
// that differ between ranks fail every rank with an error naming the ranks. The collectives suite
// checks the forced `shared` row (cco-suite.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';
import { everyRankOk, stagedFlows } from '../helpers/staged-runs.ts';

const flows = (args: string[], env: Record<string, string>): Promise<number> => stagedFlows('staged-gathers.ts', [args, env], ['allgatherv'], 7);

test('a staged allgatherv sends no message; on 2 ranks, on 4 with blocks under 1 MiB, across processes or forced to the rounds it does', { timeout: 150_000 }, async () => {
  // Blocks of 320-392 KB: staged by default on 8 ranks, by the messages on fewer (under 1 MiB).
  assert.equal(await flows(['-n', '8'], {}), 0);
  assert.ok((await flows(['-n', '8'], { TSMPI_COLL_ALLGATHER: 'bruck' })) > 0);
  assert.ok((await flows(['-n', '4'], {})) > 0);
  assert.equal(await flows(['-n', '4'], { TSMPI_COLL_ALLGATHER: 'shared' }), 0);
  assert.ok((await flows(['-n', '4', '--ranks-per-proc', '2'], { TSMPI_COLL_ALLGATHER: 'shared' })) > 0);
  assert.ok((await flows(['-n', '2'], {})) > 0);
  assert.equal(await flows(['-n', '2'], { TSMPI_COLL_ALLGATHER: 'shared', TSMPI_COLL_ALLREDUCE: 'shared' }), 0);
});

test('staged allgathervs over several rounds, between staged allreduces and in flight across a barrier: exact on every rank', { timeout: 150_000 }, async () => {
  await everyRankOk('staged-gathers.ts', [
    [['-n', '3'], { TSMPI_COLL_ALLGATHER: 'shared' }],
    [['-n', '5'], { TSMPI_COLL_ALLGATHER: 'shared', TSMPI_COLL_BARRIER: 'shared' }],
    [['-n', '8'], { TSMPI_RANKS_PER_THREAD: '4' }],
  ]);
});

test('counts that differ between ranks fail a staged allgatherv on every rank, naming the ranks', { timeout: 60_000 }, async () => {
  const r = await tsmpi(['run', '-n', '4', fixture('staged-gathers.ts'), 'mismatch'], { env: { TSMPI_COLL_ALLGATHER: 'shared' }, timeoutMs: 50_000 });
  assert.equal(r.code, 0, explain(r));
  for (const rank of [0, 2, 3]) assert.match(r.stdout, new RegExp(`^rank ${rank} error: TSMPI_ERR_COUNT .*allgatherv on world: rank 0 and rank 1 passed different counts`, 'm'), explain(r));
  assert.match(r.stdout, /^rank 1 error: TSMPI_ERR_COUNT .*allgatherv on world: rank 0 passed 160000 bytes where the counts say 152000/m, explain(r));
});
