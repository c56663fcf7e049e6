// The simulator's event engine: time order, deterministic ties, cancellation, and the clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Simulation } from '../../src/sim/engine.ts';

test('engine: events run in time order, ties in insertion order', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }), (times) => {
      const sim = new Simulation();
      const ran: [number, number][] = [];
      times.forEach((t, i) => sim.at(t, () => ran.push([sim.now(), i])));
      sim.run();
      const expected = times.map((t, i) => [t, i] as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      assert.deepStrictEqual(ran, expected);
      assert.equal(sim.processed, times.length);
    }),
  );
});

test('engine: events scheduled by events, cancellation, runUntil and the clock', () => {
  const sim = new Simulation();
  const log: string[] = [];
  sim.schedule(1, () => {
    log.push(`a@${sim.now()}`);
    sim.schedule(0.5, () => log.push(`c@${sim.now()}`));
  });
  const b = sim.schedule(1.2, () => log.push('b'));
  sim.schedule(3, () => log.push(`d@${sim.now()}`));
  sim.cancel(b);
  sim.runUntil(2);
  assert.deepStrictEqual(log, ['a@1', 'c@1.5']);
  assert.equal(sim.now(), 1.5, 'runUntil does not move the clock past the last event it ran');
  assert.equal(sim.peekTime(), 3);
  sim.advanceTo(2.5);
  assert.equal(sim.now(), 2.5);
  sim.at(1, () => log.push(`late@${sim.now()}`)); // the past is clamped to now
  sim.run();
  assert.deepStrictEqual(log, ['a@1', 'c@1.5', 'late@2.5', 'd@3']);
  assert.equal(sim.step(), false);
});
