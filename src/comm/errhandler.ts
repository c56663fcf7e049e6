/**
 * Error handlers (MPI_Errhandler; mpi4py's `MPI.Errhandler`): what a communicator, window or
 * session does when one of its calls fails.
 * - `Errhandler.ERRORS_RETURN` (every object's default, as mpi4py sets it): the call throws, or
 *   its promise rejects, with the TsmpiError.
 * - `Errhandler.ERRORS_ARE_FATAL`, `Errhandler.ERRORS_ABORT`: the error ends the whole job (the
 *   launcher reports it), as MPI's abort does.
 * - `Errhandler.create(fn)`: `fn(target, code, error)` runs first, then the call throws as with
 *   ERRORS_RETURN (a program that catches the error goes on, as after MPI's user handlers).
 *
 * A handle is a reference to a handler: `getErrhandler()` gives a new one each time, and freeing
 * it (`free()`) makes that handle null without touching the handler an object keeps.
 *
 * The handler applies to what a call of the object throws or rejects with: objects whose handler
 * is ERRORS_RETURN pay nothing, and the methods of a class are wrapped once, when an object of it
 * first takes another handler. An error a request reports at its wait is the request's.
 */
import { ErrorCode, TsmpiError, type ErrorCodeValue } from '../errors.js';

type Kind = 'return' | 'fatal' | 'abort' | 'user';

/** What a user handler is called with: the object whose call failed, the error's code, and the error (absent for callErrhandler). */
export type ErrhandlerFunction = (target: unknown, code: ErrorCodeValue, error?: TsmpiError) => void;

/** @internal A handler; the handles to it share it. */
export interface ErrhandlerBody {
  readonly kind: Kind;
  readonly name: string;
  readonly fn?: ErrhandlerFunction;
}

const RETURN: ErrhandlerBody = { kind: 'return', name: 'ERRORS_RETURN' };
const FATAL: ErrhandlerBody = { kind: 'fatal', name: 'ERRORS_ARE_FATAL' };
const ABORT: ErrhandlerBody = { kind: 'abort', name: 'ERRORS_ABORT' };

export class Errhandler {
  #body: ErrhandlerBody | undefined;
  readonly #predefined: boolean;

  private constructor(body: ErrhandlerBody | undefined, predefined: boolean) {
    this.#body = body;
    this.#predefined = predefined;
  }

  /** The null handle (MPI_ERRHANDLER_NULL): no handler. */
  static readonly NULL = new Errhandler(undefined, true);
  /** Errors are returned: the call throws (its promise rejects). The default of every object. */
  static readonly ERRORS_RETURN = new Errhandler(RETURN, true);
  /** Errors end the whole job. */
  static readonly ERRORS_ARE_FATAL = new Errhandler(FATAL, true);
  /** Errors end the whole job (MPI 4's handler that aborts the processes of the object's group; a tsmpi job is one group). */
  static readonly ERRORS_ABORT = new Errhandler(ABORT, true);

  /** A handler that calls `fn(target, code, error)` before the failed call throws (MPI_Comm_create_errhandler). */
  static create(fn: ErrhandlerFunction): Errhandler {
    if (typeof fn !== 'function') throw new TsmpiError(ErrorCode.Arg, `Errhandler.create needs a function, not ${typeof fn}`, { operation: 'Errhandler.create', hint: 'pass (target, code, error) => { ... }' });
    return new Errhandler({ kind: 'user', name: fn.name || 'user error handler', fn }, false);
  }

  /** True for the null handle and for a freed one. */
  get isNull(): boolean {
    return this.#body === undefined;
  }

  /** True when both handles refer to the same handler (both null included), as MPI compares handles. */
  equals(other: Errhandler): boolean {
    return other instanceof Errhandler && other.#body === this.#body;
  }

