// The batch planners on random batches: every message in exactly one transfer, a transfer's items
// all to its destination and in batch order, each destination's messages in batch order across
// its transfers, large messages alone; the paper's ordering and window growth; the pack format.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { pack, unpack } from '../../src/batch/pack.ts';
import { encodeValue } from '../../src/comm/codec.ts';
import { planBatch, reorderDestinations } from '../../src/policy/batch/planners.ts';
import { PLANNER_NAMES, type BatchMessage } from '../../src/policy/batch/types.ts';

const batch = fc.integer({ min: 1, max: 12 }).chain((size) =>
  fc.record({
    size: fc.constant(size),
    rank: fc.integer({ min: 0, max: size - 1 }),
    nodes: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: size, maxLength: size }),
    messages: fc.array(fc.record({ dest: fc.integer({ min: 0, max: size - 1 }), bytes: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 400_000 })) }), { maxLength: 80 }),
    inBytes: fc.array(fc.integer({ min: 0, max: 1e6 }), { minLength: size, maxLength: size }),
    inDegree: fc.array(fc.integer({ min: 0, max: size }), { minLength: size, maxLength: size }),
  }),
);

test('planners: every message exactly once, per-destination order kept, big messages alone', () => {
  fc.assert(
    fc.property(batch, fc.constantFrom(...PLANNER_NAMES), (b, name) => {
      const plan = planBatch(name, { rank: b.rank, size: b.size, messages: b.messages, nodeOf: b.nodes, inBytes: b.inBytes, inDegree: b.inDegree });
      const seen = new Array<number>(b.messages.length).fill(0);
      const lastOf = new Map<number, number>();
      for (const t of plan) {
        assert.ok(t.items.length > 0);
        if (!t.packed) assert.equal(t.items.length, 1);
        for (const i of t.items) {
          seen[i]!++;
          assert.equal(b.messages[i]!.dest, t.dest);
          assert.ok((lastOf.get(t.dest) ?? -1) < i, `destination ${t.dest}: message ${i} after ${lastOf.get(t.dest)}`);
          lastOf.set(t.dest, i);
          if (b.messages[i]!.bytes >= 256 * 1024) assert.equal(t.items.length, 1, 'a large message travels alone');
        }
      }
      assert.ok(seen.every((n) => n === 1), `coverage ${seen.join(',')}`);
      if (name === 'direct') assert.deepEqual(plan.map((t) => t.items[0]), b.messages.map((_, i) => i));
    }),
    { numRuns: 500 },
  );
});

test('reorder: node distance ascending, then pair weight descending', () => {
  const messages: BatchMessage[] = [
    { dest: 3, bytes: 10 },
    { dest: 1, bytes: 10 },
    { dest: 2, bytes: 10 },
    { dest: 4, bytes: 10 },
  ];
  const groups = new Map<number, number[]>([[3, [0]], [1, [1]], [2, [2]], [4, [3]]]);
  // rank 0 on node 0; ranks 1, 2 on node 1 (distance 1); rank 3 on node 0 (distance 0); rank 4 on node 3.
  const order = reorderDestinations({ rank: 0, size: 5, messages, nodeOf: [0, 1, 1, 0, 3], inBytes: [0, 100, 900, 0, 0] }, groups);
  assert.deepEqual(order, [3, 2, 1, 4]);
});

test('pipelined: windows of 1, alpha, alpha^2 ... messages with alpha = 1.5 + log2(max(out, in))', () => {
  const messages = Array.from({ length: 40 }, () => ({ dest: 1, bytes: 8 }));
  // out-degree 1, in-degree of rank 1 is 4: alpha = 3.5 -> windows 1, 3, 12, 24(rest: 40 - 16)
  const plan = planBatch('pipelined', { rank: 0, size: 2, messages, nodeOf: [0, 0], inDegree: [0, 4] });
  assert.deepEqual(plan.map((t) => t.items.length), [1, 3, 12, 24]);
  const aggregate = planBatch('aggregate', { rank: 0, size: 2, messages, nodeOf: [0, 0] }, { bufferBytes: 100 });
  // 8 bytes + 9 of overhead per item: 5 items per 100-byte buffer.
  assert.deepEqual(aggregate.map((t) => t.items.length), [5, 5, 5, 5, 5, 5, 5, 5]);
});

test('adaptive: the window follows sqrt(M o B)', () => {
  const messages = Array.from({ length: 1000 }, () => ({ dest: 1, bytes: 91 }));
  // M = 1000 x 100 bytes; o = 1e-4 s, B = 1e8 B/s: W = sqrt(1e5 * 1e4) = 31623 bytes = 316 items.
  const plan = planBatch('adaptive', { rank: 0, size: 2, messages, nodeOf: [0, 0], costs: { perMessage: 1e-4, bandwidth: 1e8 } });
  assert.deepEqual(plan.map((t) => t.items.length), [316, 316, 316, 52]);
});

test('pack format: any sequence of tagged payloads round-trips', () => {
  const value = fc.oneof(fc.string(), fc.double({ noNaN: true }), fc.uint8Array({ maxLength: 50 }), fc.float64Array({ maxLength: 10, noNaN: true }), fc.record({ a: fc.integer(), b: fc.array(fc.string()) }, { noNullPrototype: true }));
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 0x3ffffffe }), value), { maxLength: 30 }), (items) => {
      const buffer = pack(items.map(([tag, v]) => ({ tag, encoded: encodeValue(v, 0, 'test') })));
      const out: [number, unknown][] = [];
      unpack(buffer, (tag, v) => out.push([tag, v]));
      assert.deepEqual(out, items);
    }),
  );
});
