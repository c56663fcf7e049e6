/**
 * A received value built outside the receiving rank's metered time (a frame handed over by a
 * network event) is charged to that rank as computing, scaled as its compute is; one built while
 * its meter runs is not charged twice; under declared compute nothing is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Simulation } from '../../src/sim/engine.ts';
import { DelayModel } from '../../src/sim/network/model.ts';
import { SimWorld } from '../../src/sim/world.ts';

function world(computeMode: 'measured' | 'declared' = 'measured'): SimWorld {
  const sim = new Simulation();
  return new SimWorld({ sim, network: new DelayModel(sim, { latency: () => 0, bandwidth: () => 1e9 }), hostOf: [0, 0], computeMode, cpuScale: () => 2, flopsTime: () => 0 });
}

test('a rank that waits is charged the building at its host\'s scale, after what it was due to do', () => {
  const w = world();
  const rank = w.ranks[1]!;
  w.chargeBuilding(rank, 0.001);
  assert.equal(rank.stats.compute, 0.002);
  assert.equal(rank.readyAt, 0.002);
  w.chargeBuilding(rank, 0.0005);
  assert.equal(rank.readyAt, 0.003, 'one after the other');
});

test('a rank whose meter runs is not charged again; inside its own network events it is', () => {
  const w = world();
  const rank = w.ranks[0]!;
  w.beginSegment(rank, 0);
  w.chargeBuilding(rank, 0.001);
  assert.equal(rank.stats.compute, 0, 'its meter counts it');
  // Its clock's network events run with the meter stopped: a value built there is charged.
  w.sim.at(0, () => w.chargeBuilding(rank, 0.001));
  w.advanceNetwork(0);
  const end = w.endSegment(rank);
  assert.ok(end >= 0.002, `its segment holds the building: ended at ${end} s`);
  assert.ok(rank.stats.compute >= 0.002);
});

test('another rank running does not stop the charge to the receiver', () => {
  const w = world();
  w.beginSegment(w.ranks[0]!, 0);
  w.chargeBuilding(w.ranks[1]!, 0.001);
  assert.equal(w.ranks[1]!.stats.compute, 0.002);
  assert.equal(w.ranks[0]!.stats.compute, 0);
});

test('declared compute charges no building', () => {
  const w = world('declared');
  w.chargeBuilding(w.ranks[1]!, 0.001);
  assert.equal(w.ranks[1]!.stats.compute, 0);
  assert.equal(w.ranks[1]!.readyAt, 0);
});
