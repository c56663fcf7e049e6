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

/** The wall clock: `performance.now()` and `setTimeout` (timers do not keep the process alive). */
export class RealClock implements Clock {
  private nextId = 1;
  /** Each thread's `performance.now()` has its own origin: this one's, in epoch seconds. */
  readonly epoch = performance.timeOrigin / 1000;

  now(): number {
    return performance.now() / 1000;
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
