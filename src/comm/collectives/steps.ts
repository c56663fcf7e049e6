/**
 * A collective written once as a generator of steps, run two ways. Each step yields what the
 * algorithm waits for next (one request, or all of several) and gets back the result. The
 * blocking call (`comm.allreduce`) awaits each step in turn; the nonblocking one
 * (`comm.iallreduce`) is a ScheduleRequest that the rank's progress advances whenever it polls or
 * looks at its waits, so the collective moves on while the program computes between `test()`
 * calls, without an await (an async function would only resume once the program yields).
 *
 * A step yields its request itself (`const status = (yield receive) as Status`), not through a
 * helper generator: every generator a call creates, and every level of `yield*` each step passes
 * through, costs a small collective a share of its time that shows in `npm run bench --
 * collectives`. An algorithm chosen at run time is returned by a plain function (no generator
 * around it) for the same reason.
 */
import type { BackgroundTask } from '../background.js';
import { Request, waitAll, waitAllAfterSpin, type RequestDriver } from '../request.js';

/** What one step waits for: a request (its result comes back), or all of several (nothing back). */
export type Awaitable = Request<unknown> | readonly Request<unknown>[];
/** A collective's steps, returning its result. */
export type Steps<T> = Generator<Awaitable, T, unknown>;

/** A one-step schedule with nothing left to wait for (its sends left at once). */
export const NOTHING_LEFT: Awaitable = Object.freeze([]);

/** What a one-step schedule waits for: its receive and its send, either of which may be none. */
export function stepOf(receive: Request<unknown> | undefined, send: Request<unknown> | undefined): Awaitable {
  if (receive !== undefined && send !== undefined) return [receive, send];
  return receive ?? send ?? NOTHING_LEFT;
}

/** The steps, then `result` (a collective that fills a caller's buffer returns the buffer). */
export function* withResult<T>(steps: Steps<unknown>, result: T): Steps<T> {
  yield* steps;
  return result;
}

/**
 * A schedule of one step (a leaf's receive, a root's one send, a 2-rank barrier's pair) run
 * without steps: resolves to `result` once its requests complete, and rejects with the first
 * failure. The generator of steps and their drive were a third of a 2-rank bcast's time on each
 * side. Not for a traced rank (each awaited step is a round of the call's slice there: run the
 * steps).
 */
export function runStepFor<T>(step: Awaitable, result: T): Promise<T> {
  if (isRequest(step)) {
    if (!step.settleNow()) return awaitStepFor(step, result);
    try {
      step.takeNow();
    } catch (error) {
      return Promise.reject(error);
    }
    return resolvedWith(result);
  }
  const settled = settleAllNow(step);
  if (settled === false) return awaitStepFor(step, result);
  return settled === true ? resolvedWith(result) : Promise.reject(settled.error);
}

// The promise of the last call that completed at once, for the next one with the same result: a
// loop of small collectives into one buffer makes no promise per call. (A settled promise may be
// awaited any number of times.)
let lastResult: unknown;
let lastResolved: Promise<unknown> = Promise.resolve(undefined);

/** A settled promise of `result` (the last one made, when it was for the same result). */
export function settledWith<T>(result: T): Promise<T> {
  return resolvedWith(result);
}

function resolvedWith<T>(result: T): Promise<T> {
  if (result !== lastResult) {
    lastResult = result;
    lastResolved = Promise.resolve(result);
  }
  return lastResolved as Promise<T>;
}

/** The rest of {@link runStepFor} once the step's spin is over; an async function (not a `then`), so that a failure's stack reaches the program's await. */
async function awaitStepFor<T>(step: Awaitable, result: T): Promise<T> {
  await (isRequest(step) ? step.waitAfterSpin() : waitAllAfterSpin(step));
  return result;
}

/** Runs the steps to the end, awaiting each (a blocking collective). */
export function runSteps<T>(steps: Steps<T>): Promise<T> {
  return drive(steps, false, undefined) as Promise<T>;
}

/** Runs the steps to the end, then resolves to `result` (a collective that fills a caller's buffer). */
export function runStepsFor<T>(steps: Steps<unknown>, result: T): Promise<T> {
  return drive(steps, true, result) as Promise<T>;
}

/**
 * Runs the steps that complete at once here, in a plain function: an async function's promise
 * and frame were a tenth of a small collective's time. The first step that must wait hands the
 * rest to {@link driveAsync}. A failure rejects the promise, as from an async function.
 */
