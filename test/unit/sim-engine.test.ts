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

test('engine: cancelled events never run, cancelling a fired or cancelled event does nothing', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.boolean(), fc.boolean()), { maxLength: 400 }),
      (specs) => {
        const sim = new Simulation();
        const ran: number[] = [];
        const handles = specs.map(([t], i) => sim.at(t, () => ran.push(i)));
        // Cancel some before the run, twice for good measure.
        specs.forEach(([, cancel], i) => {
          if (cancel) {
            sim.cancel(handles[i]!);
            sim.cancel(handles[i]!);
          }
        });
        sim.runUntil(25);
        // Cancel others after they may have fired: those that fired stay fired, the rest never run.
        const late = new Set<number>();
        specs.forEach(([t, cancel, lateCancel], i) => {
          if (!cancel && lateCancel) {
            sim.cancel(handles[i]!);
            if (t > 25) late.add(i);
          }
        });
        sim.run();
        const expected = specs
          .map(([t, cancel], i) => ({ t, i, cancel }))
          .filter(({ i, cancel }) => !cancel && !late.has(i))
          .sort((a, b) => a.t - b.t || a.i - b.i)
          .map(({ i }) => i);
        assert.deepStrictEqual(ran, expected);
      },
    ),
  );
});

test('engine: thousands of cancels of fired timers do not pile up', () => {
  const sim = new Simulation();
  const handles = Array.from({ length: 5000 }, (_, i) => sim.at(i, () => {}));
  sim.run();
  for (const h of handles) sim.cancel(h);
  const live = sim.at(sim.now() + 1, () => {});
  assert.equal(sim.pending, 1);
  sim.cancel(live);
  assert.equal(sim.step(), false);
});
