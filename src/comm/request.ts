/**
 * Non-blocking operations return a Request. It completes from the rank's progress engine; waiting
 * on it first polls the rings for a short spin budget (a message already on its way costs no
 * sleep) and then sleeps until a frame arrives. Completion only flips the request's state; the
 * engine re-checks the conditions of its waiters after every poll, so a request costs no promise
 * unless someone awaits it.
 */
import type { RankTrace } from '../trace/rank-trace.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { WaitDescription } from '../transport/progress.js';
import { Status, UNDEFINED } from './status.js';

export { Status };

/** Describes an operation for hang reports: `recv from rank 3, tag 7, on world`. */
export type RequestDescription = WaitDescription;

/** What a Request needs from the engine that completes it. */
export interface RequestDriver {
  /** A program's poll (test and its forms): progresses once, then returns `check()`. */
  testPoll(check: () => boolean): boolean;
  /** Polls until `request` is done or the spin budget is spent (never sleeps). */
  spinFor(request: Request<unknown>): void;
  /** Resolves once `condition()` holds, polling meanwhile (spinning first, then sleeping). */
  waitUntil(condition: () => boolean, description: RequestDescription, spun?: boolean): Promise<void>;
  /** Cancels a pending receive; returns true when it was still unmatched. */
  cancel(request: Request<unknown>): boolean;
  /** The rank's timeline recorder, when tracing. */
  readonly tracer?: RankTrace | undefined;
}

const PENDING = 0;
const DONE = 1;
const FAILED = 2;

const resolvedVoid: Promise<void> = Promise.resolve();

export class Request<T = unknown> implements RequestDescription {
  /** @internal */ state = PENDING;
  /**
   * @internal Set once a wait, test or any/all/some call has reported the completion: the
   * request is then inactive (MPI sets its handle to MPI_REQUEST_NULL), so the any/some forms
   * skip it; it keeps its result and status.
   */
  reported = false;
  /** @internal */ result: T | undefined = undefined;
  /** @internal */ error: unknown = undefined;
  /** @internal */ statusValue: Status | undefined = undefined;
  /** @internal */ readonly driver: RequestDriver;
  /** The operation, for hang reports and errors. */
  readonly operation: string;
  /** @internal What {@link peer} returns, unless a subclass looks it up when asked. */
  protected readonly peerRank: number;
  readonly tag: number;
  readonly context: number;

  /** @internal */
  constructor(driver: RequestDriver, operation: string, peer: number, tag: number, context: number) {
    this.driver = driver;
    this.operation = operation;
    this.peerRank = peer;
    this.tag = tag;
    this.context = context;
  }

  /** The peer (communicator rank; -1 for any source). */
  get peer(): number {
    return this.peerRank;
  }

  /** True once the operation finished (successfully or not). */
  get done(): boolean {
    return this.state !== PENDING;
  }

  /** @internal True once the operation failed (its error is in `error`). */
  get failed(): boolean {
    return this.state === FAILED;
  }

  /** False for REQUEST_NULL and once a wait, test or any/all/some call reported the completion. */
  get active(): boolean {
    return !this.reported;
  }

  /**
   * The status once complete (undefined while pending): a receive's matched source, tag and
   * bytes; for a send an empty status; for a failure its error code (cancelled set for a
   * cancelled receive or send).
   */
  get status(): Status | undefined {
    if (this.state === PENDING) return undefined;
    if (this.statusValue === undefined && this.state === DONE) this.statusValue = new Status();
    if (this.statusValue === undefined) {
      const code = this.error instanceof TsmpiError ? this.error.code : ErrorCode.Internal;
      this.statusValue = new Status(undefined, undefined, 0, code, code === ErrorCode.Cancelled);
    }
    return this.statusValue;
  }

  /**
   * Makes progress once and returns the status if the request has completed, without counting
   * as the call that completes it (MPI_Request_get_status); undefined while it is pending.
   */
  getStatus(): Status | undefined {
    if (this.state === PENDING) this.driver.testPoll(() => this.state !== PENDING);
    return this.status;
  }

  /** Waits for completion and returns the result (the received value for receives). */
  wait(): Promise<T> {
    if (this.state === PENDING) this.driver.spinFor(this);
    if (this.state !== PENDING) {
      this.reported = true;
      return this.settled();
    }
    return this.waitLong();
  }

  /**
   * @internal A wait without a promise when it can end now (a collective's step): spins as
   * {@link wait} does and returns true once the request is complete, its outcome reported (read
   * it with {@link takeNow}); false: finish the wait with {@link waitAfterSpin}.
   */
  settleNow(): boolean {
    if (this.state === PENDING) this.driver.spinFor(this);
    if (this.state === PENDING) return false;
    this.reported = true;
    return true;
  }

