// The byte views a rank remembers for the small typed arrays it passes again and again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ByteViews } from '../../src/comm/byte-views.ts';

test('byte views: the same small array gives the same view, over the same memory', () => {
  const views = new ByteViews();
  const values = new Float64Array([1.5, -2]);
  const bytes = views.of(values);
  assert.equal(views.of(values), bytes);
  assert.equal(bytes.byteLength, 16);
  assert.equal(bytes.buffer, values.buffer);
  bytes.set(new Uint8Array(new Float64Array([7]).buffer), 8);
  assert.equal(values[1], 7);
  // A subarray is another array: its own view, at its own offset.
  const tail = views.of(values.subarray(1));
  assert.equal(tail.byteOffset, 8);
  assert.equal(tail.byteLength, 8);
  const plain = new Uint8Array(3);
  assert.equal(views.of(plain), plain);
});

test('byte views: a length-tracking view of a resized buffer gets a view of its new length', () => {
  const views = new ByteViews();
  // Resizable buffers are in Node 20 but not in the compiler's ES2022 library.
  const Resizable = ArrayBuffer as unknown as new (bytes: number, options: { maxByteLength: number }) => ArrayBuffer & { resize(bytes: number): void };
  const buffer = new Resizable(16, { maxByteLength: 64 });
  const tracking = new Int32Array(buffer);
  assert.equal(views.of(tracking).byteLength, 16);
  buffer.resize(32);
  assert.equal(views.of(tracking).byteLength, 32);
  buffer.resize(8);
  assert.equal(views.of(tracking).byteLength, 8);
});

test('byte views: views over large buffers are not kept', () => {
  const views = new ByteViews();
  const large = new Float64Array(16 * 1024);
  const first = views.of(large);
  assert.notEqual(views.of(large), first);
  assert.equal(views.of(large).byteLength, large.byteLength);
});

test('byte views: any sequence of arrays gets views of exactly their bytes (property)', () => {
  const pool = Array.from({ length: 7 }, (_, i) => (i % 2 === 0 ? new Float32Array(i + 1) : new Uint16Array(2 * i + 1).subarray(1)));
  fc.assert(
    fc.property(fc.array(fc.nat({ max: pool.length - 1 }), { maxLength: 40 }), (picks) => {
      const views = new ByteViews();
      for (const pick of picks) {
        const array = pool[pick]!;
        const bytes = views.of(array);
        assert.equal(bytes.buffer, array.buffer);
        assert.equal(bytes.byteOffset, array.byteOffset);
        assert.equal(bytes.byteLength, array.byteLength);
      }
    }),
  );
});

test('byte views: ranges are the bytes asked for, the same view when asked again (property)', () => {
  const arrays = [new Float64Array(8), new Int32Array(6)];
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat({ max: 1 }), fc.nat({ max: 24 }), fc.nat({ max: 24 })), { maxLength: 40 }), (asks) => {
      const views = new ByteViews();
      for (const [which, a, b] of asks) {
        const bytes = views.of(arrays[which]!);
        const [begin, end] = a <= b ? [a, b] : [b, a];
        const range = views.range(bytes, begin, end);
        assert.equal(range.buffer, bytes.buffer);
        assert.equal(range.byteOffset, bytes.byteOffset + begin);
        assert.equal(range.byteLength, end - begin);
        // Asked again right after: the same view (nothing asked in between evicted it).
        assert.equal(views.range(bytes, begin, end), range);
      }
    }),
  );
});

test('byte views: blocks are each rank\'s bytes, the same array of views while counts and displacements stay (property)', () => {
  const arrays = [new Float64Array(8), new Int32Array(12)];
  // Counts of up to 4 ranks; displacements packed, or spread out by gaps, within the array.
  const layout = fc.array(fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 1 })), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat({ max: 1 }), layout), { maxLength: 30 }), (asks) => {
      const views = new ByteViews();
      for (const [which, parts] of asks) {
        const array = arrays[which]!;
        const counts = parts.map(([count]) => count);
        const displs: number[] = [];
        let at = 0;
        for (const [count, gap] of parts) {
          at += gap;
          displs.push(at);
          at += count;
        }
        if (at > array.length) continue;
        const bytes = views.of(array);
        const width = array.BYTES_PER_ELEMENT;
        const blocks = views.blocks(bytes, displs, counts, width);
        assert.equal(blocks.length, counts.length);
        blocks.forEach((block, r) => {
          assert.equal(block.buffer, array.buffer);
          assert.equal(block.byteOffset, array.byteOffset + displs[r]! * width);
          assert.equal(block.byteLength, counts[r]! * width);
        });
        assert.equal(views.blocks(bytes, displs, counts, width), blocks);
        // Other counts or displacements (copies of the arrays, as a program's next call makes): other blocks.
        assert.equal(views.blocks(bytes, [...displs], [...counts], width), blocks);
        const moved = displs.map((d, r) => (r === displs.length - 1 && d + counts[r]! < array.length ? d + 1 : d));
        if (moved.some((d, r) => d !== displs[r])) assert.notEqual(views.blocks(bytes, moved, counts, width), blocks);
      }
    }),
  );
});
