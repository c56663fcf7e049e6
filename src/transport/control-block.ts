/**
 * Per-rank control words in a SharedArrayBuffer that every rank of a process (and the launcher's
 * main thread) can see: the doorbell a rank sleeps on, its state for the hang detector, and the
 * list of peers that have written to it (so it polls only rings that were ever used).
 *
 * ```
 *  block of rank r, at r * blockBytes (64-byte aligned)
 *  word 0   DOORBELL   incremented (and notified) to wake r while it sleeps
 *  word 16  SLEEPING   1 while r sleeps, or is about to sleep, on DOORBELL; 2 once a sender rang it
 *  word 32  STATE      RankState, written by r, read by the launcher
 *  word 33  PROGRESS   requests r completed (the hang detector watches it move)
 *  word 34  ACTIVE_N   number of entries in ACTIVE
 *  word 35  BARRIER_AT generation + 1 of the process's barrier r last entered (0: none yet)
 *  word 36  STAGED_BYTES  bytes of the array r staged for its current staged collective
 *  word 37  STAGED_KIND   that array's payload kind
 *  word 38  STAGING_AT    as BARRIER_AT, for the staging barrier
 *  word 48+ ACTIVE[i]  local slot + 1 of the i-th peer that wrote to r (0 = being written)
 *
 *  the block after the last rank's: the process's barriers (the world's barrier, then the
 *  staging barrier that staged collectives order their steps with)
 *  word 0   ARRIVED     ranks in the barrier now
 *  word 16  GENERATION  barriers completed (the last to arrive adds 1, then wakes the sleepers)
 *  word 32, 48          ARRIVED and GENERATION of the staging barrier
 *
 *  then BCAST_SLOTS broadcast slots (the process's broadcasts in sequence, a chunk per slot)
 *  word 0   SEQUENCE    sequence + 1 of the chunk the slot holds (0: none yet)
 *  word 1   LENGTH      its payload's bytes
 *  word 2   ROOT        the rank that published it
 *  word 3   TOTAL       the bytes of the whole broadcast it is a chunk of
 *  word 4   KIND        the broadcast's payload kind (how a value was encoded)
 *  word 16  PENDING     readers that have not copied it out yet
 *  byte 128 the payload (up to BCAST_SLOT_BYTES)
 *
 *  then the staging regions: one per rank (slot order), then the result region, each
 *  stagingRegionBytes(slots) (shared-staging collectives copy their arrays in, combine, copy out)
 * ```
 * A running rank polls its rings directly; senders touch the doorbell only when the rank sleeps,
 * so a message costs no extra cache-line transfer. Wake-up without a lost notification (Dekker):
 * the sleeper stores SLEEPING = 1, loads DOORBELL, polls its rings once more, and only then waits
 * for DOORBELL to differ from what it loaded. A sender publishes its frame (Atomics.store of the
 * ring head) and then loads SLEEPING; when it is 1 it adds to DOORBELL and notifies. With
 * sequentially consistent Atomics, either the sleeper's last poll sees the frame or the sender
 * sees SLEEPING = 1. The first sender to see 1 moves it to 2 (compare-exchange) and rings; later
 * ones see 2 and leave the doorbell alone: a burst into a sleeping rank's ring rang it (a futex
 * wake each) once per frame. A sender that sees 2 needs no ring of its own: the ringer's add
 * either comes after the sleeper loaded DOORBELL (and wakes the wait) or before it, and then the
 * sleeper, finding SLEEPING at 2 after its last poll, does not sleep but announces and looks
 * again. (A ring may bring nothing for the sleeper: a broadcast or a freed slot rings every rank.
 * Sleeping on the count read after it, with SLEEPING at 2, would miss every later sender.)
 */
import { copyBytes } from './copy-bytes.js';

export const enum RankState {
  Starting = 0,
  Running = 1,
  Waiting = 2,
  Finished = 3,
}

const DOORBELL = 0;
const SLEEPING = 16;
const STATE = 32;
const PROGRESS = 33;
const ACTIVE_N = 34;
const BARRIER_AT = 35;
const STAGED_BYTES = 36;
const STAGED_KIND = 37;
const STAGING_AT = 38;
const ACTIVE = 48;
const BARRIER_ARRIVED = 0;
const BARRIER_GENERATION = 16;
/** The words of the staging barrier: the world barrier's, this many words on. */
const STAGING_BARRIER_SHIFT = 32;