function drive(steps: Steps<unknown>, fixed: boolean, fixedResult: unknown): Promise<unknown> {
  let next: IteratorResult<Awaitable, unknown>;
  try {
    next = steps.next();
    while (next.done !== true) {
      const awaited = next.value;
      if (isRequest(awaited)) {
        if (awaited.driver.tracer !== undefined) return driveAsync(steps, next, false, fixed, fixedResult);
        if (!awaited.settleNow()) return driveAsync(steps, next, true, fixed, fixedResult);
        let result: unknown;
        try {
          result = awaited.takeNow();
        } catch (error) {
          next = steps.throw(error);
          continue;
        }
        next = steps.next(result);
        continue;
      }
      if (awaited[0]?.driver.tracer !== undefined) return driveAsync(steps, next, false, fixed, fixedResult);
      // Several requests (sends that left at once, receives already in): the steps take nothing
      // back from them, and a failure is thrown into the steps as waitAll would.
      const settled = settleAllNow(awaited);
      if (settled === false) return driveAsync(steps, next, true, fixed, fixedResult);
      next = settled === true ? steps.next(undefined) : steps.throw(settled.error);
    }
  } catch (error) {
    return Promise.reject(error);
  }
  return Promise.resolve(fixed ? fixedResult : next.value);
}

/** The rest of {@link drive} from step `next` on (`spun`: that step's requests have had their spin). */
async function driveAsync(steps: Steps<unknown>, next: IteratorResult<Awaitable, unknown>, spun: boolean, fixed: boolean, fixedResult: unknown): Promise<unknown> {
  let round = 0;
  while (next.done !== true) {
    const awaited = next.value;
    let result: unknown;
    const trace = (isRequest(awaited) ? awaited : awaited[0])?.driver.tracer;
    if (trace === undefined && isRequest(awaited)) {
      // A step whose request completes within the spin goes on at once: an await of a settled
      // promise cost each step a turn of the microtask queue (two per round of a barrier).
      try {
        result = !spun && awaited.settleNow() ? awaited.takeNow() : await awaited.waitAfterSpin();
      } catch (error) {
        spun = false;
        next = steps.throw(error);
        continue;
      }
      spun = false;
      next = steps.next(result);
      continue;
    }
    if (trace === undefined && !isRequest(awaited)) {
      const settled = spun ? false : settleAllNow(awaited);
      spun = false;
      if (settled === true) {
        next = steps.next(undefined);
        continue;
      }
      if (settled !== false) {
        next = steps.throw(settled.error);
        continue;
      }
      try {
        await waitAllAfterSpin(awaited);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(undefined);
      continue;
    }
    // Each step the collective waits for is a round of its slice in the timeline.
    const slice = trace === undefined ? 0 : trace.begin(`round ${++round}`, '', -1, -1);
    try {
      if (trace !== undefined) trace.mute++;
      let waiting: Promise<unknown>;
      try {
        waiting = isRequest(awaited) ? awaited.wait() : waitAll(awaited);
      } finally {
        if (trace !== undefined) trace.mute--;
      }
      result = await waiting;
    } catch (error) {
      trace?.end(slice);
      next = steps.throw(error);
      continue;
    }
    trace?.end(slice);
    next = steps.next(result);
  }
  return fixed ? fixedResult : next.value;
}

/**
 * Spins on each request in turn as a wait would: true once all are complete and none failed,
 * the first failure in order when one did (all are then reported), false when one is still
 * pending after its spin (the caller awaits the rest).
 */
function settleAllNow(requests: readonly Request<unknown>[]): boolean | { error: unknown } {
  for (let i = 0; i < requests.length; i++) if (!requests[i]!.settleNow()) return false;
  for (let i = 0; i < requests.length; i++) {
    const request = requests[i]!;
    if (request.failed) {
      try {
        request.takeNow();
      } catch (error) {
        return { error };
      }
    }
  }
  return true;
}

function isRequest(awaited: Awaitable): awaited is Request<unknown> {
  return awaited instanceof Request;
}

/**
 * A nonblocking collective: a request that completes when its steps end. `advance` runs every
 * step whose requests are done; the endpoint calls it from its polls and waits until it returns
 * true. The first steps run at once, so the call's first messages leave before it returns.
 */
export class ScheduleRequest<T> extends Request<T> implements BackgroundTask {
  private readonly steps: Steps<T>;
  private awaiting: Awaitable | undefined = undefined;

  constructor(driver: RequestDriver, call: { readonly operation: string; readonly context: number; readonly tag: number }, steps: Steps<T>) {
    super(driver, call.operation, -1, call.tag, call.context);
    this.steps = steps;
  }

  advance(): boolean {
    for (;;) {
      let input: unknown;
      let failure: { error: unknown } | undefined;
      const awaited = this.awaiting;
      if (awaited !== undefined) {
        if (isRequest(awaited)) {
          if (!awaited.done) return false;
          if (awaited.failed) failure = { error: awaited.error };
          else input = awaited.result;
        } else {
          for (const request of awaited) if (!request.done) return false;
          const failed = awaited.find((request) => request.failed);
          if (failed !== undefined) failure = { error: failed.error };
        }
      }
      let next: IteratorResult<Awaitable, T>;
      try {
        next = failure === undefined ? this.steps.next(input) : this.steps.throw(failure.error);
      } catch (error) {
        this.awaiting = undefined;
        this.fail(error);
        return true;
      }
      if (next.done === true) {
        this.awaiting = undefined;
        this.complete(next.value);
        return true;
      }
      this.awaiting = next.value;
    }
  }

  /** A nonblocking collective cannot be cancelled (MPI forbids it). */
  override cancel(): boolean {
    return false;
  }
}
