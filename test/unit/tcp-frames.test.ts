// Property test of TCP framing: frames cut into chunks at any points come out whole, in order,
// and a malformed length is a protocol error, never a crash.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FRAME_HEADER_WORDS } from '../../src/transport/link.ts';
import { FrameError, FrameParser, LENGTH_PREFIX_BYTES, writeFrameHead } from '../../src/transport/tcp-frames.ts';

function encode(header: number[], payload: Uint8Array): Buffer {
  const out = Buffer.alloc(LENGTH_PREFIX_BYTES + FRAME_HEADER_WORDS * 4 + payload.length);
  writeFrameHead(out, 0, Int32Array.from(header), payload.length);
  out.set(payload, LENGTH_PREFIX_BYTES + FRAME_HEADER_WORDS * 4);
  return out;
}

// Header word 0 decides splittability: both kinds are generated.
const frame = fc.record({
  header: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: FRAME_HEADER_WORDS, maxLength: FRAME_HEADER_WORDS }),
  payload: fc.uint8Array({ maxLength: 3000 }),
});

test('tcp frames: any chunking delivers every frame whole and in order', () => {
  fc.assert(
    fc.property(fc.array(frame, { maxLength: 20 }), fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 50 }), (frames, cuts) => {
      const stream = Buffer.concat(frames.map((f) => encode(f.header, f.payload)));
      const got: { header: number[]; payload: Uint8Array }[] = [];
      const parser = new FrameParser(1 << 20, (words, bytes, offset, length, pieceOffset) => {
        const piece = Uint8Array.from(bytes.subarray(offset, offset + length));
        if (pieceOffset === 0) got.push({ header: Array.from(words), payload: piece });
        else {
          // A splittable frame arrives in pieces that continue the previous one.
          const last = got[got.length - 1]!;
          assert.equal(pieceOffset, last.payload.length, 'pieces arrive in order without gaps');
          const joined = new Uint8Array(last.payload.length + piece.length);
          joined.set(last.payload);
          joined.set(piece, last.payload.length);
          last.payload = joined;
        }
      });
      let at = 0;
      for (let i = 0; at < stream.length; i++) {
        const size = cuts[i % cuts.length]!;
        parser.push(stream.subarray(at, at + size));
        at += size;
      }
      assert.equal(got.length, frames.length);
      frames.forEach((f, i) => {
        assert.deepStrictEqual(got[i]!.header, f.header);
        assert.deepStrictEqual(got[i]!.payload, f.payload);
      });
      assert.ok(parser.idle);
    }),
    { numRuns: 300 },
  );
});

test('tcp frames: a length too small or too large is a FrameError', () => {
  const parser = new FrameParser(1024, () => assert.fail('no frame may be delivered'));
  const tooBig = Buffer.alloc(8);
  tooBig.writeUInt32LE(1 << 30, 0);
  assert.throws(() => parser.push(tooBig), FrameError);
  const tooSmall = Buffer.alloc(8);
  tooSmall.writeUInt32LE(3, 0);
  assert.throws(() => new FrameParser(1024, () => {}).push(tooSmall), FrameError);
  // Split across chunks, the oversized length is still caught once its 4 bytes are in.
  const split = new FrameParser(1024, () => assert.fail('no frame'));
  split.push(tooBig.subarray(0, 2));
  assert.throws(() => split.push(tooBig.subarray(2)), FrameError);
});
