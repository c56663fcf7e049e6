// Issue 20: mpi4py's test_request and test_status, written anew (test/fixtures/request-suite.ts),
// on world, self and a dup of each, at 1 to 5 ranks in threads, processes, both mixed and the simulator.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const CHECKS = 5;
const COMMUNICATORS = 4;
const modes = { threads: ['run'], procs: ['run', '--procs'], mixed: ['run', '--ranks-per-proc', '2'], sim: ['sim', '--quiet'] } as const;

for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
  test(`requests and statuses as mpi4py tests them, 1 to 5 ranks (${mode})`, { timeout: 300_000 }, async () => {
    for (const np of [1, 2, 3, 4, 5]) {
      const result = await tsmpi([...modes[mode], '-n', String(np), fixture('request-suite.ts')], { timeoutMs: 120_000 });
      assert.equal(result.code, 0, `${np} ranks: ${explain(result)}`);
      const ok = result.stdout.split('\n').filter((line) => line.startsWith('request ok '));
      assert.equal(ok.length, CHECKS * COMMUNICATORS, `${np} ranks: ${explain(result)}`);
    }
  });
}
