/**
 * Byte copies tuned for the hot path. `TypedArray.prototype.set` costs ~50 ns of fixed overhead
 * and `subarray` another ~90 ns (a new view object) on these VMs, while a byte loop costs ~1.3 ns
 * a byte: small payloads (up to SMALL_COPY bytes) are copied by loop, larger ones by `set`.
 */
export const SMALL_COPY = 16;

/** Copies `src[srcOffset, srcOffset + length)` into `dst` at `dstOffset`. */
export function copyBytes(dst: Uint8Array, dstOffset: number, src: Uint8Array, srcOffset: number, length: number): void {
  if (length <= SMALL_COPY) {
    for (let i = 0; i < length; i++) dst[dstOffset + i] = src[srcOffset + i]!;
    return;
  }
  dst.set(srcOffset === 0 && length === src.length ? src : src.subarray(srcOffset, srcOffset + length), dstOffset);
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
