// Issue 20: mpi4py's own test files (test_p2p_obj, test_p2p_obj_matched, test_cco_obj, test_comm,
// test_group, test_request, test_status, test_mpimem), written anew in test/fixtures/mpi4py/, on world, self
// and a dup of each, at 1 to 5 ranks in threads, processes, both mixed and the simulator. Every
// check of every file must report on every communicator: nothing skipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMUNICATOR_NAMES, suites } from '../fixtures/mpi4py/suites.ts';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const modes = { threads: ['run'], procs: ['run', '--procs'], mixed: ['run', '--ranks-per-proc', '2'], sim: ['sim', '--quiet'] } as const;

/** Every line the suite must print: "mpi4py <file> ok <check> <communicator>". */
const expected = suites.flatMap((suite) => {
  // The check tables are built without running anything: names only.
  const names = Object.keys(suite.checks(0, undefined as never));
  const targets = suite.scope === 'once' ? ['-'] : [...COMMUNICATOR_NAMES];
  return names.flatMap((name) => targets.map((target) => `mpi4py ${suite.file} ok ${name} ${target}`));
}).sort();

test('the ported suite covers every mpi4py test method of the files it ports', () => {
  // On every communicator: test_p2p_obj 23, test_p2p_obj_matched 2, test_p2p_buf 7, test_p2p_buf_part 2, test_cco_obj 10, test_comm_topo 4, test_cco_ngh_obj 2, test_msgzero 4, test_comm 24,
  // test_group 16, test_request 2 (on messages); once: TestMessage 2, TestCommNull 1, the empty
  // and null groups 2, TestRequest(Array) 12, test_status 10, test_mpimem 2, test_environ 6, test_attributes 9, test_info 7, test_session 8. A check dropped from a file fails here.
  assert.equal(new Set(expected).size, expected.length);
  assert.equal(expected.length, (23 + 2 + 7 + 2 + 10 + 4 + 2 + 4 + 24 + 16 + 2) * COMMUNICATOR_NAMES.length + 2 + 1 + 2 + 12 + 10 + 2 + 6 + 9 + 7 + 8 + 8);
});

for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
  test(`mpi4py's tests pass with nothing skipped, 1 to 5 ranks (${mode})`, { timeout: 600_000 }, async () => {
    for (const np of [1, 2, 3, 4, 5]) {
      const result = await tsmpi([...modes[mode], '-n', String(np), fixture('mpi4py-suite.ts')], { timeoutMs: 180_000 });
      assert.equal(result.code, 0, `${np} ranks: ${explain(result)}`);
      const ok = result.stdout.split('\n').filter((line) => line.startsWith('mpi4py ')).sort();
      assert.deepEqual(ok, expected, `${np} ranks (${mode})`);
    }
  });
}
