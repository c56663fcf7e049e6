/**
 * The simulator's event engine: a 4-ary heap of timestamped events and the virtual clock that
 * reads it. Ties break by insertion order (a sequence number), so a run is deterministic: the
 * same inputs and seed give the same event order, bit for bit. Cancelled events stay in the heap
 * and are skipped when they surface (cheaper than removal from the middle).
 *
 * ```
 *  heap (arrays, parent of i at (i - 1) >> 2):   [ e0 | e1 e2 e3 e4 | e5 .. e20 | ... ]
 *  times, seqs, slots: typed arrays (the heap); fns[slot]: the callbacks; cancelled: a set of seqs
 *  order: time, then seq (insertion order)
 * ```
 * The Simulation implements the Clock contract (src/clock.ts), so policies tuned in the simulator
 * take the same clock object as in the runtime.
 */
import type { Clock, TimerHandle } from '../clock.js';

/** A timer's handle: its sequence number (the heap never touches it). */
interface SimTimer extends TimerHandle {
  readonly id: number;
}

export class Simulation implements Clock {
  // A 4-ary heap whose keys (time, seq) and slot numbers live in typed arrays: sifting compares
  // and moves plain numbers in contiguous memory (four children's times share a cache line) and
  // never a pointer, so the garbage collector's write barrier stays out of the hot loop. The
  // callbacks sit still in `fns`, at their slot.
  private times = new Float64Array(1024);
  private seqs = new Float64Array(1024);
  private slots = new Int32Array(1024);
  private fns: ((() => void) | undefined)[] = [];
  private freeSlots: number[] = [];
  private size = 0;
  private seq = 0;
  private current = 0;
  /** Sequence numbers of cancelled events still in the heap (cancelling is rare). */
  private readonly cancelled = new Set<number>();
  /** Events run so far. */
  processed = 0;

  /** Virtual seconds. */
  now(): number {
    return this.current;
  }

  /** Runs `fn` after `seconds` of virtual time. */
  schedule(seconds: number, fn: () => void): TimerHandle {
    return this.at(this.current + Math.max(0, seconds), fn);
  }

  /** Runs `fn` at virtual time `time` (not before now). */
  at(time: number, fn: () => void): TimerHandle {
    const timer: SimTimer = { id: this.seq };
    this.post(time, fn);
    return timer;
  }

  /** Runs `fn` at virtual time `time` (not before now), with no handle to cancel it: the hot path. */
  post(time: number, fn: () => void): void {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.fns.length;
      this.fns.push(fn);
    } else this.fns[slot] = fn;
    this.push(time < this.current ? this.current : time, this.seq++, slot);
  }

  /** Cancels an event that has not run (cancelling one that ran, or twice, does nothing). */
  cancel(handle: TimerHandle): void {
    const seq = (handle as SimTimer).id;
    if (seq >= this.seq) return;
    this.cancelled.add(seq);
    // Timers cancelled after they ran would stay in the set: drop them now and then (amortised).
    if (this.cancelled.size > this.size + 1024) this.pruneCancelled();
  }

  /** Keeps only the cancelled sequence numbers still in the heap. */
  private pruneCancelled(): void {
    const inHeap = new Set<number>();
    for (let i = 0; i < this.size; i++) if (this.cancelled.has(this.seqs[i]!)) inHeap.add(this.seqs[i]!);
    this.cancelled.clear();
    for (const seq of inHeap) this.cancelled.add(seq);
  }

  /** Events waiting (cancelled ones included until they surface). */
  get pending(): number {
    return this.size;
  }

  /** Events waiting that will run (cancelled ones not counted; cancel only what has not run). */
  get live(): number {
    return this.size - this.cancelled.size;
  }

  /** Time of the next live event, or Infinity. */
  peekTime(): number {
    if (this.cancelled.size > 0) this.dropCancelled();
    return this.size > 0 ? this.times[0]! : Infinity;
  }

  /** Runs the next live event; false when there is none. */
  step(): boolean {
    if (this.cancelled.size > 0) this.dropCancelled();
    if (this.size === 0) return false;
    this.current = this.times[0]!;
    const slot = this.slots[0]!;
    const fn = this.fns[slot]!;
    this.release(slot);
    this.pop();
    this.processed++;
    fn();
    return true;
  }

  /** Moves the clock to `time` when no event is due before it (the world resuming a rank). */
  advanceTo(time: number): void {
    if (time > this.current) this.current = time;
  }

  /** Runs every event due at or before `time` (without moving the clock past the last one run). */
  runUntil(time: number): void {
    while (this.peekTime() <= time) this.step();
  }

  /** Runs events until none is left (or `limit` have run). */
  run(limit = Infinity): void {
    let n = 0;
    while (n++ < limit && this.step());
  }

  private release(slot: number): void {
    this.fns[slot] = undefined;
    this.freeSlots.push(slot);
  }

  private dropCancelled(): void {
    while (this.size > 0 && this.cancelled.delete(this.seqs[0]!)) {
      this.release(this.slots[0]!);
      this.pop();
    }
  }

  private grow(): void {
    const n = this.times.length * 2;
    const times = new Float64Array(n);
    const seqs = new Float64Array(n);
    const slots = new Int32Array(n);
    times.set(this.times);
    seqs.set(this.seqs);
    slots.set(this.slots);
    this.times = times;
    this.seqs = seqs;
    this.slots = slots;
  }

  private push(time: number, seq: number, slot: number): void {
    if (this.size === this.times.length) this.grow();
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.slots;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 2;
      const pt = times[parent]!;
      if (pt < time || (pt === time && seqs[parent]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent]!;
      slots[i] = slots[parent]!;
      i = parent;
    }
    times[i] = time;
    seqs[i] = seq;
    slots[i] = slot;
  }

  /** Removes the top of the heap. */
  private pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const times = this.times;
    const seqs = this.seqs;
    const slots = this.slots;
    const time = times[n]!;
    const seq = seqs[n]!;
    const slot = slots[n]!;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // The smallest of up to four children.
      let c = first;
      let ct = times[first]!;
      const end = first + 4 < n ? first + 4 : n;
      for (let k = first + 1; k < end; k++) {
        const kt = times[k]!;
        if (kt < ct || (kt === ct && seqs[k]! < seqs[c]!)) {
          c = k;
          ct = kt;
        }
      }
      if (time < ct || (time === ct && seq < seqs[c]!)) break;
      times[i] = ct;
      seqs[i] = seqs[c]!;
      slots[i] = slots[c]!;
      i = c;
    }
    times[i] = time;
    seqs[i] = seq;
    slots[i] = slot;
  }
}
