// The flow model's completion heap against a plain sorted list: any mix of sets (add or move),
// deletes and pops keeps (time, id) order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CompletionHeap } from '../../src/sim/network/completion-heap.ts';

type Op = { kind: 'set'; id: number; time: number } | { kind: 'delete'; id: number } | { kind: 'pop' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 40 }), time: fc.integer({ min: 0, max: 20 }) }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constant('pop' as const) }),
);

test('completion heap: same order as a sorted model under sets, moves, deletes and pops', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
      const heap = new CompletionHeap();
      const model = new Map<number, number>();
      const first = (): [number, number] | undefined => [...model.entries()].sort((a, b) => a[1] - b[1] || a[0] - b[0])[0];
      for (const o of ops) {
        if (o.kind === 'set') {
          heap.set(o.id, o.time);
          model.set(o.id, o.time);
        } else if (o.kind === 'delete') {
          heap.delete(o.id);
          model.delete(o.id);
        } else {
          const want = first();
          assert.equal(heap.pop(), want?.[0]);
          if (want) model.delete(want[0]);
        }
        assert.equal(heap.size, model.size);
        assert.equal(heap.peekTime(), first()?.[1] ?? Infinity);
        for (const id of [0, 7, 40]) assert.equal(heap.has(id), model.has(id));
      }
    }),
  );
});