  /** @internal The outcome of a request {@link settleNow} found complete (throws its error). */
  takeNow(): T {
    return this.take();
  }

  /** @internal The rest of a wait whose spin {@link settleNow} has done. */
  waitAfterSpin(): Promise<T> {
    return this.waitLong();
  }

  /** An async function (not a `then`), so that a failure's stack reaches the program's await. */
  private async waitLong(): Promise<T> {
    // wait() has just spun for it: go straight to sleep (a second spin doubled the budget).
    await this.driver.waitUntil(() => this.state !== PENDING, this, true);
    this.reported = true;
    return this.take();
  }

  /** Makes progress once and reports whether the request has completed (never throws). */
  test(): boolean {
    const done = this.state !== PENDING || this.driver.testPoll(() => this.state !== PENDING);
    if (done) this.reported = true;
    return done;
  }

  /**
   * Cancels an operation no receive or send has matched yet (MPI_Cancel). A receive fails with
   * ERR_CANCELLED at once. A send is withdrawn from its receiver, which may live elsewhere, so
   * it completes a little later: failed with ERR_CANCELLED when withdrawn, normally when a
   * receive had matched it first. Either way `status.cancelled` says which, once it is complete.
   * Returns false when it is too late (complete, matched as far as this rank knows, a small send
   * whose bytes have left, a collective), true when the cancellation was made or started.
   */
  cancel(): boolean {
    return this.state === PENDING && this.driver.cancel(this);
  }

  /** @internal The settled promise of a completed request (shared for void results). */
  settled(): Promise<T> {
    if (this.state === FAILED) return Promise.reject(atCallSite(this.error));
    if (this.result === undefined) return resolvedVoid as Promise<T>;
    return Promise.resolve(this.result);
  }

  private take(): T {
    if (this.state === FAILED) throw atCallSite(this.error);
    return this.result as T;
  }

  /** @internal */
  complete(result: T, status?: Status): void {
    if (this.state !== PENDING) return;
    this.state = DONE;
    this.result = result;
    this.statusValue = status;
  }

  /** @internal */
  fail(error: unknown): void {
    if (this.state !== PENDING) return;
    this.state = FAILED;
    this.error = error;
  }

  /** @internal Pending again, active, without an outcome (a persistent request's start). */
  restart(): void {
    this.state = PENDING;
    this.reported = false;
    this.result = undefined;
    this.error = undefined;
    this.statusValue = undefined;
  }

  /**
   * @internal From now on this request completes as `inner` does, with its result and status
   * (`translate` rewrites the status: an intercommunicator's sources); pending meanwhile. A
   * persistent request's start and an intercommunicator's receive are such pairs.
   */
  follow(inner: Request<T>, translate?: (status: Status) => Status): void {
    const take = (): void => {
      if (inner.state === DONE) this.complete(inner.result as T, inner.statusValue !== undefined && translate !== undefined ? translate(inner.statusValue) : inner.statusValue);
      else if (inner.state === FAILED) this.fail(inner.error);
    };
    if (inner.state !== PENDING) {
      take();
      return;
    }
    const complete = inner.complete;
    const fail = inner.fail;
    inner.complete = (result: T, status?: Status): void => {
      complete.call(inner, result, status);
      if (this.state === PENDING) take();
    };
    inner.fail = (error: unknown): void => {
      fail.call(inner, error);
      if (this.state === PENDING) take();
    };
  }
}

const sited = new WeakSet<object>();

/**
 * A request's error is made where the failure was noticed: inside the progress engine, a frame
 * handler, a socket callback. The program wants to see its own line: the frames of the call
 * that is waiting for it (after an `await`, V8 lists the awaiting async functions) go on top of
 * the stack, the frames where tsmpi noticed it below. Done once per error.
 */
function atCallSite(error: unknown): unknown {
  if (!(error instanceof TsmpiError) || sited.has(error)) return error;
  sited.add(error);
  const here = new Error().stack?.split('\n').slice(2) ?? [];
  const original = error.stack?.split('\n').slice(1) ?? [];
  error.stack = [`${error.name}: ${error.message}`, ...here, ...original.filter((frame) => !here.includes(frame))].join('\n');
  return error;
}

type Results<T extends readonly Request<unknown>[]> = { -readonly [K in keyof T]: T[K] extends Request<infer R> ? R : never };

