/**
 * A simulated rank's segment, found over one turn of the event loop after its code stopped, ends
 * when its code stopped: the runner's turn is not the rank's compute. It ends a turn before it was
 * found, or at the rank's last wait in tsmpi when that came later, and never after it was found.
 * The simulated link's work inside a segment is not the rank's compute either.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Simulation } from '../../src/sim/engine.ts';
import { DelayModel } from '../../src/sim/network/model.ts';
import { SimWorld } from '../../src/sim/world.ts';
import { SimFabric, SimRailSource } from '../../src/sim/sim-transport.ts';
import { FRAME_HEADER_WORDS } from '../../src/transport/link.ts';

function measuredWorld(sim = new Simulation()): SimWorld {
  return new SimWorld({ sim, network: new DelayModel(sim, { latency: () => 0, bandwidth: () => 1e9 }), hostOf: [0], computeMode: 'measured', cpuScale: () => 1, flopsTime: () => 0 });
}

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Begins rank 0's segment at virtual 0; returns real times read just before and after. */
function begin(world: SimWorld): { before: number; after: number } {
  const before = performance.now();
  world.beginSegment(world.ranks[0]!, 0);
  return { before, after: performance.now() };
}

test('a segment found a turn late ends a turn before it was found, not at its earlier last wait', () => {
  const world = measuredWorld();
  const rank = world.ranks[0]!;
  const started = begin(world);
  busy(3);
  rank.lastWaitReal = performance.now();
  busy(6);
  const before = performance.now();
  const end = world.endSegmentAfterTurn(rank, 2);
  const after = performance.now();
  assert.ok(end >= (before - 2 - started.after) / 1000 && end <= (after - 2 - started.before) / 1000, `ended at ${end} s`);
  assert.equal(rank.stats.compute, end, 'all of it counts as compute');
});

test('a segment whose last wait came later than a turn before ends at that wait', () => {
  const world = measuredWorld();
  const rank = world.ranks[0]!;
  const started = begin(world);
  busy(3);
  const waited = performance.now();
  rank.lastWaitReal = waited;
  busy(1);
  const end = world.endSegmentAfterTurn(rank, 50);
  assert.ok(end >= (waited - started.after) / 1000 && end <= (waited - started.before) / 1000, `ended at ${end} s, waited at ${(waited - started.before) / 1000} s`);
});

test("a segment ends a turn before the turn came round, not before the runner got to it: the runner's own work after that is not the rank's", () => {
  const world = measuredWorld();
  const rank = world.ranks[0]!;
  const started = begin(world);
  busy(3);
  rank.lastWaitReal = performance.now();
  busy(4);
  const turned = performance.now();
  // The runner, after its turn came round, compiles or collects for 20 ms before it ends the segment.
  busy(20);
  const end = world.endSegmentAfterTurn(rank, 2, turned);
  assert.ok(end >= (turned - 2 - started.after) / 1000 && end <= (turned - 2 - started.before) / 1000, `ended at ${end} s, the turn came at ${(turned - started.before) / 1000} s`);
  assert.equal(rank.stats.compute, end);
  // A turn time later than now (a clock read out of order) never ends the segment after it was found.
  const again = measuredWorld();
  const r = again.ranks[0]!;
  const s = begin(again);
  busy(2);
  const before = performance.now();
  const late = again.endSegmentAfterTurn(r, 0, before + 1e6);
  assert.ok(late <= (performance.now() - s.before) / 1000, `ended at ${late} s`);
});

test('a turn longer than the segment never ends it before it began, nor a turn of 0 after it was found', () => {
  const world = measuredWorld();
  const rank = world.ranks[0]!;
  begin(world);
  busy(1);
  assert.equal(world.endSegmentAfterTurn(rank, 1e6), 0);
  const again = measuredWorld();
  const r = again.ranks[0]!;
  const started = begin(again);
  busy(2);
  const before = performance.now();
  const end = again.endSegmentAfterTurn(r, 0);
  assert.ok(end >= (before - started.after) / 1000, `ended at ${end} s`);
});

