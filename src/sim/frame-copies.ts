/**
 * The copies of eager payloads that simulated links hold while their frames cross the network,
 * reused once the receiver has handled the frame (a frame's bytes are the receiver's only during
 * that call). A real rank copies an eager payload into a ring or a socket's buffer that lives as
 * long as the link; a fresh array per frame would instead make the simulation's one heap collect
 * as no real rank's does (each 64 MiB of new array memory starts a full collection), and under
 * `--compute measured` those collections are charged to the ranks as computing.
 */
import { copyBytes, copyOut } from '../transport/copy-bytes.js';

/** Smaller payloads live on V8's heap, where a new array is as cheap as a pooled one. */
const POOLED_FROM = 1024;
/** What the free lists hold at most; beyond it released copies are left to the collector. */
const MAX_FREE_BYTES = 64 << 20;

export class FrameCopies {
  /** Free copies by length: programs send the same sizes again and again. */
  private readonly free = new Map<number, Uint8Array[]>();
  private readonly lent = new Set<Uint8Array>();
  private freeBytes = 0;

  /** A copy of `src[offset, offset + length)` that stays unchanged until {@link release}. */
  copy(src: Uint8Array, offset: number, length: number): Uint8Array {
    if (length < POOLED_FROM) return copyOut(src, offset, length);
    const spare = this.free.get(length)?.pop();
    let out: Uint8Array;
    if (spare !== undefined) {
      this.freeBytes -= length;
      out = spare;
    } else out = new Uint8Array(length);
    copyBytes(out, 0, src, offset, length);
    this.lent.add(out);
    return out;
  }

  /** The receiver is done with `bytes`: a copy made here is kept for a later frame. */
  release(bytes: Uint8Array): void {
    if (!this.lent.delete(bytes)) return;
    if (this.freeBytes + bytes.length > MAX_FREE_BYTES) return;
    let list = this.free.get(bytes.length);
    if (list === undefined) this.free.set(bytes.length, (list = []));
    list.push(bytes);
    this.freeBytes += bytes.length;
  }

  /** Bytes held for reuse (tests). */
  get held(): number {
    return this.freeBytes;
  }
}
