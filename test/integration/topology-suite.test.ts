// Process topologies (test/fixtures/topology-suite.ts: Cartesian grids, sub-grids, distributed
// graphs and the neighbour collectives against a reference) on 1, 2, 4 and 6 ranks on threads,
// on processes (--procs), on several processes of several ranks (--ranks-per-proc), under the
// simulator, and with argument checks; the nonblocking neighbour collectives beside the blocking.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, runFixture, tsmpi } from '../helpers/run-job.ts';

const CHECKS = 9;
const COMMUNICATORS = 2;

function okLines(stdout: string): number {
  return stdout.split('\n').filter((line) => line.startsWith('topo ok ')).length;
}

for (const np of [1, 2, 4, 6]) {
  test(`topologies on ${np} rank${np > 1 ? 's' : ''} (threads)`, { timeout: 300_000 }, async () => {
    const result = await runFixture('topology-suite.ts', np, [], { timeoutMs: 280_000 });
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

const modes: [string, string[]][] = [
  ['3 processes (--procs)', ['run', '-n', '3', '--procs']],
  ['4 ranks, 2 per process (--ranks-per-proc 2)', ['run', '-n', '4', '--ranks-per-proc', '2']],
  ['5 ranks under tsmpi sim', ['sim', '-n', '5', '--quiet']],
];

// With argument checks (TSMPI_CHECK) a nonblocking neighbour collective's steps start after its
// check: its channels must still be taken when it is called (two in flight hung before).
modes.push(['4 threads with argument checks (TSMPI_CHECK=1)', ['run', '-n', '4', '--hang-timeout', '60']]);

for (const [name, args] of modes) {
  test(`topologies on ${name}`, { timeout: 300_000 }, async () => {
    const env = name.includes('TSMPI_CHECK') ? { TSMPI_CHECK: '1' } : undefined;
    const result = await tsmpi([...args, fixture('topology-suite.ts')], { timeoutMs: 280_000, ...(env ? { env } : {}) });
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}