  /** Frees this handle (MPI_Errhandler_free): it becomes null; objects that use the handler keep it. */
  free(): void {
    if (this.#body === undefined) throw new TsmpiError(ErrorCode.Arg, 'free of a null error handler', { operation: 'Errhandler.free', hint: 'free each handle once; ERRHANDLER_NULL is not freed' });
    if (this.#predefined) throw new TsmpiError(ErrorCode.Arg, `free of the predefined ${this.#body.name}`, { operation: 'Errhandler.free', hint: 'free the handles getErrhandler() returns, not the predefined constants' });
    this.#body = undefined;
  }

  /** @internal The handler, or undefined for a null handle. */
  get body(): ErrhandlerBody | undefined {
    return this.#body;
  }

  /** @internal A new handle to `body` (what getErrhandler returns). */
  static handleTo(body: ErrhandlerBody): Errhandler {
    return new Errhandler(body, false);
  }
}

/** The null handle (MPI_ERRHANDLER_NULL). */
export const ERRHANDLER_NULL = Errhandler.NULL;
/** Errors are returned (thrown): every object's default. */
export const ERRORS_RETURN = Errhandler.ERRORS_RETURN;
/** Errors end the whole job. */
export const ERRORS_ARE_FATAL = Errhandler.ERRORS_ARE_FATAL;
/** Errors end the whole job (MPI 4). */
export const ERRORS_ABORT = Errhandler.ERRORS_ABORT;

/** What ends the job for a fatal handler (set by the public API's bootstrap: aborting is the launcher's business). */
let endJob: ((message: string) => never) | undefined;

/** @internal Sets what a fatal handler calls to end the job. */
export function setErrhandlerJobEnd(end: (message: string) => never): void {
  endJob = end;
}

/** An object whose calls an error handler governs. */
export interface ErrhandlerTarget {
  /** @internal Its handler, undefined while it is ERRORS_RETURN (nothing to do). */
  readonly errhandlerInEffect: ErrhandlerBody | undefined;
  readonly name: string;
}

/**
 * The handle a setErrhandler call was given, checked: the handler to keep (undefined for
 * ERRORS_RETURN). `operation` names the call in the error.
 */
function handlerToSet(handler: Errhandler, operation: string, rank: number): ErrhandlerBody {
  const body = handler instanceof Errhandler ? handler.body : undefined;
  if (body === undefined) {
    throw new TsmpiError(ErrorCode.Arg, handler instanceof Errhandler ? 'the error handler is null (ERRHANDLER_NULL, or freed)' : 'not an Errhandler', { rank, operation, hint: 'pass Errhandler.ERRORS_RETURN, ERRORS_ARE_FATAL, ERRORS_ABORT or one from Errhandler.create' });
  }
  return body;
}

/** Errors a handler has seen: a call that fails inside another's is handled once. */
const handled = new WeakSet<object>();

/** Applies `body` to `error`, a failure of a call of `target` (anything but a TsmpiError passes untouched). */
export function applyErrhandler(target: ErrhandlerTarget, body: ErrhandlerBody, error: unknown): void {
  if (!(error instanceof TsmpiError) || handled.has(error)) return;
  handled.add(error);
  invoke(target, body, error.code, error);
}

/** callErrhandler(code): runs the handler as an error of `code` would (ERRORS_RETURN does nothing). */
function callErrhandler(target: ErrhandlerTarget, body: ErrhandlerBody, code: ErrorCodeValue): void {
  invoke(target, body, code, undefined);
}

function invoke(target: ErrhandlerTarget, body: ErrhandlerBody, code: ErrorCodeValue, error: TsmpiError | undefined): void {
  if (body.kind === 'return') return;
  if (body.kind === 'user') {
    body.fn!(target, code, error);
    return;
  }
  const what = error?.message ?? `callErrhandler(${code})`;
  const message = `${what} (${body.name} on ${target.name})`;
  if (endJob === undefined) throw error ?? new TsmpiError(code, message, { operation: 'callErrhandler' });
  endJob(message);
}

const wrapped = new WeakSet<object>();

/**
 * Wraps the methods of `target`'s class and of the classes it extends (once each), so that a
 * failure of one applies the object's handler: a call that throws, and one whose promise rejects.
 */
export function wrapForErrhandlers(target: object, skip: ReadonlySet<string>): void {
  for (let proto = Object.getPrototypeOf(target) as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    if (wrapped.has(proto)) continue;
    wrapped.add(proto);
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === 'constructor' || skip.has(key)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (descriptor === undefined || typeof descriptor.value !== 'function') continue;
      const original = descriptor.value as (this: ErrhandlerTarget, ...args: unknown[]) => unknown;
      const governed = function (this: ErrhandlerTarget, ...args: unknown[]): unknown {
        const body = this.errhandlerInEffect;
        if (body === undefined) return original.apply(this, args);
        let result: unknown;
        try {
          result = original.apply(this, args);
        } catch (error) {
          applyErrhandler(this, body, error);
          throw error;
        }
        if (result instanceof Promise) {
          return result.then(undefined, (error: unknown) => {
            applyErrhandler(this, body, error);
            throw error;
          });
        }
        return result;
      };
      Object.defineProperty(governed, 'name', { value: original.name });
      Object.defineProperty(proto, key, { ...descriptor, value: governed });
    }
  }
}

/**
 * @internal The handler an object keeps, and what its getErrhandler, setErrhandler and
 * callErrhandler do: one place for communicators, windows and sessions.
 */
export class ErrhandlerSlot {
  #body: ErrhandlerBody;

  constructor(body: ErrhandlerBody = RETURN) {
    this.#body = body;
  }

  get body(): ErrhandlerBody {
    return this.#body;
  }

  /** The handler where it is not ERRORS_RETURN (which needs nothing done). */
  get inEffect(): ErrhandlerBody | undefined {
    return this.#body.kind === 'return' ? undefined : this.#body;
  }

  /** A new handle to the handler. */
  handle(): Errhandler {
    return Errhandler.handleTo(this.#body);
  }

  /** Keeps `handler` (checked) for `target`, whose class's methods it then governs; `ungoverned` names the methods it leaves alone. */
  set(target: ErrhandlerTarget, handler: Errhandler, operation: string, rank: number, ungoverned: ReadonlySet<string>): void {
    this.#body = handlerToSet(handler, operation, rank);
    if (this.#body.kind !== 'return') wrapForErrhandlers(target, ungoverned);
  }

  /** Runs the handler for `target` as an error of `code` would. */
  call(target: ErrhandlerTarget, code: ErrorCodeValue): void {
    callErrhandler(target, this.#body, code);
  }
}
