// Values decoded from memory that is shared or reused, as the endpoint decodes them: straight from
// a shared-memory ring (a SharedArrayBuffer) and from a socket's reused assembly buffer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeValue, encodeValue } from '../../src/comm/codec.ts';

const value = (i: number) => ({ seconds: i / 1000, outcomes: Array.from({ length: 12 }, (_, k) => [i + k, 0, `result ${k} of task ${i}`]), blob: Buffer.alloc(64, i & 255) });

test('values of 140 bytes and more with strings decode from a SharedArrayBuffer (the native string extractor cannot read one)', () => {
  const ring = new Uint8Array(new SharedArrayBuffer(1 << 16));
  for (let i = 0; i < 200; i++) {
    const { kind, bytes } = encodeValue(value(i), 0, 'test');
    assert.ok(bytes.length >= 140);
    const at = (i * 520) % (ring.length - bytes.length);
    ring.set(bytes, at);
    const got = decodeValue(kind, ring, at, bytes.length) as ReturnType<typeof value>;
    ring.fill(0, at, at + bytes.length); // the ring is reused: the value must not see it
    assert.deepEqual({ ...got, blob: [...got.blob] }, { ...value(i), blob: [...value(i).blob] });
  }
});

test('a Buffer inside a value owns its bytes (the buffer it was decoded from is reused)', () => {
  const reused = Buffer.alloc(4096);
  const { kind, bytes } = encodeValue({ blob: Buffer.from([1, 2, 3, 4]) }, 0, 'test');
  reused.set(bytes, 100);
  const got = decodeValue(kind, reused, 100, bytes.length) as { blob: Uint8Array };
  reused.fill(0);
  assert.deepEqual([...got.blob], [1, 2, 3, 4]);
});

const typedKinds = [Uint8Array, Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array] as const;

test('typed arrays of every kind and size decode from any offset of a ring into arrays that own their bytes', () => {
  fc.assert(
    // Counts past a few hundred bytes take the large copy's path (memcpy from 2 KiB, copy-bytes.ts).
    fc.property(fc.integer({ min: 0, max: typedKinds.length - 1 }), fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 200, max: 5000 })), fc.integer({ min: 0, max: 15 }), fc.integer(), (which, count, offset, seed) => {
      const Ctor = typedKinds[which]!;
      const sent = new Ctor(count);
      const sentBytes = new Uint8Array(sent.buffer);
      for (let i = 0; i < sentBytes.length; i++) sentBytes[i] = (seed + i * 37) & 255;
      const { kind, bytes } = encodeValue(sent, 0, 'test');
      const ring = new Uint8Array(new SharedArrayBuffer(64 * 1024));
      ring.set(bytes, offset);
      const got = decodeValue(kind, ring, offset, bytes.length) as InstanceType<typeof Ctor>;
      ring.fill(0xee);
      assert.equal(got.constructor, Ctor);
      assert.equal(got.length, count);
      assert.ok(got.buffer instanceof ArrayBuffer, 'a private buffer, not the ring');
      assert.equal(got.byteOffset, 0);
      assert.equal(got.buffer.byteLength, got.byteLength);
      assert.deepEqual([...new Uint8Array(got.buffer)], [...sentBytes]);
    }),
    { numRuns: 600 },
  );
});

test('Buffers and DataViews decode from any offset of a ring, at every length, into memory of their own', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 200, max: 9000 })), fc.integer({ min: 0, max: 15 }), fc.integer(), (asBuffer, length, offset, seed) => {
      const sentBytes = Uint8Array.from({ length }, (_, i) => (seed + i * 29) & 255);
      const sent = asBuffer ? Buffer.from(sentBytes) : new DataView(sentBytes.slice().buffer);
      const { kind, bytes } = encodeValue(sent, 0, 'test');
      const ring = new Uint8Array(new SharedArrayBuffer(16 * 1024));
      ring.set(bytes, offset);
      const got = decodeValue(kind, ring, offset, bytes.length) as Buffer | DataView;
      ring.fill(0xee);
      assert.equal(Buffer.isBuffer(got), asBuffer);
      assert.ok(!(got.buffer instanceof SharedArrayBuffer), 'not the ring');
      assert.deepEqual([...new Uint8Array(got.buffer, got.byteOffset, got.byteLength)], [...sentBytes]);
    }),
    { numRuns: 300 },
  );
});