/** Which of the process's barriers: the world's, or the one staged collectives take their steps by. */
export const enum BarrierCounter {
  World = 0,
  Staging = 1,
}

/** Broadcast slots: a root runs this many chunks ahead of its slowest reader. */
export const BCAST_SLOTS = 64;
/**
 * Largest payload a broadcast slot holds (a chunk of a larger broadcast). The slots are address
 * space until a chunk touches their pages: small broadcasts commit a page per slot.
 */
export const BCAST_SLOT_BYTES = 16 * 1024;
const BCAST_SEQUENCE = 0;
const BCAST_LENGTH = 1;
const BCAST_ROOT = 2;
const BCAST_TOTAL = 3;
const BCAST_KIND = 4;
const BCAST_PENDING = 16;
const BCAST_PAYLOAD_BYTES = 128;
const BCAST_STRIDE_BYTES = BCAST_PAYLOAD_BYTES + BCAST_SLOT_BYTES;

/** Bytes of one rank's block for a process of `slots` ranks. */
export function controlBlockBytes(slots: number): number {
  return Math.ceil(((ACTIVE + slots) * 4) / 64) * 64;
}

/**
 * Bytes of each staging region of a process of `slots` ranks: 4 MiB over its regions, from 4 to
 * 256 KiB, in whole pages. Like the broadcast slots, the regions are address space until a
 * staged collective touches their pages. Regions of 1 MiB (16 MiB in all) were tried for the
 * alltoallv's sake and not kept: docs/guide.md, "alltoallv through the staging regions".
 */
export function stagingRegionBytes(slots: number): number {
  return Math.min(256 * 1024, Math.max(4096, Math.floor((4 * 1024 * 1024) / (slots + 1) / 4096) * 4096));
}

/** Allocates the control area for `slots` ranks (and the process's barrier block, broadcast slots and staging regions after them). */
export function allocateControlArea(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(controlBlockBytes(slots) * (slots + 1) + BCAST_SLOTS * BCAST_STRIDE_BYTES + (slots + 1) * stagingRegionBytes(slots));
}

/** A view of the control area that knows every rank's block. */
export class ControlArea {
  readonly i32: Int32Array;
  readonly slots: number;
  private readonly blockWords: number;
  private readonly bytes: Uint8Array;
  /** Byte offset of the first broadcast slot. */
  private readonly bcastBase: number;
  /** Byte offset of the first staging region, and each region's bytes. */
  readonly stagingBase: number;
  readonly stagingBytes: number;
  /**
   * Set when this view's owner woke a sleeping rank ({@link wake}); when its process runs more
   * rank threads than cores, its next wait takes it and sleeps without spinning (ProgressEngine's
   * hand-off). Each rank has its own view of the area.
   */
  wokeSleeper = false;

  constructor(sab: SharedArrayBuffer, slots: number) {
    this.i32 = new Int32Array(sab);
    this.bytes = new Uint8Array(sab);
    this.slots = slots;
    this.blockWords = controlBlockBytes(slots) / 4;
    this.bcastBase = controlBlockBytes(slots) * (slots + 1);
    this.stagingBase = this.bcastBase + BCAST_SLOTS * BCAST_STRIDE_BYTES;
    this.stagingBytes = stagingRegionBytes(slots);
  }

  /** The shared memory itself (staged collectives view their regions in it). */
  get buffer(): SharedArrayBuffer {
    return this.i32.buffer as SharedArrayBuffer;
  }

  /** Byte offset of `slot`'s staging region; `slots` names the result region after the ranks'. */
  stagingOffset(slot: number): number {
    return this.stagingBase + slot * this.stagingBytes;
  }

  /** Records the shape of the array `slot` stages for its current staged collective. */
  setStaged(slot: number, bytes: number, kind: number): void {
    const base = slot * this.blockWords;
    Atomics.store(this.i32, base + STAGED_BYTES, bytes);
    Atomics.store(this.i32, base + STAGED_KIND, kind);
  }

  /** The bytes `slot` staged ({@link setStaged}). */
  stagedBytes(slot: number): number {
    return Atomics.load(this.i32, slot * this.blockWords + STAGED_BYTES);
  }

