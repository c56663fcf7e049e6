// The point-to-point semantics suite (test/fixtures/p2p-suite.ts) at 1 to 4 ranks, each run on
// world, a dup, a split and SELF (mpi4py runs its suite at several sizes the same way).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { P2P_SUITE_LINES, explain, runFixture } from '../helpers/run-job.ts';

for (const np of [1, 2, 3, 4]) {
  test(`p2p semantics on ${np} rank${np > 1 ? 's' : ''}`, { timeout: 180_000 }, async () => {
    const result = await runFixture('p2p-suite.ts', np);
    assert.equal(result.code, 0, explain(result));
    const ok = result.stdout.split('\n').filter((line) => line.startsWith('p2p ok '));
    assert.equal(ok.length, P2P_SUITE_LINES, explain(result));
  });
}
