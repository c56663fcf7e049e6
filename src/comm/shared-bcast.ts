/**
 * A broadcast of a world whose ranks all live in this process (the threads launcher): the root
 * copies its bytes once into the next slots of the process's broadcast ring, a chunk per slot,
 * and every other rank copies them out (control-block.ts): p copies of the bytes in all, where a
 * tree's messages make 2 (p - 1). No rank forwards for another: on more ranks than cores
 * a tree's inner ranks had to be scheduled before their subtrees could finish, and each message
 * was a send and a receive of its own. Open MPI's shared-memory collectives (coll/sm) broadcast
 * small buffers through such slots too.
 *
 * Each rank numbers the chunks of its world broadcasts that take this path; every rank calls them
 * in the same order with the same lengths, so the numbers agree. A rank's broadcasts act in that order (a later one waits for its
 * earlier one), which keeps a slot from being reused before every rank has read it.
 *
 * Waiting is the endpoint's, as for the shared barrier: the request is a background task
 * advanced by every poll, so a rank in it still serves the others and sleeps on its doorbell.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { BackgroundTask } from './background.js';
import { Request, type RequestDriver } from './request.js';
import type { WorldBroadcast } from '../transport/transport.js';

/** What the request needs of the process and of the endpoint. */
export interface SharedBcastHost {
  readonly driver: RequestDriver;
  /** This rank (world), for errors. */
  readonly rank: number;
  /** The broadcast slots in the process's shared memory (the transport's). */
  readonly broadcast: WorldBroadcast;
  /** The error of a wait that can never complete because a rank ended, or undefined while none did. */
  endedError(request: Request<void>): Error | undefined;
}

/** The sequence numbers a broadcast of `bytes` takes: one per chunk, one for an empty one. */
export function bcastChunks(bytes: number, chunkBytes: number): number {
  return Math.max(1, Math.ceil(bytes / chunkBytes));
}

export class SharedBcastRequest extends Request<void> implements BackgroundTask {
  private readonly host: SharedBcastHost;
  /** The sequence number of this broadcast's first chunk. */
  private readonly first: number;
  /** Chunks done (published by the root, read by a reader). */
  private chunksDone = 0;
  private readonly chunks: number;
  private readonly isRoot: boolean;
  private readonly bytes: Uint8Array;
  /** This rank's broadcast before this one, while it is pending (this one acts after it). */
  private previous: SharedBcastRequest | undefined;

  /** `root` and the ranks are the world's; `bytes` is the root's payload, or a reader's receive buffer; its chunks take sequence numbers `first` on. */
  constructor(host: SharedBcastHost, operation: string, tag: number, context: number, first: number, root: number, isRoot: boolean, bytes: Uint8Array, previous: SharedBcastRequest | undefined) {
    super(host.driver, operation, isRoot ? -1 : root, tag, context);
    this.host = host;
    this.first = first;
    this.chunks = bcastChunks(bytes.length, host.broadcast.chunkBytes);
    this.isRoot = isRoot;
    this.bytes = bytes;
    this.previous = previous;
    this.advance();
  }

  advance(): boolean {
    if (this.done) return true;
    if (this.previous !== undefined) {
      if (!this.previous.done) return false;
      this.previous = undefined;
    }
    const broadcast = this.host.broadcast;
    const chunkBytes = broadcast.chunkBytes;
    const total = this.bytes.length;
    // As many chunks as can move now: the root's while slots are free, a reader's while published.
    while (this.chunksDone < this.chunks) {
      const sequence = this.first + this.chunksDone;
      const at = this.chunksDone * chunkBytes;
      const length = Math.min(chunkBytes, total - at);
      if (this.isRoot) {
        if (!broadcast.publish(sequence, this.bytes, at, length, total)) break;
      } else {
        const published = broadcast.length(sequence);
        if (published < 0) break;
        if (this.chunksDone === 0 && this.mismatch(sequence)) return true;
        broadcast.take(sequence, this.bytes, at, published);
      }
      this.chunksDone++;
    }
    if (this.chunksDone === this.chunks) {
      this.complete(undefined);
      return true;
    }
    // Published first: the root may have ended right after it published.
    const error = this.host.endedError(this);
    if (error === undefined) return false;
    this.fail(error);
    return true;
  }

  /**
   * True when the first chunk shows that the ranks' calls differ (another root, another length),
   * after failing the request with an error that says how; its slot is counted out.
   */
  private mismatch(sequence: number): boolean {
    const broadcast = this.host.broadcast;
    const root = broadcast.root(sequence);
    const total = broadcast.total(sequence);
    if (root === this.peer && total === this.bytes.length) return false;
    broadcast.take(sequence, this.bytes, 0, 0);
    const sameRoot = root === this.peer;
    this.fail(
      new TsmpiError(
        !sameRoot ? ErrorCode.Arg : total > this.bytes.length ? ErrorCode.Truncate : ErrorCode.Count,
        !sameRoot
          ? `rank ${root} broadcast as the root where this rank named rank ${this.peer}`
          : total > this.bytes.length
            ? `the ${total}-byte broadcast of rank ${root} does not fit the ${this.bytes.length}-byte buffer`
            : `the ${total}-byte broadcast of rank ${root} does not fill the ${this.bytes.length}-byte buffer`,
        {
          rank: this.host.rank,
          operation: this.operation,
          hint: sameRoot ? 'pass buffers of the same byte length on every rank of a bcastInto' : 'pass the same root on every rank of a bcast',
        },
      ),
    );
    return true;
  }

  /** A broadcast cannot be cancelled. */
  override cancel(): boolean {
    return false;
  }
}
