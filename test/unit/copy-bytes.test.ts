// The hot path's byte copy: a loop, TypedArray.set or one memcpy by Buffer's fill, chosen by
// length and alignment; every choice must copy exactly the range asked, into shared memory or not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { NATIVE_COPY_FROM, NATIVE_MISALIGNED_COPY_FROM, SMALL_COPY, copyBytes } from '../../src/transport/copy-bytes.ts';

function bytesIn(shared: boolean, length: number, viewOffset: number): Uint8Array {
  const buffer = shared ? new SharedArrayBuffer(length + viewOffset) : new ArrayBuffer(length + viewOffset);
  return new Uint8Array(buffer, viewOffset, length);
}

test('copyBytes: copies exactly the range, heap or shared memory, aligned or not, at every length class', () => {
  const lengths = fc.oneof(
    fc.integer({ min: 0, max: SMALL_COPY + 1 }),
    fc.integer({ min: NATIVE_MISALIGNED_COPY_FROM - 2, max: NATIVE_MISALIGNED_COPY_FROM + 2 }),
    fc.integer({ min: NATIVE_COPY_FROM - 9, max: NATIVE_COPY_FROM + 9 }),
    fc.integer({ min: 0, max: 3 * NATIVE_COPY_FROM }),
  );
  fc.assert(
    fc.property(
      lengths,
      fc.record({ shared: fc.boolean(), viewOffset: fc.integer({ min: 0, max: 15 }), at: fc.integer({ min: 0, max: 40 }), spare: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ shared: fc.boolean(), viewOffset: fc.integer({ min: 0, max: 15 }), at: fc.integer({ min: 0, max: 40 }), spare: fc.integer({ min: 0, max: 40 }) }),
      (length, from, to) => {
        const src = bytesIn(from.shared, from.at + length + from.spare, from.viewOffset);
        for (let i = 0; i < src.length; i++) src[i] = (i * 31 + 7) & 255;
        const dst = bytesIn(to.shared, to.at + length + to.spare, to.viewOffset);
        dst.fill(0xee);
        copyBytes(dst, to.at, src, from.at, length);
        for (let i = 0; i < dst.length; i++) {
          const expected = i >= to.at && i < to.at + length ? src[from.at + i - to.at] : 0xee;
          if (dst[i] !== expected) return false;
        }
        return true;
      },
    ),
    { numRuns: 400 },
  );
});

test('copyBytes: overlapping ranges of one buffer longer than SMALL_COPY copy as memmove does, in both directions', () => {
  for (const shared of [false, true]) {
    for (const length of [SMALL_COPY + 1, NATIVE_MISALIGNED_COPY_FROM + 3, NATIVE_COPY_FROM + 5]) {
      for (const shift of [-3, 5]) {
        const bytes = bytesIn(shared, length + 16, 0);
        for (let i = 0; i < bytes.length; i++) bytes[i] = i & 255;
        const reference = Uint8Array.from(bytes);
        reference.copyWithin(8 + shift, 8, 8 + length);
        copyBytes(bytes, 8 + shift, bytes, 8, length);
        assert.deepEqual(bytes, reference, `shared ${shared}, ${length} bytes shifted by ${shift}`);
      }
    }
  }
});
