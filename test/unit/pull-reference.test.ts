// The reference an RTS carries to the sender's shared allocation: any key a registry makes (up to
// 2^53) and any 32-bit byte offset come back exactly, wherever the payload lies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PULL_REFERENCE_BYTES, readPullReference, writePullReference } from '../../src/comm/frame-header.ts';

test('pull reference: key and offset round-trip at any place in a frame', () => {
  fc.assert(
    fc.property(fc.maxSafeNat(), fc.nat({ max: 0xffffffff }), fc.nat({ max: 64 }), (key, byteOffset, at) => {
      const frame = new Uint8Array(at + PULL_REFERENCE_BYTES + 8).fill(0xab);
      writePullReference(frame.subarray(at, at + PULL_REFERENCE_BYTES), key, byteOffset);
      assert.deepEqual(readPullReference(frame, at), { key, byteOffset });
      assert.ok(frame.subarray(at + PULL_REFERENCE_BYTES).every((b) => b === 0xab), 'wrote past the reference');
    }),
  );
});
