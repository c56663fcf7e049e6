// Values decoded from memory that is shared or reused, as the endpoint decodes them: straight from
// a shared-memory ring (a SharedArrayBuffer) and from a socket's reused assembly buffer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