test("what the runner does between resuming a rank and yielding to it is not the rank's compute", () => {
  const world = measuredWorld();
  const rank = world.ranks[0]!;
  begin(world);
  busy(6);
  const restarted = performance.now();
  world.restartMeter(rank);
  busy(2);
  const end = world.endSegment(rank);
  const after = performance.now();
  // From the restart on: the 6 ms before it are not counted.
  assert.ok(end >= 0.002 && end <= (after - restarted) / 1000, `ended at ${end} s`);
});

test('a meter restarted inside a call stays stopped until the call returns', () => {
  const world = measuredWorld();
  const rank = world.ranks[0]!;
  begin(world);
  assert.equal(world.enterCall(), rank);
  busy(4);
  world.restartMeter(rank);
  busy(4);
  const left = performance.now();
  world.leaveCall(rank);
  busy(2);
  const end = world.endSegment(rank);
  const after = performance.now();
  assert.ok(end >= 0.002 && end <= (after - left) / 1000, `ended at ${end} s: only what followed the call counts`);
});

test("a simulated link's taking a frame is the simulator's work, not the sending rank's compute", () => {
  const sim = new Simulation();
  const world = new SimWorld({ sim, network: new DelayModel(sim, { latency: () => 0, bandwidth: () => 1e9 }), hostOf: [0, 0], computeMode: 'measured', cpuScale: () => 1, flopsTime: () => 0 });
  const events = { frame: () => {}, arrived: () => {}, drain: () => {}, closed: () => {} };
  const link = new SimRailSource(new SimFabric(world), 0, 0, 1 << 30).createLink(1, events);
  // A payload the simulated link copies (it keeps eager payloads while they travel): milliseconds.
  const payload = new Uint8Array(64 << 20);
  const rank = world.ranks[0]!;
  const started = begin(world);
  busy(2);
  const sendStart = performance.now();
  assert.equal(link.trySend(new Int32Array(FRAME_HEADER_WORDS), payload, 0, payload.length), true);
  const sending = performance.now() - sendStart;
  busy(1);
  const endedBefore = performance.now();
  const end = world.endSegment(rank);
  const endedAfter = performance.now();
  assert.ok(sending > 1, `the copy took ${sending} ms: too quick to tell`);
  // The whole segment less the send, give or take the calls around the pause.
  assert.ok(end <= (endedAfter - started.before - sending + 0.5) / 1000, `compute ${end * 1000} ms, segment ${endedAfter - started.before} ms, the send ${sending} ms`);
  assert.ok(end >= (endedBefore - started.after - sending) / 1000, `compute ${end * 1000} ms`);
  assert.equal(rank.callDepth, 0, 'the meter runs again after the send');
});

test("network events run inside a segment stop the rank's clock: what they stamp on it lies before its next reading", () => {
  const sim = new Simulation();
  const world = measuredWorld(sim);
  const rank = world.ranks[0]!;
  const started = begin(world);
  busy(1);
  // A delivery on arrival (a receive matched, stamped on the rank's clock) that takes real time.
  let stamped = Number.NaN;
  let eventStarted = Number.NaN;
  sim.at(0, () => {
    eventStarted = performance.now();
    busy(5);
    stamped = world.rankNow(rank);
  });
  world.advanceNetwork(world.rankNow(rank));
  const next = world.rankNow(rank);
  assert.ok(stamped <= next, `stamped at ${stamped * 1e6} us, the clock read ${next * 1e6} us after`);
  // The meter stopped before the event began: none of the event's 5 ms is on the stamp.
  assert.ok(stamped <= (eventStarted - started.before) / 1000, `the stamp ${stamped * 1e6} us counts the event's time`);
  busy(1);
  // Nor is the events' time the rank's compute.
  const end = world.endSegment(rank);
  assert.ok(end <= (performance.now() - started.before - 5) / 1000, `ended at ${end * 1e6} us`);
});