/**
 * Waits for every request; returns their results in order. If any failed, the first failure (in
 * request order) is thrown once all have finished. One wait for the lot: progress is global, so
 * the engine spins (then sleeps) until the last request completes.
 */
export function waitAll<T extends readonly Request<unknown>[]>(requests: T): Promise<Results<T>> {
  const trace = requests[0]?.driver.tracer;
  if (trace !== undefined && trace.mute === 0) return trace.around('waitAll', '', -1, -1, () => waitAllNow(requests));
  return waitAllNow(requests);
}

function waitAllNow<T extends readonly Request<unknown>[]>(requests: T): Promise<Results<T>> {
  let next = 0;
  const allDone = (): boolean => {
    while (next < requests.length && requests[next]!.state !== PENDING) next++;
    return next === requests.length;
  };
  if (allDone()) return settleAll(requests);
  return waitAllLong(requests, allDone, requests[next]!);
}

/** @internal {@link waitAll} for requests whose wait has spun already (a collective's step): it sleeps at once. */
export function waitAllAfterSpin<T extends readonly Request<unknown>[]>(requests: T): Promise<Results<T>> {
  let next = 0;
  const allDone = (): boolean => {
    while (next < requests.length && requests[next]!.state !== PENDING) next++;
    return next === requests.length;
  };
  if (allDone()) return settleAll(requests);
  return waitAllLong(requests, allDone, requests[next]!, true);
}

async function waitAllLong<T extends readonly Request<unknown>[]>(requests: T, allDone: () => boolean, first: Request<unknown>, spun = false): Promise<Results<T>> {
  await first.driver.waitUntil(allDone, { operation: 'waitAll', peer: first.peer, tag: first.tag, context: first.context }, spun);
  return settleAll(requests);
}

function settleAll<T extends readonly Request<unknown>[]>(requests: T): Promise<Results<T>> {
  const results: unknown[] = new Array(requests.length);
  for (const r of requests) r.reported = true;
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    if (r.state === FAILED) return Promise.reject(atCallSite(r.error));
    results[i] = r.result;
  }
  return Promise.resolve(results as Results<T>);
}

/**
 * Waits until one active request completes; returns its index, result and status (lowest index on
 * ties) and makes it inactive, so the next call returns another. With no active request (none,
 * or all inactive: REQUEST_NULL, or reported already) the index is UNDEFINED (MPI_Waitany).
 */
export async function waitAny<T>(requests: readonly Request<T>[]): Promise<{ index: number; value: T; status: Status }> {
  await tracedWait('waitAny', requests, () => untilOneDone(requests, 'waitAny'));
  const index = firstDone(requests);
  if (index === UNDEFINED) return { index, value: undefined as T, status: new Status() };
  const request = requests[index]!;
  request.reported = true;
  return { index, value: await request.settled(), status: request.status! };
}

/** A wait of several requests as a slice of the timeline, when the rank traces. */
function tracedWait(name: string, requests: readonly Request<unknown>[], run: () => Promise<void>): Promise<void> {
  const trace = requests[0]?.driver.tracer;
  return trace !== undefined && trace.mute === 0 ? trace.around(name, '', -1, -1, run) : run();
}

/** Polls once; true when every request has completed (all of them are then inactive). */
export function testAll(requests: readonly Request<unknown>[]): boolean {
  const all = (): boolean => requests.every((r) => r.done);
  const done = all() || requests[0]!.driver.testPoll(all);
  if (done) for (const r of requests) r.reported = true;
  return done;
}

/**
 * Polls once; the index of an active request that has completed (then inactive), -1 when the
 * active ones are all still pending, UNDEFINED when no request is active (MPI_Testany's flag
 * true with index MPI_UNDEFINED). Test `index === -1` to loop until one completes.
 */
export function testAny(requests: readonly Request<unknown>[]): number {
  pollForOne(requests);
  const index = firstDone(requests);
  if (index >= 0) requests[index]!.reported = true;
  return index;
}

/**
 * Waits until at least one active request completes; returns the indices of all active ones
 * that have, with their results and statuses, and makes them inactive (MPI_Waitsome). Undefined
 * when no request is active (MPI's outcount MPI_UNDEFINED).
 */
export async function waitSome<T>(requests: readonly Request<T>[]): Promise<Some<T> | undefined> {
  await tracedWait('waitSome', requests, () => untilOneDone(requests, 'waitSome'));
  return collectSome(requests);
}

/**
 * Polls once; the active requests that have completed (MPI_Testsome): their indices (none yet:
 * an empty list), results and statuses, then inactive. Undefined when no request is active.
 */
