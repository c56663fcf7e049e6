/**
 * Scratch buffers of one rank's collectives, kept for the next call. A fresh 1 MiB ArrayBuffer
 * costs 0.2-2 ms on these VMs (zeroing, and page faults when the allocator hands the memory back
 * to the system between calls), a copy into memory already touched ~0.02 ms: a large allreduce
 * that takes its partials' buffers from here allocates only its result.
 * Small ones are kept too: a new ArrayBuffer of any size takes a backing store from the allocator
 * and counts as external memory for V8's collector, which made a 2-rank allreduce of one double
 * into a result array ~1 us slower. Kept by exact length: `take` rounds requests up to a size
 * class (a power of two), so that nearby sizes share buffers; `takeExact` does not. A few per
 * length (more of small ones, which unexpected messages take in bursts), within a byte cap.
 */
/** The smallest size class: smaller requests share it. */
const SMALLEST_CLASS = 64;
/** Buffers kept per size class: at least 4, more of small classes up to 1 MiB a class, at most 64. */
const KEPT_PER_CLASS = 4;
const KEPT_CLASS_BYTES = 1024 * 1024;
const MOST_PER_CLASS = 64;
/** Distinct lengths kept at most (a program of ever-new message sizes must not grow the map). */
const MOST_LENGTHS = 256;
const MOST_KEPT_BYTES = 64 * 1024 * 1024;

export class ScratchPool {
  readonly #free = new Map<number, ArrayBuffer[]>();
  #keptBytes = 0;

  /** An ArrayBuffer of at least `bytes` bytes (its size class), holding whatever its last user left in it. */
  take(bytes: number): ArrayBuffer {
    const size = sizeClass(bytes);
    const buffer = this.#free.get(size)?.pop();
    if (buffer === undefined) return new ArrayBuffer(size);
    this.#keptBytes -= size;
    return buffer;
  }

  /**
   * An ArrayBuffer of exactly `bytes` bytes (contents undefined): one given back of that length,
   * or a new one. For what is kept a while in numbers (unexpected messages), where rounding up to a
   * size class could double the memory they hold.
   */
  takeExact(bytes: number): ArrayBuffer {
    const buffer = this.#free.get(bytes)?.pop();
    if (buffer === undefined) return new ArrayBuffer(bytes);
    this.#keptBytes -= bytes;
    return buffer;
  }

  /** Gives `buffer` back; nothing may use it afterwards. */
  give(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    if (size === 0 || this.#keptBytes + size > MOST_KEPT_BYTES) return;
    let list = this.#free.get(size);
    if (list === undefined) {
      if (this.#free.size >= MOST_LENGTHS) return;
      this.#free.set(size, (list = []));
    }
    if (list.length >= Math.max(KEPT_PER_CLASS, Math.min(MOST_PER_CLASS, KEPT_CLASS_BYTES / size))) return;
    list.push(buffer);
    this.#keptBytes += size;
  }
}

/** The power of two at or above `bytes`, at least {@link SMALLEST_CLASS}. */
function sizeClass(bytes: number): number {
  return bytes <= SMALLEST_CLASS ? SMALLEST_CLASS : 2 ** Math.ceil(Math.log2(bytes));
}
