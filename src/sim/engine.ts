/**
 * The simulator's event engine: a binary heap of timestamped events and the virtual clock that
 * reads it. Ties break by insertion order (a sequence number), so a run is deterministic: the
 * same inputs and seed give the same event order, bit for bit. Cancelled events stay in the heap
 * and are skipped when they surface (cheaper than removal from the middle).
 *
 * ```
 *  heap (array, parent of i at (i - 1) >> 1):   [ e0 | e1 e2 | e3 e4 e5 e6 | ... ]
 *  order: time, then seq (insertion order)
 * ```
 * The Simulation implements the Clock contract (src/clock.ts), so policies tuned in the simulator
 * take the same clock object as in the runtime.
 */
import type { Clock, TimerHandle } from '../clock.js';

interface SimEvent extends TimerHandle {
  readonly id: number;
  time: number;
  seq: number;
  fn: (() => void) | null;
}

export class Simulation implements Clock {
  private heap: SimEvent[] = [];
  private seq = 0;
  private current = 0;
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
    const event: SimEvent = { id: this.seq, time: time < this.current ? this.current : time, seq: this.seq++, fn };
    this.push(event);
    return event;
  }

  cancel(handle: TimerHandle): void {
    (handle as SimEvent).fn = null;
  }

  /** Events waiting (cancelled ones included until they surface). */
  get pending(): number {
    return this.heap.length;
  }

  /** Time of the next live event, or Infinity. */
  peekTime(): number {
    this.dropCancelled();
    return this.heap.length > 0 ? this.heap[0]!.time : Infinity;
  }

  /** Runs the next live event; false when there is none. */
  step(): boolean {
    this.dropCancelled();
    const event = this.pop();
    if (event === undefined) return false;
    this.current = event.time;
    const fn = event.fn!;
    event.fn = null;
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

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0]!.fn === null) this.pop();
  }

  private static before(a: SimEvent, b: SimEvent): boolean {
    return a.time < b.time || (a.time === b.time && a.seq < b.seq);
  }

  private push(event: SimEvent): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!Simulation.before(event, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = event;
  }

  private pop(): SimEvent | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      const n = heap.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && Simulation.before(heap[r]!, heap[l]!) ? r : l;
        if (!Simulation.before(heap[c]!, last)) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}
