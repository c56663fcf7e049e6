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
  /**
   * This thread's allocations, held weakly: one the program no longer refers to is collected, and
   * its notice tells the other threads to let go of theirs (else every thread would keep every
   * allocation alive for ever).
   */
  private readonly own = new Map<number, WeakRef<SharedArrayBuffer>>();
  /** Other threads' allocations, held until their owner frees them or lets them be collected. */
  private readonly others = new Map<number, SharedArrayBuffer>();
  private readonly keyOf = new WeakMap<ArrayBufferLike, number>();
  private readonly collected = new FinalizationRegistry<number>((key) => this.forgetOwn(key));
  private readonly channel: BroadcastChannel;
  private counter = 0;

  constructor() {
    this.channel = new BroadcastChannel(`tsmpi-shared-memory:${process.pid}`);
    this.channel.onmessage = (event: unknown) => this.noticed((event as { data: Notice }).data);
    // The channel must not keep a finished rank's thread alive.
    this.channel.unref();
    this.channel.postMessage({ hello: true } satisfies Notice);
  }

  allocate(bytes: number): SharedArrayBuffer {
    if (this.counter + 1 >= KEY_SPAN) throw new RangeError(`more than ${KEY_SPAN - 1} shared allocations in one thread`);
    const key = threadId * KEY_SPAN + ++this.counter;
    const buffer = new SharedArrayBuffer(bytes);
    this.own.set(key, new WeakRef(buffer));
    this.keyOf.set(buffer, key);
    this.collected.register(buffer, key, buffer);
    this.channel.postMessage({ key, buffer } satisfies Notice);
    return buffer;
  }

  /** Forgets an allocation of this thread's; false when `buffer` is not one. */
  free(buffer: ArrayBufferLike): boolean {
    const key = this.keyOf.get(buffer);
    if (key === undefined || !this.own.has(key)) return false;
    this.keyOf.delete(buffer);
    this.collected.unregister(buffer);
    this.forgetOwn(key);
    return true;
  }

  private forgetOwn(key: number): void {
    if (this.own.delete(key)) this.channel.postMessage({ key, freed: true } satisfies Notice);
  }

  reference(bytes: Uint8Array): SharedReference | undefined {
    const key = this.keyOf.get(bytes.buffer);
    return key === undefined ? undefined : { key, byteOffset: bytes.byteOffset };
  }

  lookup(key: number): SharedArrayBuffer | undefined {
    return this.others.get(key) ?? this.own.get(key)?.deref();
  }

  /** Allocations this thread holds: its own still alive, and the others' it was told of. */
  get size(): { own: number; others: number } {
    return { own: this.own.size, others: this.others.size };
  }

  private noticed(notice: Notice): void {
    if ('hello' in notice) {
      for (const [key, ref] of this.own) {
        const buffer = ref.deref();
        if (buffer !== undefined) this.channel.postMessage({ key, buffer } satisfies Notice);
      }
      return;
    }
    if ('freed' in notice) {
      this.others.delete(notice.key);
      return;
    }
    this.others.set(notice.key, notice.buffer);
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

/** How many allocations this thread's registry holds (its own alive, the others' it was told of). */
export function sharedAllocationCounts(): { own: number; others: number } {
  return registry?.size ?? { own: 0, others: 0 };
}

/** The allocation of `key` when this thread knows it; undefined otherwise. */
export function sharedAllocation(key: number): SharedArrayBuffer | undefined {
  return theRegistry().lookup(key);
}
