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
 *  word 48+ ACTIVE[i]  local slot + 1 of the i-th peer that wrote to r (0 = being written)
 *
 *  the block after the last rank's: the process's barrier
 *  word 0   ARRIVED     ranks in the barrier now
 *  word 16  GENERATION  barriers completed (the last to arrive adds 1, then wakes the sleepers)
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
 * either comes before the sleeper loads DOORBELL (so its last poll, after that load, sees every
 * frame published before the 2 was read) or wakes the wait.
 */

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
const ACTIVE = 48;
const BARRIER_ARRIVED = 0;
const BARRIER_GENERATION = 16;

/** Bytes of one rank's block for a process of `slots` ranks. */
export function controlBlockBytes(slots: number): number {
  return Math.ceil(((ACTIVE + slots) * 4) / 64) * 64;
}

/** Allocates the control area for `slots` ranks (and the process's barrier block after them). */
export function allocateControlArea(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(controlBlockBytes(slots) * (slots + 1));
}

/** A view of the control area that knows every rank's block. */
export class ControlArea {
  readonly i32: Int32Array;
  readonly slots: number;
  private readonly blockWords: number;
  /**
   * Set when this view's owner woke a sleeping rank ({@link wake}); when its process runs more
   * rank threads than cores, its next wait takes it and sleeps without spinning (ProgressEngine's
   * hand-off). Each rank has its own view of the area.
   */
  wokeSleeper = false;

  constructor(sab: SharedArrayBuffer, slots: number) {
    this.i32 = new Int32Array(sab);
    this.slots = slots;
    this.blockWords = controlBlockBytes(slots) / 4;
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
  enterBarrier(slot: number, parties: number): number {
    const base = this.slots * this.blockWords;
    const generation = Atomics.load(this.i32, base + BARRIER_GENERATION);
    Atomics.store(this.i32, slot * this.blockWords + BARRIER_AT, generation + 1);
    if (Atomics.add(this.i32, base + BARRIER_ARRIVED, 1) + 1 < parties) return generation;
    // Reset before release: a released rank may enter the next barrier at once.
    Atomics.store(this.i32, base + BARRIER_ARRIVED, 0);
    Atomics.add(this.i32, base + BARRIER_GENERATION, 1);
    for (let slot = 0; slot < this.slots; slot++) this.wake(slot);
    return -1;
  }

  /** The first slot that has not entered the barrier of `generation` (for hang reports), or -1. */
  missingFromBarrier(generation: number): number {
    for (let slot = 0; slot < this.slots; slot++) if (Atomics.load(this.i32, slot * this.blockWords + BARRIER_AT) !== generation + 1) return slot;
    return -1;
  }

  /** True once the barrier entered at `generation` ({@link enterBarrier}) has released its ranks. */
  barrierPassed(generation: number): boolean {
    return Atomics.load(this.i32, this.slots * this.blockWords + BARRIER_GENERATION) !== generation;
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
