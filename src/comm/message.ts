/**
 * A message taken by a matched probe (MPI-3's MPI_Mprobe and MPI_Message, mpi4py's Message):
 * `comm.mprobe` / `comm.improbe` match a message and take it out of the matching queue, so no
 * other receive (another rank's thread, a wildcard receive posted meanwhile) can take it; the
 * program then receives exactly that message, once, with `recv`, `irecv`, `recvInto` or
 * `irecvInto`. The probe's status says its source, tag and size before it is received.
 *
 * @example
 * ```ts
 * const message = await comm.mprobe(ANY_SOURCE, 7);
 * const buffer = new Float64Array(message.status.getCount(Float64Array));
 * await message.recvInto(buffer);
 * ```
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { bytesOf, rawKindOf, type BufferLike } from './codec.js';
import { completedRequest, type Request } from './request.js';
import { Status } from './status.js';
import { ANY_TAG, PROC_NULL } from './wildcards.js';

/** @internal How a message is received: into a buffer (bytes) or as a value (null). */
export type ReceiveMessage = (into: Uint8Array | null, operation: string) => Request<unknown>;

export class Message<T = unknown> {
  /** The matched message's source, tag and size (bytes). */
  readonly status: Status;
  readonly #rank: number;
  /** Undefined once received (the message is then null, as MPI sets the handle to MPI_MESSAGE_NULL). */
  #receive: ReceiveMessage | undefined;
  readonly #noProc: boolean;

  /** @internal Messages come from `comm.mprobe` and `comm.improbe`. */
  constructor(status: Status, rank: number, receive: ReceiveMessage | undefined, noProc = false) {
    this.status = status;
    this.#rank = rank;
    this.#receive = receive;
    this.#noProc = noProc;
  }

  /**
   * True until the message is received (MESSAGE_NO_PROC stays active: it is received any number
   * of times); false for MESSAGE_NULL.
   */
  get active(): boolean {
    return this.#noProc || this.#receive !== undefined;
  }

  /** Receives the message and returns its value (MPI_Mrecv). */
  recv(): Promise<T> {
    return this.irecv().wait();
  }

  /** Starts receiving the message; the request's status is the message's (MPI_Imrecv). */
  irecv(): Request<T> {
    return this.#take(null, 'Message.recv') as Request<T>;
  }

  /** Receives the message's raw bytes into `buffer` and returns its status; see comm.recvInto. */
  recvInto(buffer: BufferLike): Promise<Status> {
    return this.irecvInto(buffer).wait();
  }

  /** Starts receiving the message into `buffer`. */
  irecvInto(buffer: BufferLike): Request<Status> {
    if (rawKindOf(buffer) < 0) {
      throw new TsmpiError(ErrorCode.Type, 'the buffer is not a typed array, Buffer or DataView', { rank: this.#rank, operation: 'Message.recvInto', hint: 'pass a typed array (e.g. new Float64Array(n)); use recv() to receive any value' });
    }
    return this.#take(bytesOf(buffer), 'Message.recvInto') as Request<Status>;
  }

  #take(into: Uint8Array | null, operation: string): Request<unknown> {
    if (this.#noProc) {
      const status = new Status(PROC_NULL, ANY_TAG, 0);
      return completedRequest(operation, PROC_NULL, ANY_TAG, into === null ? undefined : status, status);
    }
    const receive = this.#receive;
    if (receive === undefined) {
      throw new TsmpiError(ErrorCode.Arg, (this as unknown) === MESSAGE_NULL ? 'MESSAGE_NULL is no message' : 'the message was received already', {
        rank: this.#rank,
        operation,
        hint: 'a matched probe gives one message, received once: probe again (mprobe / improbe) for the next',
      });
    }
    this.#receive = undefined;
    return receive(into, operation);
  }
}

/** No message (MPI_MESSAGE_NULL): inactive; receiving it is an error. */
export const MESSAGE_NULL: Message<never> = new Message<never>(new Status(), -1, undefined);

/**
 * What a matched probe of PROC_NULL gives (MPI_MESSAGE_NO_PROC): receiving it completes at once
 * with `undefined` and status `{ source: PROC_NULL, tag: ANY_TAG, bytes: 0 }`, any number of times.
 */
export const MESSAGE_NO_PROC: Message<undefined> = new Message<undefined>(new Status(PROC_NULL, ANY_TAG, 0), -1, undefined, true);