  /** The payload kind `slot` staged ({@link setStaged}). */
  stagedKind(slot: number): number {
    return Atomics.load(this.i32, slot * this.blockWords + STAGED_KIND);
  }

  /** Int32 index of `slot`'s doorbell word. */
  doorbellIndex(slot: number): number {
    return slot * this.blockWords + DOORBELL;
  }

  /** Wakes `slot` if it sleeps (call after publishing what it should see). */
  wake(slot: number): void {
    const base = slot * this.blockWords;
    if (Atomics.load(this.i32, base + SLEEPING) === 1 && Atomics.compareExchange(this.i32, base + SLEEPING, 1, 2) === 1) {
      Atomics.add(this.i32, base + DOORBELL, 1);
      Atomics.notify(this.i32, base + DOORBELL);
      this.wokeSleeper = true;
    }
  }

  /** Rings `slot`'s doorbell unconditionally (something outside its rings changed). */
  ring(slot: number): void {
    const base = slot * this.blockWords;
    Atomics.add(this.i32, base + DOORBELL, 1);
    Atomics.notify(this.i32, base + DOORBELL);
  }

  /** True when a sender has rung `slot` since it last announced its sleep. */
  rung(slot: number): boolean {
    return Atomics.load(this.i32, slot * this.blockWords + SLEEPING) === 2;
  }

  doorbell(slot: number): number {
    return Atomics.load(this.i32, slot * this.blockWords + DOORBELL);
  }

  setSleeping(slot: number, sleeping: boolean): void {
    Atomics.store(this.i32, slot * this.blockWords + SLEEPING, sleeping ? 1 : 0);
  }

  setState(slot: number, state: RankState): void {
    Atomics.store(this.i32, slot * this.blockWords + STATE, state);
  }

  state(slot: number): RankState {
    return Atomics.load(this.i32, slot * this.blockWords + STATE) as RankState;
  }

  /** True once every rank of the process has started its progress engine (none is Starting). */
  allStarted(): boolean {
    for (let slot = 0; slot < this.slots; slot++) if (this.state(slot) === RankState.Starting) return false;
    return true;
  }

  addProgress(slot: number, completed: number): void {
    Atomics.add(this.i32, slot * this.blockWords + PROGRESS, completed);
  }

  progress(slot: number): number {
    return Atomics.load(this.i32, slot * this.blockWords + PROGRESS);
  }

  /**
   * `slot` enters the barrier of the process's `parties` ranks (all of them). Returns the generation to wait past, or -1 when this rank arrived last: it has
   * then released the others, woken those that sleep, and need not wait.
   */
  enterBarrier(slot: number, parties: number, counter = BarrierCounter.World): number {
    const base = this.slots * this.blockWords + (counter === BarrierCounter.Staging ? STAGING_BARRIER_SHIFT : 0);
    const generation = Atomics.load(this.i32, base + BARRIER_GENERATION);
    Atomics.store(this.i32, slot * this.blockWords + (counter === BarrierCounter.Staging ? STAGING_AT : BARRIER_AT), generation + 1);
    if (Atomics.add(this.i32, base + BARRIER_ARRIVED, 1) + 1 < parties) return generation;
    // Reset before release: a released rank may enter the next barrier at once.
    Atomics.store(this.i32, base + BARRIER_ARRIVED, 0);
    Atomics.add(this.i32, base + BARRIER_GENERATION, 1);
    for (let slot = 0; slot < this.slots; slot++) this.wake(slot);
    return -1;
  }

  /** The first slot that has not entered the barrier of `generation` (for hang reports), or -1. */
  missingFromBarrier(generation: number, counter = BarrierCounter.World): number {
    const at = counter === BarrierCounter.Staging ? STAGING_AT : BARRIER_AT;
    for (let slot = 0; slot < this.slots; slot++) if (Atomics.load(this.i32, slot * this.blockWords + at) !== generation + 1) return slot;
    return -1;
  }

  /** True once the barrier entered at `generation` ({@link enterBarrier}) has released its ranks. */
  barrierPassed(generation: number, counter = BarrierCounter.World): boolean {
    return Atomics.load(this.i32, this.slots * this.blockWords + (counter === BarrierCounter.Staging ? STAGING_BARRIER_SHIFT : 0) + BARRIER_GENERATION) !== generation;
  }

