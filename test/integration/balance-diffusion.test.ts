// The random-diffusion balancer (seed 3) on real ranks and in the simulator: with busy times
// declared from known speeds every decision is deterministic, so threads, processes and
// `tsmpi sim` must end with the same task placement; every task survives every migration exactly
// once; one period takes a 3.3x imbalance to within a few percent, and later periods leave it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

interface Outcome {
  imbalances: number[];
  queues: number[][];
  final: number;
}

async function run(launch: string[], model: string): Promise<Outcome> {
  const result = await tsmpi([...launch, fixture('diffusion-run.ts'), model, '4'], { timeoutMs: 90_000 });
  assert.equal(result.code, 0, explain(result));
  const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
  assert.ok(line, explain(result));
  return JSON.parse(line) as Outcome;
}

for (const model of ['learned', 'last']) {
  test(`diffusion (${model}): same placement on threads, processes and the simulator; every task once`, async () => {
    const threads = await run(['run', '-n', '8'], model);
    const procs = await run(['run', '-n', '8', '--ranks-per-proc', '4'], model);
    const simulated = await run(['sim', '-n', '8', '--compute', 'declared'], model);
    assert.deepStrictEqual(procs, threads);
    assert.deepStrictEqual(simulated, threads);
    const ids = threads.queues.flat().sort((a, b) => a - b);
    assert.deepStrictEqual(ids, Array.from({ length: 256 }, (_, i) => i));
    assert.ok(threads.imbalances[0]! > 3.3, `start ${threads.imbalances[0]}`);
    assert.ok(threads.imbalances.slice(1).every((x) => x < 1.05), JSON.stringify(threads.imbalances));
    assert.ok(threads.final < 1.05, `final ${threads.final}`);
    // The slowest rank (a quarter of the speed) keeps about a quarter of a fast rank's work.
    assert.ok(threads.queues[7]!.length < threads.queues[0]!.length / 2, JSON.stringify(threads.queues.map((q) => q.length)));
  });
}
