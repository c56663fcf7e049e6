// Every collective against a sequential reference (test/fixtures/cco-suite.ts) on 1, 2, 3, 4, 7
// and 8 ranks (odd sizes catch power-of-two assumptions), plus each forced algorithm.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CCO_SUITE_LINES, explain, fixture, runFixture, tsmpi } from '../helpers/run-job.ts';

const COMMUNICATORS = 4;
const CHECKS = CCO_SUITE_LINES / COMMUNICATORS;

function okLines(stdout: string): number {
  return stdout.split('\n').filter((line) => line.startsWith('cco ok ')).length;
}

for (const np of [1, 2, 3, 4, 7, 8]) {
  test(`collectives on ${np} rank${np > 1 ? 's' : ''}`, { timeout: 300_000 }, async () => {
    const result = await runFixture('cco-suite.ts', np);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

const forced: [string, string, string][] = [
  ['TSMPI_COLL_BCAST', 'linear', 'bcast'],
  ['TSMPI_COLL_BCAST', 'scatter-allgather', 'bcastInto'],
  ['TSMPI_COLL_BCAST', 'shared', 'bcastInto'],
  ['TSMPI_COLL_BCAST', 'shared', 'bcast'],
  ['TSMPI_COLL_REDUCE', 'linear', 'reduce'],
  ['TSMPI_COLL_ALLREDUCE', 'ring', 'allreduce'],
  ['TSMPI_COLL_ALLREDUCE', 'reduce-bcast', 'allreduce'],
  ['TSMPI_COLL_ALLREDUCE', 'recursive-doubling', 'allreduce'],
  ['TSMPI_COLL_ALLREDUCE', 'shared', 'allreduce'],
  ['TSMPI_COLL_ALLGATHER', 'ring', 'allgather'],
  ['TSMPI_COLL_ALLGATHER', 'recursive-doubling', 'allgather'],
  ['TSMPI_COLL_ALLGATHER', 'shared', 'allgather'],
  ['TSMPI_COLL_GATHER', 'linear', 'gather'],
  ['TSMPI_COLL_SCATTER', 'linear', 'scatter'],
  ['TSMPI_COLL_ALLTOALL', 'linear', 'alltoall'],
  ['TSMPI_COLL_BARRIER', 'linear', 'barrier'],
  ['TSMPI_COLL_BCAST', 'binomial-blocking', 'bcast'],
  ['TSMPI_COLL_BCAST', 'binomial-blocking', 'bcastInto'],
  ['TSMPI_COLL_ALLGATHER', 'linear', 'allgather'],
  ['TSMPI_COLL_ALLTOALL', 'xor-pairwise', 'alltoall'],
  ['TSMPI_COLL_ALLTOALL', 'bruck', 'alltoall'],
  ['TSMPI_COLL_REDUCESCATTER', 'reduce-scatterv', 'reduceScatter'],
  ['TSMPI_COLL_REDUCESCATTER', 'ring', 'reduceScatter'],
  ['TSMPI_COLL_REDUCESCATTER', 'recursive-doubling', 'reduceScatter'],
  ['TSMPI_COLL_REDUCESCATTER', 'recursive-halving', 'reduceScatter'],
  ['TSMPI_COLL_REDUCESCATTER', 'shared', 'reduceScatter'],
];

for (const [variable, algorithm, check] of forced) {
  test(`${check} with ${variable}=${algorithm} on 5 and 4 ranks`, { timeout: 300_000 }, async () => {
    for (const np of [5, 4]) {
      const result = await runFixture('cco-suite.ts', np, [check], { env: { [variable]: algorithm } });
      assert.equal(result.code, 0, explain(result));
      assert.equal(okLines(result.stdout), COMMUNICATORS, explain(result));
    }
  });
}

test('every collective under SimGrid\'s rules (TSMPI_COLL_RULES=simgrid) on 5 and 4 ranks', { timeout: 300_000 }, async () => {
  for (const np of [5, 4]) {
    const result = await runFixture('cco-suite.ts', np, [], { env: { TSMPI_COLL_RULES: 'simgrid' } });
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  }
});

// mpi4py's reductions default to SUM (`comm.allreduce(x)`); so do tsmpi's, in threads,
// processes and the simulator.
for (const launch of [['run'], ['run', '--procs'], ['sim', '--quiet']]) {
  test(`reductions without an op sum, as mpi4py's (${launch.join(' ')})`, { timeout: 120_000 }, async () => {
    const result = await tsmpi([...launch, '-n', '3', fixture('default-op.ts')], { timeoutMs: 100_000 });
    assert.equal(result.code, 0, explain(result));
    const lines = result.stdout.split('\n').filter((line) => /^(allreduce|allreduce-array|exscan|iallreduce|not-an-op|reduce-at-last|reduceScatterBlock|scan) /.test(line)).sort();
    assert.deepEqual(lines, [
      'allreduce 6',
      'allreduce-array 3,3',
      'exscan 1',
      'iallreduce 6',
      'not-an-op rank 1, allreduce: the reduction op is not an Op (hint: pass Op.sum, Op.max, ... or Op.create((a, b) => ...))',
      'reduce-at-last 6',
      'reduceScatterBlock 6',
      'scan 3',
    ]);
  });
}
