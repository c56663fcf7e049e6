// Issue 20, beyond mpi4py's own tests (test/fixtures/comm-management.ts): creations in flight at
// once never share a context, disjoint create, createGroup over overlapping groups, errors that
// name the rank, the call and the fix (groups, freed communicators, buffered sends), cancel of
// sends the receiver was told of, the send buffer's room held until delivery, matched probes
// that take their message, splitType by host and process; threads, processes, both, simulator.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const CHECKS = ['concurrentCreations', 'disjointCreate', 'createGroupOverlapping', 'groupErrors', 'freedErrors', 'cancelAnnouncedSends', 'bufferedSends', 'matchedProbeTakes', 'splitTypes'];
const COMMS = ['world', 'dup(world)'];
const modes = { threads: ['run'], procs: ['run', '--procs'], mixed: ['run', '--ranks-per-proc', '2'], sim: ['sim', '--quiet'] } as const;

for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
  test(`communicator management, cancellation and buffered sends, 1 to 5 ranks (${mode})`, { timeout: 300_000 }, async () => {
    for (const np of [1, 2, 3, 4, 5]) {
      const result = await tsmpi([...modes[mode], '-n', String(np), fixture('comm-management.ts')], { timeoutMs: 120_000 });
      assert.equal(result.code, 0, `${np} ranks: ${explain(result)}`);
      const ok = result.stdout.split('\n').filter((line) => line.startsWith('manage ok ')).sort();
      assert.deepEqual(ok, COMMS.flatMap((c) => CHECKS.map((name) => `manage ok ${name} ${c}`)).sort(), `${np} ranks (${mode})`);
      // One machine: every rank on one host; a process each under --procs, two per process mixed,
      // one for all thread ranks; under sim a simulated host (and process) each.
      const all = (x: number): string => Array(np).fill(x).join(',');
      const perProcess = mode === 'threads' ? all(np) : mode === 'mixed' ? Array.from({ length: np }, (_, r) => (r < np - (np % 2) ? 2 : 1)).join(',') : all(1);
      const shared = mode === 'sim' ? all(1) : all(np);
      assert.match(result.stdout, new RegExp(`^manage placement shared ${shared} process ${perProcess}$`, 'm'), `${np} ranks (${mode})`);
    }
  });
}
