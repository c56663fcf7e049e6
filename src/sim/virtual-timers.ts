/**
 * A simulated rank's own timers in virtual time: under `tsmpi sim`, `setTimeout` and
 * `setInterval` called by a rank's code wait in the rank's clock, as `comm.sleep` does, so a
 * program that paces itself with timers (a handler that waits 10 ms, a periodic report) takes the
 * same virtual time as it takes real time in a run. Outside a rank (the simulator's own code, its
 * progress bar) and before the rank's init(), timers are Node's own. `timers/promises` and
 * `setImmediate` are left as they are (one turn of the event loop is not time).
 */

/** What schedules a rank's timer: the rank's progress, once it has one. */
export interface TimerHost {
  startTimer(seconds: number, fn: () => void): () => void;
}

/** The handle a virtual setTimeout returns: Node's Timeout methods, for programs that call them. */
class VirtualTimeout {
  private static next = 1;
  readonly id = VirtualTimeout.next++;
  cancel: () => void;
  constructor(cancel: () => void) {
    this.cancel = cancel;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    return this;
  }
  close(): this {
    this.cancel();
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

type TimerFn = (...args: unknown[]) => void;

/**
 * Routes setTimeout / setInterval (and their clear functions) of code running as a rank to that
 * rank's virtual clock; returns the function that puts Node's own back.
 */
export function installVirtualTimers(hostNow: () => TimerHost | undefined): () => void {
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval };
  const delayOf = (ms: unknown): number => Math.max(0, Number(ms) || 0) / 1000;
  const clear = (handle: unknown, realClear: (h: never) => void): void => {
    if (handle instanceof VirtualTimeout) handle.cancel();
    else realClear(handle as never);
  };
  globalThis.setTimeout = ((fn: TimerFn, ms?: number, ...args: unknown[]) => {
    const host = hostNow();
    if (host === undefined || typeof fn !== 'function') return real.setTimeout(fn, ms, ...args);
    return new VirtualTimeout(host.startTimer(delayOf(ms), () => fn(...args)));
  }) as unknown as typeof setTimeout;
  globalThis.setInterval = ((fn: TimerFn, ms?: number, ...args: unknown[]) => {
    const host = hostNow();
    if (host === undefined || typeof fn !== 'function') return real.setInterval(fn, ms, ...args);
    // Node runs an interval of 0 every millisecond.
    const period = Math.max(delayOf(ms), 0.001);
    const timeout = new VirtualTimeout(() => {});
    let stop = (): void => {};
    const arm = (): void => {
      stop = host.startTimer(period, () => {
        arm();
        fn(...args);
      });
    };
    arm();
    timeout.cancel = () => stop();
    return timeout;
  }) as unknown as typeof setInterval;
  globalThis.clearTimeout = ((handle: unknown) => clear(handle, real.clearTimeout)) as typeof clearTimeout;
  globalThis.clearInterval = ((handle: unknown) => clear(handle, real.clearInterval)) as typeof clearInterval;
  return () => Object.assign(globalThis, real);
}
