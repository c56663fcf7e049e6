// examples/histogram.ts: the shared histogram by one-sided accumulate counts every sample once,
// and the same bins on threads, processes and the simulator (the samples are seeded per rank).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, tsmpi } from '../helpers/run-job.ts';

const bins = (stdout: string): string[] => stdout.split('\n').filter((line) => line.startsWith('['));

test('examples/histogram.ts gives the same histogram on threads, processes and the simulator', { timeout: 300_000 }, async () => {
  const runs = [];
  for (const args of [['run', '-n', '4'], ['run', '-n', '4', '--procs'], ['run', '-n', '4', '--ranks-per-proc', '2'], ['sim', '-n', '4', '--quiet']]) {
    const result = await tsmpi([...args, 'examples/histogram.ts', '20000', '8']);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /^80000 samples from 4 ranks$/m, explain(result));
    runs.push(bins(result.stdout));
  }
  assert.equal(runs[0]!.length, 8);
  const total = runs[0]!.reduce((sum, line) => sum + Number(/\)\s+(\d+)/.exec(line)![1]), 0);
  assert.equal(total, 80000);
  for (const run of runs.slice(1)) assert.deepEqual(run, runs[0]);
});
