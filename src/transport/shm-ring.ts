/**
 * A lock-free single-producer single-consumer ring of variable-length records in a
 * SharedArrayBuffer region. One ring carries the frames of one ordered pair of ranks.
 *
 * ```
 *  region offset
 *  0        head   Int32  bytes ever published by the producer (free-running, wraps mod 2^32)
 *  64       tail   Int32  bytes ever released by the consumer
 *  128      waiting Int32 1 while the producer waits for space (the consumer then rings its doorbell)
 *  192      data[capacity]                      capacity is a power of two
 *
 *  data:  ... | len | body | body bytes ........ | pad to 8 | len | ... |
 *  (len = record bytes with prefix and padding; body = exact body bytes)
 *                 ^ pos = head & (capacity - 1)
 * ```
 * Each field sits on its own 64-byte cache line so the two cores do not fight over one line.
 * A record never wraps: when it does not fit before the end of the data area, the producer writes
 * a wrap marker (len = -1) and starts again at 0. A record is at most capacity / 2 bytes, so a
 * record always fits once the ring drains.
 *
 * Memory ordering: the producer writes the record with plain stores and then publishes `head`
 * with `Atomics.store`; the consumer reads `head` with `Atomics.load` before reading the record
 * (a synchronizes-with pair in the JS memory model). The same holds for `tail` the other way.
 */

export const RING_HEADER_BYTES = 192;
const HEAD = 0;
const TAIL = 16; // Int32 index of byte offset 64
const WAITING = 32; // Int32 index of byte offset 128
const RECORD_PREFIX_BYTES = 8;
const WRAP_MARKER = -1;

/** The bytes a region for a ring of `capacity` data bytes takes. */
export function ringRegionBytes(capacity: number): number {
  return RING_HEADER_BYTES + capacity;
}

/** Rounds a record length (prefix included) up to the 8-byte record alignment. */
export function recordBytes(bodyBytes: number): number {
  return (RECORD_PREFIX_BYTES + bodyBytes + 7) & ~7;
}

export class ShmRing {
  /** Int32 view of the whole buffer (shared with other rings of the arena). */
  readonly i32: Int32Array;
  /** Byte view of the whole buffer. */
  readonly u8: Uint8Array;
  readonly capacity: number;
  /** Largest record body (bytes after the 8-byte prefix) this ring accepts. */
  readonly maxBodyBytes: number;
  private readonly base: number; // Int32 index of the ring header
  private readonly dataStart: number; // byte offset of data[0] in the buffer
  private readonly mask: number;
  /** The producer's or consumer's cached copy of its own counter (it alone writes it). */
  private localHead = 0;
  /** The producer's `head` as last published (records appended after it are not yet visible). */
  private publishedHead = 0;
  private localTail = 0;
  /** Bytes the consumer took ({@link take}) since it last published `tail`. */
  private unpublished = 0;
  /** The producer's last read of `tail`: it re-reads only when this leaves too little room. */
  private cachedTail = 0;
  /**
   * The consumer's last read of `head`: it re-reads only once it has taken everything up to it,
   * so a burst of frames costs one look at the producer's line, not one per frame (each look
   * takes the line from the producer, whose next publish must take it back).
   */
  private cachedHead = 0;

  constructor(sab: SharedArrayBuffer, byteOffset: number, capacity: number) {
    if ((capacity & (capacity - 1)) !== 0 || capacity < 1024) {
      throw new RangeError(`ring capacity must be a power of two >= 1024, got ${capacity}`);
    }
    if (byteOffset % 64 !== 0) throw new RangeError('ring region must be 64-byte aligned');
    this.i32 = new Int32Array(sab);
    this.u8 = new Uint8Array(sab);
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.maxBodyBytes = capacity / 2 - RECORD_PREFIX_BYTES;
    this.base = byteOffset >> 2;
    this.dataStart = byteOffset + RING_HEADER_BYTES;
    this.localHead = Atomics.load(this.i32, this.base + HEAD);
    this.publishedHead = this.localHead;
    this.localTail = Atomics.load(this.i32, this.base + TAIL);
    this.cachedTail = this.localTail;
    this.cachedHead = this.localTail;
  }

  // ---- producer side -------------------------------------------------------------------------

  /**
   * Reserves a contiguous record of `bodyBytes` and returns the byte offset (in {@link u8}) where
   * the body starts, or -1 when the ring has no room now. Nothing is visible to the consumer
   * until {@link commit}.
   */
  reserve(bodyBytes: number): number {
    const need = recordBytes(bodyBytes);
    const pos = this.localHead & this.mask;
    const untilEnd = this.capacity - pos;
    const span = need <= untilEnd ? need : untilEnd + need;
    let free = this.capacity - ((this.localHead - this.cachedTail) | 0);
    if (span > free) {
      // Only now look at the consumer's counter (each look moves a cache line between cores).
      this.cachedTail = Atomics.load(this.i32, this.base + TAIL);
      free = this.capacity - ((this.localHead - this.cachedTail) | 0);
    }
    if (need <= untilEnd) {
      if (need > free) return -1;
      const at = (this.dataStart + pos) >> 2;
      this.i32[at] = need;
      this.i32[at + 1] = bodyBytes;
      return this.dataStart + pos + RECORD_PREFIX_BYTES;
    }
    // Wrap: skip the tail end of the data area and start the record at 0.
    if (untilEnd + need > free) return -1;
    this.i32[(this.dataStart + pos) >> 2] = WRAP_MARKER;
    this.localHead = (this.localHead + untilEnd) | 0;
    this.i32[this.dataStart >> 2] = need;
    this.i32[(this.dataStart >> 2) + 1] = bodyBytes;
    return this.dataStart + RECORD_PREFIX_BYTES;
  }

