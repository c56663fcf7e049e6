/**
 * The Clock contract: time in seconds as a float, and timers. Policies (rail choice, batch plans,
 * balancing) take their time from a Clock, never from `performance.now()` directly, so that the
 * simulator can hand them its virtual clock and the runtime the real one.
 */
export interface Clock {
  /** Seconds since an arbitrary origin fixed for the life of the clock. */
  now(): number;
  /** Calls `fn` after `seconds`; returns a handle for {@link Clock.cancel}. */
  schedule(seconds: number, fn: () => void): TimerHandle;
  /** Cancels a timer; cancelling a fired or cancelled timer does nothing. */
  cancel(handle: TimerHandle): void;
  /**
   * Seconds since the Unix epoch at `now() === 0`, for clocks that follow the wall clock (so
   * that timelines of several threads and processes line up); absent for virtual clocks.
   */
  readonly epoch?: number;
}

/** An opaque timer handle. */
export interface TimerHandle {
  readonly id: number;
}

interface RealTimer extends TimerHandle {
  timeout: ReturnType<typeof setTimeout> | undefined;
}

const hrtime = process.hrtime;

/**
 * Milliseconds of the system's monotonic clock, the same in every thread and process of a machine.
 * Not `performance.now()`: the first touch of `performance` loads perf_hooks and its nine modules
 * (~1.3 ms of every fresh rank thread's start), and each read of the global goes through a getter.
 */
export function monotonicMillis(): number {
  const t = hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}

let wallAnchor: number | undefined;

/**
 * Milliseconds since the Unix epoch, read as the monotonic clock plus this thread's anchor
 * ({@link wallAnchorMillis}). Every thread and process of a machine agrees to microseconds.
 */
export function wallClockMillis(): number {
  return wallAnchorMillis() + monotonicMillis();
}

/**
 * The wall clock less the monotonic clock, in ms, taken once per thread: the system's wall clock
 * at the moment its millisecond ticks over, less the monotonic clock read right after (a lower
 * bound within a read's time of the truth; the largest of three). Not `performance.timeOrigin`:
 * each process fixes it at start-up from two clocks read one after the other, and a process
 * started on a busy machine was measured 4 ms off its neighbours (a timeline's clock probe
 * between two processes of one machine read an offset of -4.1 ms with a round trip of 0.28 ms).
 */
function wallAnchorMillis(): number {
  if (wallAnchor === undefined) {
    let best = -Infinity;
    for (let sample = 0; sample < 3; sample++) {
      const before = Date.now();
      let now = before;
      let after = 0;
      // At most a millisecond of spinning per sample, once per thread, when a timeline or a clock probe needs it.
      while (now === before) {
        now = Date.now();
        after = monotonicMillis();
      }
      best = Math.max(best, now - after);
    }
    wallAnchor = best;
  }
  return wallAnchor;
}

/** The wall clock: the monotonic clock and `setTimeout` (timers do not keep the process alive). */
export class RealClock implements Clock {
  private nextId = 1;
  private epochSeconds: number | undefined;

  /** Read when a timeline is written, not at start-up: anchoring the wall clock spins up to 3 ms. */
  get epoch(): number {
    this.epochSeconds ??= wallAnchorMillis() / 1000;
    return this.epochSeconds;
  }

  now(): number {
    return monotonicMillis() / 1000;
  }

  schedule(seconds: number, fn: () => void): TimerHandle {
    const handle: RealTimer = { id: this.nextId++, timeout: undefined };
    handle.timeout = setTimeout(() => {
      handle.timeout = undefined;
      fn();
    }, Math.max(0, seconds * 1000));
    handle.timeout.unref();
    return handle;
  }

  cancel(handle: TimerHandle): void {
    const timer = handle as RealTimer;
    if (timer.timeout !== undefined) {
      clearTimeout(timer.timeout);
      timer.timeout = undefined;
    }
  }
}

/** The one real clock of a thread. */
export const realClock: Clock = new RealClock();
