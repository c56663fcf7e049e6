/**
 * The buffer of buffered sends (MPI_Buffer_attach, MPI-4.1's MPI_Comm_attach_buffer): a `bsend`
 * completes at once because its message is kept until delivered, and the attached buffer bounds
 * how much may be kept at a time: every message in flight holds its bytes plus BSEND_OVERHEAD,
 * and a bsend that does not fit is ERR_BUFFER, as MPI has it. A rank has one buffer for all its
 * communicators (`attachBuffer`), and a communicator may have its own (`comm.attachBuffer`),
 * which its bsends use first.
 *
 * tsmpi keeps each buffered message as a private copy (a typed array's bytes in memory from the
 * rank's scratch pool, reused once delivered: a fresh large ArrayBuffer per message cost more
 * than the send) and accounts for it against the attached capacity; the attached memory itself
 * is not written (a JavaScript program cannot rely on its layout anyway), and `detachBuffer`
 * hands back the object that was attached.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { BackgroundTasks } from './background.js';
import { Request, type RequestDriver } from './request.js';

/** Bytes of the attached buffer each buffered message holds besides its own (MPI_BSEND_OVERHEAD). */
export const BSEND_OVERHEAD = 64;

/** Attach this to buffer as much as needed, without a bound (MPI-4.1's MPI_BUFFER_AUTOMATIC). */
export const BUFFER_AUTOMATIC: unique symbol = Symbol.for('tsmpi.BUFFER_AUTOMATIC');

/** What may be attached: a buffer (its byte length is the capacity), a number of bytes, or BUFFER_AUTOMATIC. */
export type AttachedBuffer = ArrayBufferView | ArrayBuffer | SharedArrayBuffer | number | typeof BUFFER_AUTOMATIC;

interface Buffered {
  readonly request: Request<unknown>;
  readonly bytes: number;
  /** Gives the message's copy back once delivered (to the rank's scratch pool). */
  readonly delivered: (() => void) | undefined;
}

export class SendBuffer {
  readonly #scope: string;
  #attached: AttachedBuffer | undefined = undefined;
  #capacity = 0;
  #used = 0;
  #inFlight: Buffered[] = [];

  /** `scope` names the buffer in errors: `this rank's`, `world's`. */
  constructor(scope: string) {
    this.#scope = scope;
  }

  get attached(): boolean {
    return this.#attached !== undefined;
  }

  /** Attaches `buffer`; one at a time (MPI: detach first). */
  attach(buffer: AttachedBuffer, rank: number, operation: string): void {
    if (this.#attached !== undefined) {
      throw new TsmpiError(ErrorCode.Buffer, `${this.#scope} send buffer is attached already`, { rank, operation, hint: 'detach it first (await detachBuffer()), then attach the new one' });
    }
    this.#capacity = capacityOf(buffer, rank, operation);
    this.#attached = buffer;
    this.#used = 0;
  }

  /**
   * Takes room for a message of `bytes` (plus BSEND_OVERHEAD); throws ERR_BUFFER when none is
   * attached or it does not fit once delivered messages have given theirs back.
   */
  reserve(bytes: number, rank: number, operation: string): void {
    if (this.#attached === undefined) {
      throw new TsmpiError(ErrorCode.Buffer, `no send buffer is attached for ${operation}`, { rank, operation, hint: 'attach one first: attachBuffer(bytes) for the rank, or comm.attachBuffer(bytes); or use send / isend, which need none' });
    }
    this.#sweep();
    const need = bytes + BSEND_OVERHEAD;
    if (this.#used + need <= this.#capacity) {
      this.#used += need;
      return;
    }
    const free = this.#capacity - this.#used;
    throw new TsmpiError(ErrorCode.Buffer, `the ${bytes}-byte message needs ${need} bytes of ${this.#scope} send buffer; ${free} of its ${this.#capacity} are free (${this.#inFlight.length} buffered message(s) not yet delivered)`, {
      rank,
      operation,
      hint: `attach a larger buffer (every message in flight needs its bytes + BSEND_OVERHEAD (${BSEND_OVERHEAD})), or await flushBuffer() before sending more`,
    });
  }

  /**
   * Holds the room of `bytes` until `request` (the message's own send) completes; `delivered`
   * then runs (the copy's memory goes back to be reused).
   */
  track(request: Request<unknown>, bytes: number, delivered?: () => void): void {
    this.#inFlight.push({ request, bytes: bytes + BSEND_OVERHEAD, delivered });
  }

  /** True when every buffered message has been delivered. */
  get drained(): boolean {
    this.#sweep();
    return this.#inFlight.length === 0;
  }

  /** Waits until every buffered message has been delivered (MPI_Buffer_flush). */
  flush(driver: RequestDriver, operation: string): Promise<void> {
    if (this.drained) return Promise.resolve();
    return driver.waitUntil(() => this.drained, { operation, peer: -1, tag: -1, context: -1 });
  }

  /** A request that completes once every message buffered so far is delivered (MPI_Buffer_iflush). */
  iflush(driver: RequestDriver, background: BackgroundTasks, operation: string): Request<void> {
    const request = new Request<void>(driver, operation, -1, -1, -1);
    const waitFor = [...this.#inFlight];
    const check = (): boolean => {
      if (!waitFor.every((b) => b.request.done)) return false;
      request.complete(undefined);
      return true;
    };
    if (!check()) background.add({ advance: check });
    return request;
  }

  /** Waits until every buffered message is delivered, then detaches and returns what was attached. */
  async detach(driver: RequestDriver, rank: number, operation: string): Promise<AttachedBuffer> {
    if (this.#attached === undefined) {
      throw new TsmpiError(ErrorCode.Buffer, `no send buffer is attached to ${this.#scope.replace(/'s$/, '')}`, { rank, operation, hint: 'attach one with attachBuffer before detaching' });
    }
    await this.flush(driver, operation);
    const attached = this.#attached;
    this.#attached = undefined;
    this.#capacity = 0;
    this.#used = 0;
    return attached;
  }

  /** Gives back the room of delivered messages. */
  #sweep(): void {
    if (this.#inFlight.length === 0) return;
    let kept = 0;
    for (const buffered of this.#inFlight) {
      if (buffered.request.done) {
        this.#used -= buffered.bytes;
        buffered.delivered?.();
      } else {
        this.#inFlight[kept++] = buffered;
      }
    }
    this.#inFlight.length = kept;
  }
}

function capacityOf(buffer: AttachedBuffer, rank: number, operation: string): number {
  if (buffer === BUFFER_AUTOMATIC) return Infinity;
  if (typeof buffer === 'number') {
    if (Number.isInteger(buffer) && buffer >= 0) return buffer;
  } else if (ArrayBuffer.isView(buffer) || buffer instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && buffer instanceof SharedArrayBuffer)) {
    return buffer.byteLength;
  }
  throw new TsmpiError(ErrorCode.Arg, `cannot attach ${String(buffer)} as a send buffer`, { rank, operation, hint: 'pass a byte count, a typed array or ArrayBuffer, or BUFFER_AUTOMATIC' });
}

const rankBuffers = new WeakMap<object, SendBuffer>();

/** The send buffer of the rank whose endpoint is `endpoint` (one per rank: MPI_Buffer_attach). */
export function rankSendBuffer(endpoint: object): SendBuffer {
  let buffer = rankBuffers.get(endpoint);
  if (buffer === undefined) rankBuffers.set(endpoint, (buffer = new SendBuffer("this rank's")));
  return buffer;
}
