// The process's barrier in the control area (control-block.ts): over generations of arrivals in
// any order, the last to arrive, and only it, releases the others; nobody is released before
// every rank entered; a hang report names a rank that has not entered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocateControlArea, ControlArea } from '../../src/transport/control-block.ts';

test('the barrier releases a generation exactly when its last rank enters, in any arrival order', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }).chain((slots) => fc.tuple(fc.constant(slots), fc.array(fc.shuffledSubarray([...Array(slots).keys()], { minLength: slots, maxLength: slots }), { minLength: 1, maxLength: 6 }))),
      ([slots, generations]) => {
        const sab = allocateControlArea(slots);
        // Each rank has its own view of the area, as each rank thread does.
        const views = Array.from({ length: slots }, () => new ControlArea(sab, slots));
        for (const order of generations) {
          const waiting: number[] = [];
          const entered = new Set<number>();
          order.forEach((slot, i) => {
            const generation = views[slot]!.enterBarrier(slot, slots);
            entered.add(slot);
            if (i < slots - 1) {
              assert.notEqual(generation, -1, `slot ${slot} arrived ${i + 1}th of ${slots} and was told it was last`);
              waiting.push(generation);
              // Nobody is released, and the report names a rank not there yet.
              for (const g of waiting) assert.equal(views[slot]!.barrierPassed(g), false);
              const missing = views[0]!.missingFromBarrier(generation);
              assert.ok(missing >= 0 && !entered.has(missing), `missing ${missing} has entered`);
            } else {
              assert.equal(generation, -1, 'the last arrival releases the others');
              for (const g of waiting) assert.equal(views[(slot + 1) % slots]!.barrierPassed(g), true);
            }
          });
        }
      },
    ),
  );
});

test('the barrier wakes the ranks that sleep, and only those', () => {
  const slots = 3;
  const sab = allocateControlArea(slots);
  const view = new ControlArea(sab, slots);
  view.setSleeping(1, true);
  const before = [0, 1, 2].map((s) => view.doorbell(s));
  view.enterBarrier(0, slots);
  view.enterBarrier(1, slots);
  assert.equal(view.enterBarrier(2, slots), -1);
  assert.deepEqual([0, 1, 2].map((s) => view.doorbell(s) - before[s]!), [0, 1, 0]);
});
