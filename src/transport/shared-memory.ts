/**
 * Memory every rank thread of a process can read: the arrays `allocMem` hands out live in
 * SharedArrayBuffers, each known to the process's other threads by a key. A rank that sends from
 * such an array names it in its rendezvous announcement, and a receiver in the same process
 * copies the message straight out of it: one copy, as Open MPI's CMA or XPMEM give a large
 * message, where an ordinary array's bytes go through a ring (copied in, then out).
 *
 * Each thread (each realm) has its own registry. A new allocation is posted to the others over a
 * BroadcastChannel of the process, which carries shared memory between worker threads (a thread
 * whose registry starts late asks the others to post theirs again); until a thread has it, a
 * receive there takes the message the ordinary way, so nothing waits for it.
 */
import { BroadcastChannel, threadId } from 'node:worker_threads';

/** Counters per thread below this: a key is threadId * KEY_SPAN + counter, exact in a double. */
const KEY_SPAN = 2 ** 21;

/** How a sender names the memory it sends from: the allocation's key and the bytes' offset in it. */
export interface SharedReference {
  readonly key: number;
  readonly byteOffset: number;
}

type Notice =
  | { readonly key: number; readonly buffer: SharedArrayBuffer }
  | { readonly key: number; readonly freed: true }
  /** A thread's registry is new: the others post their allocations again. */
  | { readonly hello: true };

class SharedMemoryRegistry {
  private readonly byKey = new Map<number, SharedArrayBuffer>();
  private readonly keyOf = new WeakMap<ArrayBufferLike, number>();
  private readonly channel: BroadcastChannel;
  private counter = 0;

  constructor() {
    this.channel = new BroadcastChannel(`tsmpi-shared-memory:${process.pid}`);
    this.channel.onmessage = (event: unknown) => this.noticed((event as { data: Notice }).data);
    // The channel must not keep a finished rank's thread alive.
    (this.channel as BroadcastChannel & { unref?: () => void }).unref?.();
    this.channel.postMessage({ hello: true } satisfies Notice);
  }

  allocate(bytes: number): SharedArrayBuffer {
    if (this.counter + 1 >= KEY_SPAN) throw new RangeError(`more than ${KEY_SPAN - 1} shared allocations in one thread`);
    const key = threadId * KEY_SPAN + ++this.counter;
    const buffer = new SharedArrayBuffer(bytes);
    this.byKey.set(key, buffer);
    this.keyOf.set(buffer, key);
    this.channel.postMessage({ key, buffer } satisfies Notice);
    return buffer;
  }

  /** Forgets an allocation of this thread's; false when `buffer` is not one. */
  free(buffer: ArrayBufferLike): boolean {
    const key = this.keyOf.get(buffer);
    if (key === undefined || Math.floor(key / KEY_SPAN) !== threadId) return false;
    this.byKey.delete(key);
    this.keyOf.delete(buffer);
    this.channel.postMessage({ key, freed: true } satisfies Notice);
    return true;
  }

  reference(bytes: Uint8Array): SharedReference | undefined {
    const key = this.keyOf.get(bytes.buffer);
    return key === undefined ? undefined : { key, byteOffset: bytes.byteOffset };
  }

  lookup(key: number): SharedArrayBuffer | undefined {
    return this.byKey.get(key);
  }

  private noticed(notice: Notice): void {
    if ('hello' in notice) {
      for (const [key, buffer] of this.byKey) if (Math.floor(key / KEY_SPAN) === threadId) this.channel.postMessage({ key, buffer } satisfies Notice);
      return;
    }
    if ('freed' in notice) {
      const buffer = this.byKey.get(notice.key);
      this.byKey.delete(notice.key);
      if (buffer !== undefined) this.keyOf.delete(buffer);
      return;
    }
    this.byKey.set(notice.key, notice.buffer);
    this.keyOf.set(notice.buffer, notice.key);
  }
}

let registry: SharedMemoryRegistry | undefined;

/** This thread's registry, made with the first allocation (no channel for programs that never allocate). */
function theRegistry(): SharedMemoryRegistry {
  return (registry ??= new SharedMemoryRegistry());
}

/** A new shared allocation of `bytes` bytes, known to the process's other threads as they get its notice. */
export function allocateShared(bytes: number): SharedArrayBuffer {
  return theRegistry().allocate(bytes);
}

/** Forgets this thread's allocation `buffer`; false when it is not one (or was freed already). */
export function freeShared(buffer: ArrayBufferLike): boolean {
  return registry?.free(buffer) ?? false;
}

/** Where `bytes` lies when it lies in an allocation this thread knows; undefined otherwise (at once when nothing was allocated). */
export function sharedReference(bytes: Uint8Array): SharedReference | undefined {
  return registry === undefined ? undefined : registry.reference(bytes);
}

/** The allocation of `key` when this thread knows it; undefined otherwise. */
export function sharedAllocation(key: number): SharedArrayBuffer | undefined {
  return theRegistry().lookup(key);
}
