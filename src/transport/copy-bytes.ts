/**
 * Byte copies tuned for the hot path. `TypedArray.prototype.set` costs ~50 ns of fixed overhead
 * and `subarray` another ~90 ns (a new view object) on these VMs, while a byte loop costs ~1.3 ns
 * a byte: small payloads (up to SMALL_COPY bytes) are copied by loop, larger ones by `set`.
 *
 * When either side lives in a SharedArrayBuffer (every ring), V8's `set` copies with relaxed
 * atomic word moves: ~22 GB/s against memcpy's ~38 here, and byte by byte (~3 GB/s) when the two
 * addresses differ modulo 8. Buffer's `fill` with a buffer as its value is one memcpy in Node's
 * C++ (~140 ns fixed): large copies, and misaligned ones past a few hundred bytes, go through it
 * (`npm run bench -- copy` measures all three). Racing writers are excluded by the rings' own
 * protocol, as they are for `set`.
 */
export const SMALL_COPY = 16;
/** Copies at least this long go through memcpy: where it overtakes an aligned relaxed `set`. */
export const NATIVE_COPY_FROM = 2048;
/** Misaligned copies at least this long go through memcpy: a byte-wise relaxed copy is slower. */
export const NATIVE_MISALIGNED_COPY_FROM = 256;

const nativeFill = Buffer.prototype.fill;

/** Copies `src[srcOffset, srcOffset + length)` into `dst` at `dstOffset` (overlapping ranges of one buffer as memmove, past SMALL_COPY bytes). */
export function copyBytes(dst: Uint8Array, dstOffset: number, src: Uint8Array, srcOffset: number, length: number): void {
  if (length <= SMALL_COPY) {
    for (let i = 0; i < length; i++) dst[dstOffset + i] = src[srcOffset + i]!;
    return;
  }
  if (length >= NATIVE_MISALIGNED_COPY_FROM && (length >= NATIVE_COPY_FROM || misaligned(dst, dstOffset, src, srcOffset)) && dst.buffer !== src.buffer) {
    // One memcpy of exactly `length` bytes: fill copies min(value length, range length) once.
    nativeFill.call(dst as Buffer, srcOffset === 0 ? src : src.subarray(srcOffset, srcOffset + length), dstOffset, dstOffset + length);
    return;
  }
  dst.set(srcOffset === 0 && length === src.length ? src : src.subarray(srcOffset, srcOffset + length), dstOffset);
}

function misaligned(dst: Uint8Array, dstOffset: number, src: Uint8Array, srcOffset: number): boolean {
  return ((dst.byteOffset + dstOffset - src.byteOffset - srcOffset) & 7) !== 0;
}

/**
 * A fresh copy of `src[offset, offset + length)`. Not `src.slice()`: on a Node Buffer (what a
 * socket hands over) `slice` is a view that changes when the buffer is reused.
 */
export function copyOut(src: Uint8Array, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  copyBytes(out, 0, src, offset, length);
  return out;
}

// Both sets below are empty in a program's run (only a trace replayer marks buffers): a flag
// skips their lookup, which was a twentieth of a small receive's time.

/** Buffers their owner promises never to write (a trace replayer's payloads): sent without a copy. */
const unchanging = new WeakSet<ArrayBufferLike>();
let anyUnchanging = false;

/** Promises that `buffer` is never written while links or sends may hold views of it. */
export function markUnchanging(buffer: ArrayBufferLike): void {
  unchanging.add(buffer);
  anyUnchanging = true;
}

/** True when the owner of `buffer` promised never to write it. */
export function isUnchanging(buffer: ArrayBufferLike): boolean {
  return anyUnchanging && unchanging.has(buffer);
}

/** Buffers whose contents nobody reads (a trace replayer's receive sinks): bytes bound there need no copy. */
const neverRead = new WeakSet<ArrayBufferLike>();
let anyNeverRead = false;

/** Promises that nobody reads what lands in `buffer`: receives into it skip the copy. */
export function markNeverRead(buffer: ArrayBufferLike): void {
  neverRead.add(buffer);
  anyNeverRead = true;
}

/** {@link copyBytes}, skipped when nobody reads `dst` ({@link markNeverRead}). */
export function copyInto(dst: Uint8Array, dstOffset: number, src: Uint8Array, srcOffset: number, length: number): void {
  if (!anyNeverRead || !neverRead.has(dst.buffer)) copyBytes(dst, dstOffset, src, srcOffset, length);
}
