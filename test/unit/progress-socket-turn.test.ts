/**
 * A rank with TCP peers keeps its event loop turning while it waits (TSMPI_SOCKET_SPIN_US):
 * socket data is read only while the loop turns, and a process that blocks in the kernel takes
 * tens of microseconds to wake. A wait that joins a sleep loop already parked on the doorbell (a
 * ping-pong's every receive after the first) must turn the loop too, for its budget and no longer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allocateControlArea, ControlArea } from '../../src/transport/control-block.ts';
import { ProgressEngine, type ProgressHost } from '../../src/transport/progress.ts';

const description = { operation: 'recv', peer: 1, tag: 0, context: 0 };
const BUDGET_MS = 5;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An engine whose first wait has ended by a socket event, leaving its sleep loop parked. */
async function parkedEngine(socketTurnMicros: number): Promise<{ engine: ProgressEngine; polls: () => number }> {
  let polls = 0;
  const host: ProgressHost = {
    poll: () => false,
    pollFully: () => {
      polls++;
      return false;
    },
  };
  const engine = new ProgressEngine(host, new ControlArea(allocateControlArea(1), 1), 0, 0, { sleepLimitMs: 10_000, socketTurnMicros });
  let first = false;
  const waited = engine.waitUntil(() => first, description);
  await pause(BUDGET_MS * 6);
  // The reply, as a socket's data event delivers it: the loop stays parked.
  first = true;
  engine.progressed();
  await waited;
  return { engine, polls: () => polls };
}

/** Runs `body` on a second wait that joins the parked loop; ends it and the engine whatever happens. */
async function withSecondWait(engine: ProgressEngine, body: () => Promise<void>): Promise<void> {
  let arrived = false;
  const second = engine.waitUntil(() => arrived, description);
  try {
    await body();
  } finally {
    arrived = true;
    engine.progressed();
    await second;
    engine.kick();
    engine.finish();
  }
}

test('a wait that joins a parked sleep loop turns the event loop for its budget, then stops', async () => {
  const { engine, polls } = await parkedEngine(BUDGET_MS * 1000);
  await withSecondWait(engine, async () => {
    const before = polls();
    // Turns of the event loop happen only if nothing blocks it: count the polls they make.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.ok(polls() > before, 'the event loop turns, polling, while the second wait is young');
    await pause(BUDGET_MS * 8);
    // A turn the event loop still owed (a stalled machine) runs now, before the count is taken.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const settled = polls();
    await pause(BUDGET_MS * 6);
    assert.equal(polls(), settled, 'the turning stops once its budget is spent');
  });
});

test('with no socket budget, a wait that joins a parked loop polls nothing until woken', async () => {
  const { engine, polls } = await parkedEngine(0);
  await withSecondWait(engine, async () => {
    const before = polls();
    await pause(BUDGET_MS * 2);
    assert.equal(polls(), before);
  });
});

test('a rank with sockets that polls test() without awaiting is told about its sockets, not about shared threads', () => {
  const engine = new ProgressEngine({ poll: () => false, pollFully: () => false }, new ControlArea(allocateControlArea(1), 1), 0, 0, { socketTurnMicros: BUDGET_MS * 1000 });
  const written: string[] = [];
  const real = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    engine.idlePoll(0, true);
    // Polling for longer than the warning's threshold without the event loop turning once.
    const until = performance.now() + 3_100;
    while (performance.now() < until);
    engine.idlePoll(0, true);
  } finally {
    process.stderr.write = real;
    engine.finish();
  }
  assert.equal(written.length, 1);
  assert.match(written[0]!, /rank 0 has polled with test\(\) for 3 s without awaiting; messages and connections from other processes \(TCP\) arrive only while the program awaits/);
});
