/**
 * A rank's own sleep() is not held up by the progress engine: a background wait (a conveyor's
 * posted receive) may sleep in blocking slices of the thread, but not while the rank's code has a
 * sleep() pending, which would then last a whole slice (the conveyor's advance() did, per call).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allocateControlArea, ControlArea } from '../../src/transport/control-block.ts';
import { ProgressEngine, type ProgressHost } from '../../src/transport/progress.ts';

const SLICE_MS = 20;
const description = { operation: 'recv', peer: 1, tag: 0, context: 0 };

/** Counts the blocking waits on `i32` (Atomics.wait) from the moment it is installed. */
function blockingWaits(i32: Int32Array): { count: number; restore(): void } {
  const real = Atomics.wait;
  const spy = {
    count: 0,
    restore: () => {
      Atomics.wait = real;
    },
  };
  Atomics.wait = ((array: Int32Array, index: number, value: number, timeout?: number) => {
    if (array === i32) spy.count++;
    return real(array, index, value, timeout);
  }) as typeof Atomics.wait;
  return spy;
}

/** An engine that sleeps in blocking slices, with a wait parked in the background; `progress()` makes its next poll find work. */
async function engineWithBackgroundWait(): Promise<{ engine: ProgressEngine; i32: Int32Array; progress(): void; end(): Promise<void> }> {
  let work = 0;
  const host: ProgressHost = {
    poll: () => false,
    pollFully: () => (work > 0 ? (work--, true) : false),
  };
  const control = new ControlArea(allocateControlArea(1), 1);
  const engine = new ProgressEngine(host, control, 0, 0, { sleepLimitMs: 50, syncSleepMs: SLICE_MS });
  let done = false;
  // The first slice blocks at once: let it time out before the test begins.
  const background = engine.waitUntil(() => done, description);
  await new Promise<void>((resolve) => setImmediate(resolve));
  return {
    engine,
    i32: control.i32,
    progress: () => {
      work++;
      engine.kick();
    },
    end: async () => {
      done = true;
      engine.kick();
      await background;
      engine.finish();
    },
  };
}

test("the sleep loop does not block the thread while the rank's sleep(0) is pending", async () => {
  const { engine, i32, progress, end } = await engineWithBackgroundWait();
  const spy = blockingWaits(i32);
  try {
    for (let i = 0; i < 3; i++) {
      // Work found re-arms the loop's blocking slice; while the rank sleeps, it must not block.
      progress();
      await engine.sleep(0.03);
    }
  } finally {
    spy.restore();
    await end();
  }
  assert.equal(spy.count, 0, 'no blocking wait while a sleep() was pending');
});

test('without a sleep() pending, the same loop does block in a slice once work re-arms it (the case above is not vacuous)', async () => {
  const { i32, progress, end } = await engineWithBackgroundWait();
  const spy = blockingWaits(i32);
  try {
    progress();
    await new Promise<void>((resolve) => setTimeout(resolve, 30));
  } finally {
    spy.restore();
    await end();
  }
  assert.ok(spy.count >= 1, `blocking waits: ${spy.count}`);
});

test('a wait that nothing ends sleeps in a few blocking slices (the event loop turning between them), then asynchronously', async () => {
  const host: ProgressHost = { poll: () => false, pollFully: () => false };
  const control = new ControlArea(allocateControlArea(1), 1);
  const spy = blockingWaits(control.i32);
  const engine = new ProgressEngine(host, control, 0, 0, { sleepLimitMs: 50, syncSleepMs: 5 });
  let done = false;
  let turns = 0;
  const counting = setInterval(() => turns++, 1);
  try {
    const waiting = engine.waitUntil(() => done, description);
    // Slices of 5 ms: wait until 4 have passed however slow the machine, then well past them.
    for (let waited = 0; spy.count < 4 && waited < 5000; waited += 10) await new Promise<void>((resolve) => setTimeout(resolve, 10));
    await new Promise<void>((resolve) => setTimeout(resolve, 100));
    assert.equal(spy.count, 4, 'four blocking slices, then no more');
    assert.ok(turns >= 4, `the event loop turned between and after them (${turns} timer ticks)`);
    done = true;
    engine.kick();
    await waiting;
  } finally {
    clearInterval(counting);
    spy.restore();
    engine.finish();
  }
});

test('a wait that the last look before a sleep completes goes on at once, even while a send keeps the loop alive', async () => {
  // The loop's first poll finds nothing; its last look before sleeping completes the wait. A send
  // still on its way (retain) keeps the loop going: it must let the program go on from the wait
  // before it sleeps, not block the thread for a slice with the wait's continuation queued.
  let polls = 0;
  let done = false;
  const host: ProgressHost = {
    poll: () => false,
    pollFully: () => {
      polls++;
      if (polls !== 2) return false;
      done = true;
      return true;
    },
  };
  const control = new ControlArea(allocateControlArea(1), 1);
  const engine = new ProgressEngine(host, control, 0, 0, { sleepLimitMs: 50, syncSleepMs: 1000 });
  engine.retain();
  const spy = blockingWaits(control.i32);
  let blockedBeforeResult: number;
  try {
    await engine.waitUntil(() => done, description);
    blockedBeforeResult = spy.count;
  } finally {
    spy.restore();
    engine.release();
    engine.kick();
  }
  await new Promise<void>((resolve) => setImmediate(resolve));
  engine.finish();
  assert.equal(polls >= 2, true, 'the wait ended at the last look before a sleep');
  assert.equal(blockedBeforeResult, 0, 'no blocking sleep between the wait ending and the program going on');
});

test('a ring that brought nothing does not make the sleep deaf to the next sender (no wait ends by timeout)', async () => {
  // A broadcast or a freed slot rings every sleeping rank, with nothing for most of them: the ring
  // leaves SLEEPING at 2, and senders that see 2 do not ring again. The engine must look again
  // rather than sleep on the doorbell count read after that ring.
  const control = new ControlArea(allocateControlArea(2), 2);
  const slot = 0;
  let published = false;
  let spurious = 0;
  // Between the engine's announcement of its sleep and its read of the doorbell, another rank
  // rings it for nothing, once.
  const readDoorbell = control.doorbell.bind(control);
  control.doorbell = (s: number): number => {
    if (spurious === 0 && Atomics.load(control.i32, control.doorbellIndex(s) + 16) === 1) {
      spurious++;
      control.wake(s);
    }
    return readDoorbell(s);
  };
  const host: ProgressHost = { poll: () => false, pollFully: () => false };
  const engine = new ProgressEngine(host, control, slot, 0, { sleepLimitMs: 3000 });
  const waited = engine.waitUntil(() => published, description);
  // The sender publishes a little later and rings as every sender does (skipping a rung sleeper).
  setTimeout(() => {
    published = true;
    control.wake(slot);
  }, 30);
  await waited;
  engine.finish();
  assert.equal(spurious, 1, 'the spurious ring happened while the engine had announced its sleep');
  assert.equal(engine.timeoutWakeups, 0, 'the wait ended on the sender\'s ring, not on the sleep limit');
});