export function testSome<T>(requests: readonly Request<T>[]): Some<T> | undefined {
  pollForOne(requests);
  return collectSome(requests);
}

/**
 * Polls once; the index and status of an active request that has completed, without making it
 * inactive (MPI-4.1's MPI_Request_get_status_any): index -1 while the active ones are pending,
 * UNDEFINED when none is active.
 */
export function getStatusAny(requests: readonly Request<unknown>[]): { index: number; status: Status | undefined } {
  pollForOne(requests);
  const index = firstDone(requests);
  return { index, status: index >= 0 ? requests[index]!.status : index === UNDEFINED ? new Status() : undefined };
}

/**
 * Polls once; every request's status when all have completed, else undefined, without making
 * them inactive (MPI_Request_get_status_all). Inactive requests give an empty status.
 */
export function getStatusAll(requests: readonly Request<unknown>[]): Status[] | undefined {
  const all = (): boolean => requests.every((r) => r.done);
  if (!all() && !requests[0]!.driver.testPoll(all)) return undefined;
  return requests.map((r) => (r.reported ? new Status() : r.status!));
}

/**
 * Polls once; the indices and statuses of the active requests that have completed, without
 * making them inactive (MPI_Request_get_status_some); undefined when none is active.
 */
export function getStatusSome(requests: readonly Request<unknown>[]): { indices: number[]; statuses: Status[] } | undefined {
  pollForOne(requests);
  if (firstDone(requests) === UNDEFINED) return undefined;
  const some = { indices: [] as number[], statuses: [] as Status[] };
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    if (r.reported || r.state === PENDING) continue;
    some.indices.push(i);
    some.statuses.push(r.status!);
  }
  return some;
}

/** What waitSome and testSome return. */
export interface Some<T> {
  indices: number[];
  values: T[];
  statuses: Status[];
}

/** The lowest index of an active request that has completed; -1 if none has; UNDEFINED if none is active. */
function firstDone(requests: readonly Request<unknown>[]): number {
  let active = false;
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    if (r.reported) continue;
    if (r.state !== PENDING) return i;
    active = true;
  }
  return active ? -1 : UNDEFINED;
}

/** Waits (spinning, then sleeping) until an active request has completed, if any is active and none has. */
async function untilOneDone(requests: readonly Request<unknown>[], operation: string): Promise<void> {
  if (firstDone(requests) !== -1) return;
  const first = requests.find((r) => !r.reported)!;
  await first.driver.waitUntil(() => firstDone(requests) !== -1, { operation, peer: first.peer, tag: first.tag, context: first.context });
}

/** The program's poll for the any/some forms: progress once, unless one has completed or none is active. */
function pollForOne(requests: readonly Request<unknown>[]): void {
  if (firstDone(requests) === -1) requests.find((r) => !r.reported)!.driver.testPoll(() => firstDone(requests) !== -1);
}

/** The completed active requests, made inactive; throws the first failure among them. */
function collectSome<T>(requests: readonly Request<T>[]): Some<T> | undefined {
  if (firstDone(requests) === UNDEFINED) return undefined;
  const some: Some<T> = { indices: [], values: [], statuses: [] };
  let failure: unknown;
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    if (r.reported || r.state === PENDING) continue;
    r.reported = true;
    some.indices.push(i);
    some.statuses.push(r.status!);
    some.values.push(r.result as T);
    if (r.state === FAILED && failure === undefined) failure = r.error;
  }
  if (failure !== undefined) throw atCallSite(failure);
  return some;
}

/** A sendrecv's two requests, started together: the received value once both have completed. */
export async function receivedWhenSent<T>(receive: Request<T>, send: Request<void>): Promise<T> {
  const result = await receive.wait();
  await send.wait();
  return result;
}

/** The driver of requests that are complete when made: nothing to progress, nothing to cancel. */
const inert: RequestDriver = {
  testPoll: (check) => check(),
  spinFor: () => {},
  waitUntil: () => Promise.resolve(),
  cancel: () => false,
};

/** @internal A request complete when made (an operation on a null peer or message), still active. */
export function completedRequest<T>(operation: string, peer: number, tag: number, result: T, status?: Status): Request<T> {
  const request = new Request<T>(inert, operation, peer, tag, -1);
  request.complete(result, status);
  return request;
}

/** A request that is no operation (MPI_REQUEST_NULL): complete, inactive, with an empty status. */
export const REQUEST_NULL: Request<undefined> = (() => {
  const request = completedRequest<undefined>('REQUEST_NULL', -1, -1, undefined, new Status());
  request.reported = true;
  return request;
})();
