/**
 * sched_yield from JavaScript (src/transport/processor-yield.ts): the call hands the CPU to another
 * runnable thread of the same CPU, and the rank's output carries no warning for it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { processorYield } from '../../src/transport/processor-yield.ts';

const MODULE = fileURLToPath(new URL('../../src/transport/processor-yield.ts', import.meta.url));

test('processorYield gives a call that succeeds, the same one each time', () => {
  const call = processorYield();
  assert.equal(typeof call, 'function');
  assert.equal(call!(), 0);
  assert.equal(processorYield(), call);
});

test('a thread that yields lets another thread of its CPU run before it goes on; spinning does not', { timeout: 60_000 }, () => {
  // One CPU for the whole process: a worker counts in a loop while the main thread looks at the
  // count between its own steps. With a real yield the worker runs between many of the
  // steps (70 of 200 on this kernel's EEVDF scheduler, which at times gives a yielding thread the
  // CPU back at once); without one it runs only when the scheduler's tick preempts the main thread.
  const code = `
    import { Worker } from 'node:worker_threads';
    import { processorYield } from ${JSON.stringify(MODULE)};
    const counter = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker('import("node:worker_threads").then(({ workerData: c }) => { Atomics.store(c, 1, 1); while (Atomics.load(c, 1) === 1) Atomics.add(c, 0, 1); });', { eval: true, workerData: counter });
    while (Atomics.load(counter, 1) === 0) await new Promise((r) => setTimeout(r, 1));
    const step = process.argv.includes('yield') ? processorYield() : () => 0;
    let advanced = 0;
    for (let i = 0; i < 200; i++) {
      const before = Atomics.load(counter, 0);
      step();
      if (Atomics.load(counter, 0) !== before) advanced++;
    }
    Atomics.store(counter, 1, 2);
    await worker.terminate();
    console.log(advanced);
  `;
  const run = (mode: string): { advanced: number; stderr: string } => {
    const child = spawnSync('taskset', ['-c', '0', process.execPath, ...process.execArgv, '--input-type=module', '-e', code, mode], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    return { advanced: Number(child.stdout.trim()), stderr: child.stderr };
  };
  const yielding = run('yield');
  const spinning = run('spin');
  assert.ok(yielding.advanced >= 40, `the worker ran between ${yielding.advanced} of 200 yields`);
  assert.ok(spinning.advanced <= 10, `the worker ran between ${spinning.advanced} of 200 steps without a yield`);
  assert.doesNotMatch(yielding.stderr, /ExperimentalWarning|WASI/, 'no warning in the rank\'s output');
});
