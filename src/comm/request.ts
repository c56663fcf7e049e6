/**
 * Non-blocking operations return a Request. It completes from the rank's progress engine; waiting
 * on it first polls the rings for a short spin budget (a message already on its way costs no
 * sleep) and then sleeps until a frame arrives. Completion only flips the request's state; the
 * engine re-checks the conditions of its waiters after every poll, so a request costs no promise
 * unless someone awaits it.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { WaitDescription } from '../transport/progress.js';

/** What a completed receive or probe reports. */
export interface Status {
  /** Rank of the sender in the communicator. */
  readonly source: number;
  readonly tag: number;
  /** Payload bytes of the message (encoded size for values that are not typed arrays). */
  readonly bytes: number;
}

/** Describes an operation for hang reports: `recv from rank 3, tag 7, on world`. */
export type RequestDescription = WaitDescription;

/** What a Request needs from the engine that completes it. */
export interface RequestDriver {
  /** A program's poll (test and its forms): progresses once, then returns `check()`. */
  testPoll(check: () => boolean): boolean;
  /** Polls until `request` is done or the spin budget is spent (never sleeps). */
  spinFor(request: Request<unknown>): void;
  /** Resolves once `condition()` holds, polling meanwhile (spinning first, then sleeping). */
  waitUntil(condition: () => boolean, description: RequestDescription): Promise<void>;
  /** Cancels a pending receive; returns true when it was still unmatched. */
  cancel(request: Request<unknown>): boolean;
}

const PENDING = 0;
const DONE = 1;
const FAILED = 2;

const resolvedVoid: Promise<void> = Promise.resolve();

export class Request<T = unknown> implements RequestDescription {
  /** @internal */ state = PENDING;
  /** @internal */ result: T | undefined = undefined;
  /** @internal */ error: unknown = undefined;
  /** @internal */ statusValue: Status | undefined = undefined;
  /** @internal */ readonly driver: RequestDriver;
  /** The operation, for hang reports and errors. */
  readonly operation: string;
  /** The peer (communicator rank; -1 for any source). */
  readonly peer: number;
  readonly tag: number;
  readonly context: number;

  /** @internal */
  constructor(driver: RequestDriver, operation: string, peer: number, tag: number, context: number) {
    this.driver = driver;
    this.operation = operation;
    this.peer = peer;
    this.tag = tag;
    this.context = context;
  }

  /** True once the operation finished (successfully or not). */
  get done(): boolean {
    return this.state !== PENDING;
  }

  /** @internal True once the operation failed (its error is in `error`). */
  get failed(): boolean {
    return this.state === FAILED;
  }

  /** The status of a completed receive; undefined for sends and pending requests. */
  get status(): Status | undefined {
    return this.statusValue;
  }

  /** Waits for completion and returns the result (the received value for receives). */
  wait(): Promise<T> {
    if (this.state === PENDING) this.driver.spinFor(this);
    if (this.state !== PENDING) return this.settled();
    return this.waitLong();
  }

  /** An async function (not a `then`), so that a failure's stack reaches the program's await. */
  private async waitLong(): Promise<T> {
    await this.driver.waitUntil(() => this.state !== PENDING, this);
    return this.take();
  }

  /** Makes progress once and reports whether the request has completed (never throws). */
  test(): boolean {
    return this.state !== PENDING || this.driver.testPoll(() => this.state !== PENDING);
  }

  /**
   * Cancels a receive that has not matched yet; it then fails with ERR_CANCELLED. Returns false
   * when it is too late (already matched or complete) or the request is a send.
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
  let next = 0;
  const allDone = (): boolean => {
    while (next < requests.length && requests[next]!.state !== PENDING) next++;
    return next === requests.length;
  };
  if (allDone()) return settleAll(requests);
  return waitAllLong(requests, allDone, requests[next]!);
}

async function waitAllLong<T extends readonly Request<unknown>[]>(requests: T, allDone: () => boolean, first: Request<unknown>): Promise<Results<T>> {
  await first.driver.waitUntil(allDone, { operation: 'waitAll', peer: first.peer, tag: first.tag, context: first.context });
  return settleAll(requests);
}

function settleAll<T extends readonly Request<unknown>[]>(requests: T): Promise<Results<T>> {
  const results: unknown[] = new Array(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    if (r.state === FAILED) return Promise.reject(atCallSite(r.error));
    results[i] = r.result;
  }
  return Promise.resolve(results as Results<T>);
}

/** Waits until one request completes; returns its index and result (lowest index on ties). */
export async function waitAny<T>(requests: readonly Request<T>[]): Promise<{ index: number; value: T }> {
  if (requests.length === 0) {
    throw new TsmpiError(ErrorCode.Arg, 'waitAny needs at least one request', { operation: 'waitAny', hint: 'pass a non-empty array' });
  }
  let index = testAny(requests);
  if (index < 0) {
    const first = requests[0]!;
    await first.driver.waitUntil(() => requests.some((r) => r.done), { operation: 'waitAny', peer: first.peer, tag: first.tag, context: first.context });
    index = requests.findIndex((r) => r.done);
  }
  return { index, value: await requests[index]!.wait() };
}

/** Polls once; true when every request has completed. */
export function testAll(requests: readonly Request<unknown>[]): boolean {
  const all = (): boolean => requests.every((r) => r.done);
  return all() || requests[0]!.driver.testPoll(all);
}

/** Polls once; the index of the first completed request, or -1. */
export function testAny(requests: readonly Request<unknown>[]): number {
  const any = (): boolean => requests.some((r) => r.done);
  if (requests.length > 0 && !any()) requests[0]!.driver.testPoll(any);
  return requests.findIndex((r) => r.done);
}
