/**
 * The byte views (Uint8Array over the same memory) of the last few small typed arrays a rank
 * sent, received into or reduced. Making a view costs V8 tens of nanoseconds, a visible share of
 * a small collective, and a program passes the same arrays call after call. Only views over
 * small buffers are kept, so that what the cache holds on to stays small.
 */
import { bytesOf } from './codec.js';

/** Views kept (a collective's input, its result, a bcast buffer, a receive buffer), and ranges. */
const SLOTS = 4;
/** Largest underlying ArrayBuffer whose views are kept. */
const MOST_BUFFER_BYTES = 64 * 1024;

export class ByteViews {
  readonly #views: (ArrayBufferView | undefined)[] = new Array<ArrayBufferView | undefined>(SLOTS).fill(undefined);
  readonly #bytes: Uint8Array[] = new Array<Uint8Array>(SLOTS).fill(new Uint8Array(0));
  #next = 0;
  #lastView: ArrayBufferView | undefined = undefined;
  #lastBytes: Uint8Array = new Uint8Array(0);
  // Ranges (a collective's blocks of the program's arrays), the same way.
  readonly #rangeOf: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(SLOTS).fill(undefined);
  readonly #rangeBegin = new Int32Array(SLOTS);
  readonly #rangeEnd = new Int32Array(SLOTS);
  readonly #ranges: Uint8Array[] = new Array<Uint8Array>(SLOTS).fill(new Uint8Array(0));
  #nextRange = 0;
  // Every block of an array at once (a vector collective's), the same way.
  readonly #blocksOf: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(SLOTS).fill(undefined);
  readonly #blockCounts: number[][] = Array.from({ length: SLOTS }, () => []);
  readonly #blockDispls: number[][] = Array.from({ length: SLOTS }, () => []);
  readonly #blockWidth = new Int32Array(SLOTS);
  readonly #blocks: Uint8Array[][] = Array.from({ length: SLOTS }, () => []);
  #nextBlocks = 0;

  /** `view`'s bytes (no copy): {@link bytesOf}, remembered for small buffers. */
  of(view: ArrayBufferView): Uint8Array {
    // The view asked for last first: a loop of one collective asks for the same one each call.
    // A length-tracking view of a resizable buffer may have changed length since.
    if (view === this.#lastView && this.#lastBytes.byteLength === view.byteLength) return this.#lastBytes;
    if (view instanceof Uint8Array && view.constructor === Uint8Array) return view;
    for (let i = 0; i < SLOTS; i++) {
      if (this.#views[i] === view && this.#bytes[i]!.byteLength === view.byteLength) return this.#hit(view, this.#bytes[i]!);
    }
    const bytes = bytesOf(view);
    if (bytes.buffer.byteLength <= MOST_BUFFER_BYTES) {
      const slot = this.#next;
      this.#views[slot] = view;
      this.#bytes[slot] = bytes;
      this.#next = (slot + 1) % SLOTS;
      this.#hit(view, bytes);
    }
    return bytes;
  }

  #hit(view: ArrayBufferView, bytes: Uint8Array): Uint8Array {
    this.#lastView = view;
    this.#lastBytes = bytes;
    return bytes;
  }

  /** `bytes.subarray(begin, end)` of a view {@link of} gave, remembered as views are. */
  range(bytes: Uint8Array, begin: number, end: number): Uint8Array {
    for (let i = 0; i < SLOTS; i++) {
      if (this.#rangeOf[i] === bytes && this.#rangeBegin[i] === begin && this.#rangeEnd[i] === end && this.#ranges[i]!.byteLength === end - begin) return this.#ranges[i]!;
    }
    const range = bytes.subarray(begin, end);
    if (bytes.buffer.byteLength <= MOST_BUFFER_BYTES) {
      const slot = this.#nextRange;
      this.#rangeOf[slot] = bytes;
      this.#rangeBegin[slot] = begin;
      this.#rangeEnd[slot] = end;
      this.#ranges[slot] = range;
      this.#nextRange = (slot + 1) % SLOTS;
    }
    return range;
  }

  /**
   * The blocks of `bytes` (a view {@link of} gave) that `counts` and `displs` cut, in elements of
   * `width` bytes: `bytes.subarray(displs[r] * width, (displs[r] + counts[r]) * width)` for each r,
   * remembered as ranges are. A vector collective on 8 ranks cuts 14 blocks a call, more than the
   * ranges' slots hold, and each new view cost ~40 ns.
   */
  blocks(bytes: Uint8Array, displs: readonly number[], counts: readonly number[], width: number): readonly Uint8Array[] {
    const n = counts.length;
    for (let i = 0; i < SLOTS; i++) {
      if (this.#blocksOf[i] !== bytes || this.#blockWidth[i] !== width) continue;
      const savedCounts = this.#blockCounts[i]!;
      const savedDispls = this.#blockDispls[i]!;
      const views = this.#blocks[i]!;
      if (savedCounts.length !== n) continue;
      let same = true;
      // A view's length also tells whether its buffer shrank (a resizable one) since.
      for (let r = 0; r < n && same; r++) same = savedCounts[r] === counts[r] && savedDispls[r] === displs[r] && views[r]!.byteLength === counts[r]! * width;
      if (same) return views;
    }
    const views: Uint8Array[] = new Array<Uint8Array>(n);
    for (let r = 0; r < n; r++) views[r] = bytes.subarray(displs[r]! * width, (displs[r]! + counts[r]!) * width);
    if (bytes.buffer.byteLength <= MOST_BUFFER_BYTES) {
      const slot = this.#nextBlocks;
      this.#blocksOf[slot] = bytes;
      this.#blockCounts[slot] = counts.slice();
      this.#blockDispls[slot] = displs.slice();
      this.#blockWidth[slot] = width;
      this.#blocks[slot] = views;
      this.#nextBlocks = (slot + 1) % SLOTS;
    }
    return views;
  }
}