  /**
   * Publishes chunk `sequence` (`length` bytes of `payload` from `offset`, part of a broadcast of
   * `total` bytes of payload `kind` from `root`, for `readers` ranks) in its slot and wakes the sleepers. False while
   * the slot's previous chunk has readers left: call again. Chunks are published in sequence, each
   * once the publisher has seen the one BCAST_SLOTS before it (published or read), so a free slot
   * holds nothing later.
   */
  publishBcast(sequence: number, root: number, payload: Uint8Array, offset: number, length: number, total: number, kind: number, readers: number): boolean {
    const word = this.bcastWord(sequence);
    if (Atomics.load(this.i32, word + BCAST_PENDING) !== 0) return false;
    if (length > 0) copyBytes(this.bytes, this.bcastPayload(sequence), payload, offset, length);
    Atomics.store(this.i32, word + BCAST_LENGTH, length);
    Atomics.store(this.i32, word + BCAST_TOTAL, total);
    Atomics.store(this.i32, word + BCAST_KIND, kind);
    Atomics.store(this.i32, word + BCAST_ROOT, root);
    Atomics.store(this.i32, word + BCAST_PENDING, readers);
    // Last: a reader that sees the sequence sees the rest.
    Atomics.store(this.i32, word + BCAST_SEQUENCE, (sequence + 1) | 0);
    this.wakeAll();
    return true;
  }

  /** The payload length of chunk `sequence` once it is published, else -1. */
  bcastLength(sequence: number): number {
    const word = this.bcastWord(sequence);
    return Atomics.load(this.i32, word + BCAST_SEQUENCE) === ((sequence + 1) | 0) ? Atomics.load(this.i32, word + BCAST_LENGTH) : -1;
  }

  /** The rank that published chunk `sequence` (once {@link bcastLength} says it is there). */
  bcastRoot(sequence: number): number {
    return Atomics.load(this.i32, this.bcastWord(sequence) + BCAST_ROOT);
  }

  /** The bytes of the whole broadcast chunk `sequence` is part of (once published). */
  bcastTotal(sequence: number): number {
    return Atomics.load(this.i32, this.bcastWord(sequence) + BCAST_TOTAL);
  }

  /** The payload kind of the broadcast chunk `sequence` belongs to (once published). */
  bcastKind(sequence: number): number {
    return Atomics.load(this.i32, this.bcastWord(sequence) + BCAST_KIND);
  }

  /**
   * Copies the first `length` bytes of published chunk `sequence` into `into` at `at` and counts
   * this reader out; the last reader frees the slot and wakes a publisher waiting for it.
   */
  takeBcast(sequence: number, into: Uint8Array, at: number, length: number): void {
    if (length > 0) copyBytes(into, at, this.bytes, this.bcastPayload(sequence), length);
    if (Atomics.sub(this.i32, this.bcastWord(sequence) + BCAST_PENDING, 1) === 1) this.wakeAll();
  }

  private bcastWord(sequence: number): number {
    return (this.bcastBase + (sequence % BCAST_SLOTS) * BCAST_STRIDE_BYTES) / 4;
  }

  private bcastPayload(sequence: number): number {
    return this.bcastBase + (sequence % BCAST_SLOTS) * BCAST_STRIDE_BYTES + BCAST_PAYLOAD_BYTES;
  }

  /** Wakes every rank that sleeps (one load each for those that do not). */
  private wakeAll(): void {
    for (let slot = 0; slot < this.slots; slot++) this.wake(slot);
  }

  /** Records that `writer` has written to `reader` for the first time. */
  registerWriter(reader: number, writer: number): void {
    const base = reader * this.blockWords;
    const index = Atomics.add(this.i32, base + ACTIVE_N, 1);
    Atomics.store(this.i32, base + ACTIVE + index, writer + 1);
  }

  /** Number of writers `reader` has registered so far (some entries may still be in progress). */
  writerCount(reader: number): number {
    return Atomics.load(this.i32, reader * this.blockWords + ACTIVE_N);
  }

  /** The writer registered at `index`, or -1 while its entry is still being written. */
  writerAt(reader: number, index: number): number {
    return Atomics.load(this.i32, reader * this.blockWords + ACTIVE + index) - 1;
  }
}
