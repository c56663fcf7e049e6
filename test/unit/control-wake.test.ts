// The doorbell protocol between a sleeping rank and the ranks that write to it
// (src/transport/control-block.ts): one ring per sleep, and no sleep missed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { allocateControlArea, ControlArea } from '../../src/transport/control-block.ts';

test('doorbell: a rank that is awake is not rung; a sleeping one is rung once per sleep, however many write to it', () => {
  const control = new ControlArea(allocateControlArea(2), 2);
  const bell = control.doorbell(1);
  control.wake(1);
  assert.equal(control.doorbell(1), bell, 'awake: nothing rung');
  assert.equal(control.wokeSleeper, false);
  control.setSleeping(1, true);
  for (let i = 0; i < 5; i++) control.wake(1);
  assert.equal(control.doorbell(1), bell + 1, 'a burst into a sleeping rank rings once');
  assert.equal(control.wokeSleeper, true);
  control.setSleeping(1, false);
  control.wake(1);
  assert.equal(control.doorbell(1), bell + 1, 'awake again: nothing rung');
  control.setSleeping(1, true);
  control.wake(1);
  control.wake(1);
  assert.equal(control.doorbell(1), bell + 2, 'the next sleep is rung once more');
});

test('doorbell: a sleeper woken by bursts of writers never sleeps past a published item (2,000 items)', { timeout: 60_000 }, async () => {
  // Slot 1 sleeps as the progress engine does: announce the sleep, load the doorbell, look at
  // what was published, then wait on the doorbell. The main thread publishes items in bursts,
  // calling wake() after each. A lost ring would leave the sleeper waiting out its timeout.
  const EPISODES = 2000;
  const sab = allocateControlArea(2);
  const published = new Int32Array(new SharedArrayBuffer(8));
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    const { sab, published, episodes, doorbell } = workerData;
    const i32 = new Int32Array(sab);
    // The documented layout: SLEEPING is word 16 of the block whose word 0 is DOORBELL.
    const base = doorbell;
    let seen = 0, timeouts = 0;
    while (seen < episodes) {
      Atomics.store(i32, base + 16, 1);
      const bell = Atomics.load(i32, base);
      const now = Atomics.load(published, 0);
      if (now > seen) { seen = now; Atomics.store(i32, base + 16, 0); Atomics.store(published, 1, seen); continue; }
      // A lost ring leaves something published that no ring announced: count only that, so a
      // writer descheduled for long (a busy machine) is not taken for one.
      if (Atomics.wait(i32, base, bell, 5000) === 'timed-out' && Atomics.load(published, 0) > seen) timeouts++;
      Atomics.store(i32, base + 16, 0);
    }
    parentPort.postMessage({ timeouts });
  `;
  const control = new ControlArea(sab, 2);
  const worker = new Worker(source, { eval: true, workerData: { sab, published, episodes: EPISODES, doorbell: control.doorbellIndex(1) } });
  const result = new Promise<{ timeouts: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  let item = 0;
  while (item < EPISODES) {
    // A burst of 1-3 items, each followed by a wake, as frames into a ring are.
    const burst = 1 + (item % 3);
    for (let k = 0; k < burst && item < EPISODES; k++) {
      Atomics.store(published, 0, ++item);
      control.wake(1);
    }
    // Let the sleeper catch up now and then, so that it goes back to sleep between bursts.
    if (item % 7 === 0) while (Atomics.load(published, 1) < item) Atomics.wait(published, 1, Atomics.load(published, 1), 1);
  }
  const { timeouts } = await result;
  await worker.terminate();
  assert.equal(timeouts, 0, 'the sleeper waited out its timeout: a ring was lost');
});