  /** Publishes the record reserved last (of `bodyBytes`, as reserved). */
  commit(bodyBytes: number): void {
    this.append(bodyBytes);
    this.publish();
  }

  /**
   * Adds the record reserved last (of `bodyBytes`, as reserved) to those the next {@link publish}
   * makes visible; the consumer sees none of them before it.
   */
  append(bodyBytes: number): void {
    this.localHead = (this.localHead + recordBytes(bodyBytes)) | 0;
  }

  /** Makes every appended record visible to the consumer (one store on the line it polls). */
  publish(): void {
    this.publishedHead = this.localHead;
    Atomics.store(this.i32, this.base + HEAD, this.localHead);
  }

  /** Bytes appended (a wrap's skipped tail included) and not yet published. */
  unpublishedBytes(): number {
    return (this.localHead - this.publishedHead) | 0;
  }

  /** Marks that the producer waits for space; the consumer rings its doorbell when it frees some. */
  setProducerWaiting(): void {
    Atomics.store(this.i32, this.base + WAITING, 1);
  }

  /** Bytes published and not yet released by the consumer. */
  usedBytes(): number {
    this.cachedTail = Atomics.load(this.i32, this.base + TAIL);
    return (this.localHead - this.cachedTail) | 0;
  }

  // ---- consumer side -------------------------------------------------------------------------

  /**
   * The byte offset (in {@link u8}) of the next record's body, or -1 when the ring is empty.
   * The body length is {@link peekBodyBytes}; the record stays until {@link release}.
   */
  peek(): number {
    if (this.cachedHead === this.localTail) {
      this.cachedHead = Atomics.load(this.i32, this.base + HEAD);
      if (this.cachedHead === this.localTail) return -1;
    }
    let pos = this.localTail & this.mask;
    if (this.i32[(this.dataStart + pos) >> 2] === WRAP_MARKER) {
      this.localTail = (this.localTail + (this.capacity - pos)) | 0;
      pos = 0;
    }
    return this.dataStart + pos + RECORD_PREFIX_BYTES;
  }

  /** The exact body length of the record at `bodyOffset`. */
  bodyLengthAt(bodyOffset: number): number {
    return this.i32[((bodyOffset - RECORD_PREFIX_BYTES) >> 2) + 1]!;
  }

  /** The record length (prefix and padding included) of the record at `bodyOffset`. */
  recordLengthAt(bodyOffset: number): number {
    return this.i32[(bodyOffset - RECORD_PREFIX_BYTES) >> 2]!;
  }

  /**
   * Takes the record whose body starts at `bodyOffset` off the ring without telling the producer
   * yet; true when what was taken since `tail` was last published makes a sixteenth of the ring
   * (publish it now, see {@link publishTail}, or a large stream stalls).
   */
  take(bodyOffset: number): boolean {
    const length = this.recordLengthAt(bodyOffset);
    this.localTail = (this.localTail + length) | 0;
    this.unpublished += length;
    return this.unpublished >= this.capacity >> 4;
  }

  /**
   * Publishes `tail` (the records taken so far are free for the producer); true when the producer
   * was waiting for space (the caller should then wake it). A `tail` stored once per batch of
   * small records, not once per record, keeps its cache line from moving between the cores on
   * every message while the producer, finding the ring full, reads it before each write.
   */
  publishTail(): boolean {
    if (this.unpublished === 0) return false;
    this.unpublished = 0;
    return this.storeTail();
  }

  /**
   * Releases the record whose body starts at `bodyOffset` (takes it and publishes `tail`),
   * returning true when the producer was waiting for space (the caller should then wake it).
   */
  release(bodyOffset: number): boolean {
    this.take(bodyOffset);
    return this.publishTail();
  }

  private storeTail(): boolean {
    Atomics.store(this.i32, this.base + TAIL, this.localTail);
    if (Atomics.load(this.i32, this.base + WAITING) !== 0) {
      Atomics.store(this.i32, this.base + WAITING, 0);
      return true;
    }
    return false;
  }

  /** True when the consumer has read everything published. */
  isEmpty(): boolean {
    return Atomics.load(this.i32, this.base + HEAD) === this.localTail;
  }
}

let ringPathsRun = false;

/**
 * Runs each path of a ring once, on a private ring, the first time a thread opens shared-memory
 * links: an empty look, a full ring, a record that wraps to the start. V8 compiles a rank's
 * receive loop (the ring's methods inlined) once it turns hot, and a path that had not run by
 * then, the first wrap of a ring after a few dozen 64 KiB frames or the first frame to find a
 * ring polled empty until then, threw the compiled loop away when it first ran (a recompile of
 * 3-4 ms of the rank's thread, on rank threads that compile in place). Takes microseconds.
 */
export function runRingPaths(): void {
  if (ringPathsRun) return;
  ringPathsRun = true;
  const capacity = 1024;
  const ring = new ShmRing(new SharedArrayBuffer(ringRegionBytes(capacity)), 0, capacity);
  // Bodies of 300 bytes: three fill the ring, and the fourth wraps to the start. Enough rounds
  // for V8 to have given each method its feedback vector (it does after some use) before the
  // last wraps.
  for (let round = 0; round < 16; round++) {
    ring.peek();
    while (ring.reserve(300) >= 0) ring.append(300);
    ring.publish();
    ring.setProducerWaiting();
    for (let at = ring.peek(); at >= 0; at = ring.peek()) {
      ring.bodyLengthAt(at);
      if (ring.take(at)) ring.publishTail();
    }
    ring.publishTail();
    ring.usedBytes();
  }
}

