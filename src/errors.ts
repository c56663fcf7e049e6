/**
 * Every error tsmpi throws: one base class with a stable string `code`, the rank that raised it,
 * the operation it was in and a hint that says what to change. Callers and tests match on `code`;
 * the message is for people. An error that crosses ranks travels as {@link TsmpiErrorData}.
 *
 * @example
 * ```ts
 * try { await comm.recvInto(small, 0); }
 * catch (err) { if (err instanceof TsmpiError && err.code === ErrorCode.Truncate) ... }
 * ```
 */

/** Stable error codes. The string values are the contract; never rename one. */
export const ErrorCode = {
  /** A rank argument is outside `0 .. size-1` (or not ANY_SOURCE where that is allowed). */
  Rank: 'TSMPI_ERR_RANK',
  /** A tag is negative, too large, or ANY_TAG where a concrete tag is needed. */
  Tag: 'TSMPI_ERR_TAG',
  /** A message is larger than the buffer that receives it. */
  Truncate: 'TSMPI_ERR_TRUNCATE',
  /** A value cannot be encoded (functions, symbols, ...). */
  Encode: 'TSMPI_ERR_ENCODE',
  /** A buffer receive got an encoded value, or a typed-array operation got something else. */
  Type: 'TSMPI_ERR_TYPE',
  /** Counts, lengths or displacements that do not add up. */
  Count: 'TSMPI_ERR_COUNT',
  /** A reduction operation that does not apply to the value given. */
  Op: 'TSMPI_ERR_OP',
  /** Any other invalid argument. */
  Arg: 'TSMPI_ERR_ARG',
  /** A configuration variable or command-line option with an invalid value. */
  Config: 'TSMPI_ERR_CONFIG',
  /** init() could not build the world. */
  Init: 'TSMPI_ERR_INIT',
  /** This rank is not a member of the communicating group (TSMPI_CG_PER_PROCESS, TSMPI_MAPPING_FILE). */
  NotMember: 'TSMPI_ERR_NOT_MEMBER',
  /** The communicator was freed, or the runtime finalised. */
  Closed: 'TSMPI_ERR_CLOSED',
  /** The request was cancelled. */
  Cancelled: 'TSMPI_ERR_CANCELLED',
  /** A buffered send without an attached buffer, or one that does not fit it (MPI_ERR_BUFFER). */
  Buffer: 'TSMPI_ERR_BUFFER',
  /** A group that does not fit the call: not within the communicator, or not the same on every rank (MPI_ERR_GROUP). */
  Group: 'TSMPI_ERR_GROUP',
  /** The job is being aborted because a rank failed. */
  Aborted: 'TSMPI_ERR_ABORTED',
  /** No rank made progress for the hang timeout. */
  Hang: 'TSMPI_ERR_HANG',
  /** A peer finalized or exited: a receive from it, a send to it, can never complete. */
  PeerGone: 'TSMPI_ERR_PEER_GONE',
  /** A transport (ring, socket) failed. */
  Transport: 'TSMPI_ERR_TRANSPORT',
  /** A request used where its state forbids it: a persistent request started while active (MPI_ERR_REQUEST). */
  Request: 'TSMPI_ERR_REQUEST',
  /** A task of a task pool failed: its handler threw, or the rank holding it was lost. */
  Task: 'TSMPI_ERR_TASK',
  /** A known error not in this list (MPI_ERR_OTHER): what a program passes to callErrhandler for its own failures. */
  Other: 'TSMPI_ERR_OTHER',
  /** An internal invariant broke: a bug in tsmpi. */
  Internal: 'TSMPI_ERR_INTERNAL',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The plain-data form of an error, as it travels between ranks and to the launcher. */
export interface TsmpiErrorData {
  code: ErrorCodeValue;
  message: string;
  rank: number;
  operation: string;
  hint: string;
  stack?: string;
}

export interface TsmpiErrorInit {
  /** The world rank that raised the error; -1 for the launcher. */
  rank?: number;
  /** The operation, e.g. `recv`, `allreduce`, `tsmpi run`. */
  operation: string;
  /** What to change. */
  hint?: string;
  cause?: unknown;
}

/** The one error class of tsmpi. */
/** Marks a TsmpiError made by any copy of this module (see Symbol.hasInstance below). */
const TSMPI_ERROR = Symbol.for('tsmpi.TsmpiError');

export class TsmpiError extends Error {
  readonly code: ErrorCodeValue;
  readonly rank: number;
  readonly operation: string;
  readonly hint: string;
  /** What went wrong, without the rank, the operation and the hint that `message` adds. */
  readonly detail: string;

  constructor(code: ErrorCodeValue, message: string, init: TsmpiErrorInit) {
    const rank = init.rank ?? -1;
    const where = rank >= 0 ? `rank ${rank}, ${init.operation}` : init.operation;
    const hint = init.hint ?? '';
    super(`${where}: ${message}${hint ? ` (hint: ${hint})` : ''}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TsmpiError';
    this.code = code;
    this.rank = rank;
    this.operation = init.operation;
    this.hint = hint;
    this.detail = message;
    Object.defineProperty(this, TSMPI_ERROR, { value: true });
  }

  /**
   * `instanceof TsmpiError` holds for errors made by any copy of tsmpi's code: the runtime a
   * program imports (dist/tsmpi.js), the simulator's bundle and the CLI's modules are separate
   * copies of this class. Subclasses keep the ordinary prototype test.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== TsmpiError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TSMPI_ERROR] === true;
  }

  /** The data form, for sending to another rank or the launcher. */
  toData(): TsmpiErrorData {
    const data: TsmpiErrorData = {
      code: this.code,
      message: this.message,
      rank: this.rank,
      operation: this.operation,
      hint: this.hint,
    };
    if (this.stack !== undefined) data.stack = this.stack;
    return data;
  }

  /** Rebuilds an error from its data form; the message is kept as it was written. */
  static fromData(data: TsmpiErrorData): TsmpiError {
    const err = new TsmpiError(data.code, data.message, { rank: data.rank, operation: data.operation, hint: data.hint });
    err.message = data.message;
    if (data.stack !== undefined) err.stack = data.stack;
    return err;
  }
}

/** True for a value that is a TsmpiError with the given code. */
export function isTsmpiError(value: unknown, code?: ErrorCodeValue): value is TsmpiError {
  return value instanceof TsmpiError && (code === undefined || value.code === code);
}
