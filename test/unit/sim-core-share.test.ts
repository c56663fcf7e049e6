/**
 * Ranks of a host that compute at once share its cores (SimWorld.fixSegmentShare). A segment
 * follows its share as the ranks that ran before it leave the cores: when nothing else is under
 * way, a rank that stopped can only be woken by the running segment, so one that compiles for
 * milliseconds while the others wait has a core to itself once their microseconds are over.
 * While a frame is in flight or a timer is set, the others may compute again at any time: they
 * count as busy for the whole segment, as they always did.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Simulation } from '../../src/sim/engine.ts';
import { DelayModel } from '../../src/sim/network/model.ts';
import { SimWorld } from '../../src/sim/world.ts';

const MS = 1e-3;

function declaredWorld(ranks: number, cores: number, sim = new Simulation()): SimWorld {
  return new SimWorld({
    sim,
    network: new DelayModel(sim, { latency: () => 0, bandwidth: () => 1e9 }),
    hostOf: new Array<number>(ranks).fill(0),
    coresOf: [cores],
    computeMode: 'declared',
    cpuScale: () => 1,
    flopsTime: () => 0,
  });
}

/** Runs one segment of `rank` from `start` that computes the given pieces (seconds at full speed); returns its end. */
function segment(world: SimWorld, rank: number, start: number, ...pieces: number[]): number {
  const r = world.ranks[rank]!;
  world.beginSegment(r, start);
  for (const piece of pieces) world.declareCompute(r, piece);
  return world.endSegment(r);
}

const close = (actual: number, expected: number, what: string): void => {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual * 1e3} ms, expected ${expected * 1e3} ms`);
};

test('a segment run after the others released with it speeds up as each of them leaves the cores', () => {
  const world = declaredWorld(4, 2);
  // Three ranks released at 0 compute 1 ms each, run one after the other by the simulator.
  close(segment(world, 1, 0, MS), MS, 'the first, alone');
  close(segment(world, 2, 0, MS), MS, 'the second, beside the first: two ranks on two cores');
  // Three on two cores (1.5x) until the first two end at 1 ms (2/3 ms done), then alone.
  close(segment(world, 3, 0, MS), MS + MS / 3, 'the third');
  // Four on two cores (2x) until 1 ms (0.5 ms done), two until 4/3 ms (1/3 more), then alone.
  const end = segment(world, 0, 0, MS);
  close(end, 1.5 * MS, 'the fourth');
  close(world.ranks[0]!.stats.compute, 1.5 * MS, "the fourth's compute");
});

test('work split into pieces ends where the same work in one piece ends', () => {
  const whole = declaredWorld(4, 2);
  const split = declaredWorld(4, 2);
  for (const world of [whole, split]) {
    segment(world, 1, 0, MS);
    segment(world, 2, 0, MS);
    segment(world, 3, 0, MS);
  }
  const one = segment(whole, 0, 0, MS);
  const pieces = segment(split, 0, 0, 0.25 * MS, 0.25 * MS, 0.1 * MS, 0.4 * MS);
  close(pieces, one, 'four pieces');
  close(split.ranks[0]!.stats.compute, one, 'their compute');
});

test('with a frame in flight the others may compute again: they share the cores for the whole segment', () => {
  const sim = new Simulation();
  const world = declaredWorld(4, 2, sim);
  segment(world, 1, 0, MS);
  segment(world, 2, 0, MS);
  segment(world, 3, 0, MS);
  sim.at(10 * MS, () => {});
  close(segment(world, 0, 0, MS), 2 * MS, 'four ranks on two cores throughout');
});

test('a rank due to resume during the segment shares the core again from then on', () => {
  const world = declaredWorld(2, 1);
  close(segment(world, 1, 0, MS), MS, 'rank 1, alone');
  world.wake(world.ranks[1]!, 1.2 * MS);
  // Two on one core until 1 ms (0.5 ms done), alone until 1.2 ms (0.2 more), then two again.
  close(segment(world, 0, 0, MS), 1.8 * MS, 'rank 0');
});

test('a rank idle when the segment starts but due to resume during it shares the core from then on', () => {
  const world = declaredWorld(2, 1);
  world.wake(world.ranks[1]!, 0.5 * MS);
  // Alone until 0.5 ms (0.5 ms done), then two on one core: the other 0.5 ms takes 1 ms.
  close(segment(world, 0, 0, MS), 1.5 * MS, 'rank 0');
});

test('ranks that fit the cores never slow each other', () => {
  const world = declaredWorld(2, 2);
  segment(world, 1, 0, MS);
  close(segment(world, 0, 0, MS), MS, 'two ranks on two cores');
});
