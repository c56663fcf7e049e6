/**
 * Persistent requests (MPI_Send_init, MPI_Recv_init, MPI_Start, MPI_Startall): a request made
 * once with its arguments and started any number of times, as a halo exchange re-posts the same
 * sends and receives every step. Each start begins one ordinary operation; the persistent
 * request takes its outcome, so wait, test and the all/any/some forms treat it as any request.
 * Between starts it is inactive: a wait returns at once with an empty status.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { Request, type RequestDriver } from './request.js';
import { Status } from './status.js';

export class PersistentRequest<T = unknown> extends Request<T> {
  readonly #begin: () => Request<T>;
  readonly #rank: number;
  #current: Request<T> | undefined;
  #freed = false;

  /** @internal `begin` starts one operation with the request's arguments (checked when it was made). */
  constructor(driver: RequestDriver, operation: string, peer: number, tag: number, context: number, rank: number, begin: () => Request<T>) {
    super(driver, operation, peer, tag, context);
    this.#begin = begin;
    this.#rank = rank;
    // Inactive until started: complete, reported, an empty status (MPI's inactive persistent request).
    this.complete(undefined as T, new Status());
    this.reported = true;
  }

  /** Starts the operation again (MPI_Start); the request must be inactive: made, or its last start waited for or tested complete. */
  start(): void {
    this.checkStartable();
    const current = this.#begin();
    this.restart();
    this.#current = current;
    this.follow(current);
  }

  /** @internal Throws unless the request may start now (inactive, not freed). */
  checkStartable(): void {
    if (this.#freed) throw this.#error('start', `this persistent ${this.operation} was freed`, 'make a new one with sendInit / recvInit');
    if (!this.reported) {
      throw this.#error('start', `start of a persistent ${this.operation} that is still active (started, its completion not yet waited for or tested)`, 'wait for it (or test it until true) before starting it again');
    }
  }

  /** Cancels the operation of the current start, if it is still pending (MPI_Cancel on an active persistent request). */
  override cancel(): boolean {
    return !this.done && this.#current !== undefined && this.#current.cancel();
  }

  /**
   * Frees the request (MPI_Request_free): it cannot be started again. An operation already
   * started still completes (a send still delivers).
   */
  free(): void {
    this.#freed = true;
  }

  #error(operation: string, message: string, hint: string): TsmpiError {
    return new TsmpiError(ErrorCode.Request, message, { rank: this.#rank, operation, hint });
  }
}

/**
 * Starts every request (MPI_Startall), in order. They must all be inactive; none is started when
 * one is not.
 */
export function startAll(requests: readonly PersistentRequest<unknown>[]): void {
  for (const request of requests) request.checkStartable();
  for (const request of requests) request.start();
}
