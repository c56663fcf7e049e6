/**
 * Scratch buffers of one rank's collectives, kept for the next call. A fresh 1 MiB ArrayBuffer
 * costs 0.2-2 ms on these VMs (zeroing, and page faults when the allocator hands the memory back
 * to the system between calls), a copy into memory already touched ~0.02 ms: a large allreduce
 * that takes its partials' buffers from here allocates only its result.
 * Only large buffers are kept (small ones are cheap), a few per size class, within a byte cap.
 */
const SMALLEST_KEPT = 64 * 1024;
const KEPT_PER_CLASS = 4;
const MOST_KEPT_BYTES = 64 * 1024 * 1024;

export class ScratchPool {
  readonly #free = new Map<number, ArrayBuffer[]>();
  #keptBytes = 0;

  /** An ArrayBuffer of at least `bytes` bytes, holding whatever its last user left in it. */
  take(bytes: number): ArrayBuffer {
    if (bytes < SMALLEST_KEPT) return new ArrayBuffer(bytes);
    const size = sizeClass(bytes);
    const buffer = this.#free.get(size)?.pop();
    if (buffer === undefined) return new ArrayBuffer(size);
    this.#keptBytes -= size;
    return buffer;
  }

  /** Gives `buffer` back; nothing may use it afterwards. */
  give(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    if (size < SMALLEST_KEPT || size !== sizeClass(size) || this.#keptBytes + size > MOST_KEPT_BYTES) return;
    let list = this.#free.get(size);
    if (list === undefined) this.#free.set(size, (list = []));
    if (list.length >= KEPT_PER_CLASS) return;
    list.push(buffer);
    this.#keptBytes += size;
  }
}

/** The power of two at or above `bytes`. */
function sizeClass(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(bytes));
}
