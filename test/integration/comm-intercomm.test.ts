// Intercommunicators (mpi4py's test_comm_inter, test_cco_obj_inter and test_cco_vec_inter, test/fixtures/intercomm.ts):
// the world's two halves joined, then groups, point-to-point by remote rank, every collective
// from group to group (blocking, nonblocking, v forms, reduce-scatter), createFromGroups, split, create, merge and dup, at 2 to 5 ranks in threads, processes and the simulator.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const CHECKS = ['localGroupSizeRank', 'remoteGroupSizeRank', 'pointToPoint', 'barrier', 'bcast', 'gather', 'scatter', 'reduce', 'allgather', 'allreduce', 'alltoall', 'nonblocking', 'vectors', 'reduceScatter', 'createFromGroups', 'splitAndCreate', 'merge', 'dupAndFree', 'errors'];
const modes = { threads: ['run'], procs: ['run', '--procs'], sim: ['sim', '--quiet'] } as const;

for (const [mode, launch] of Object.entries(modes)) {
  test(`intercommunicators between the world's halves, 2 to 5 ranks (${mode})`, { timeout: 300_000 }, async () => {
    for (const np of mode === 'procs' ? [2, 3, 4] : [2, 3, 4, 5]) {
      const result = await tsmpi([...launch, '-n', String(np), fixture('intercomm.ts')], { timeoutMs: 120_000 });
      assert.equal(result.code, 0, `${np} ranks: ${explain(result)}`);
      const ok = result.stdout.split('\n').filter((line) => line.startsWith('inter ok ')).map((line) => line.slice('inter ok '.length));
      assert.deepEqual(ok, CHECKS, `${np} ranks (${mode})`);
    }
  });
}
