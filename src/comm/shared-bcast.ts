/**
 * A small broadcast of a world whose ranks all live in this process (the threads launcher): the
 * root copies its bytes once into the next slot of the process's broadcast ring and every other
 * rank copies them out (control-block.ts). No rank forwards for another: on more ranks than cores
 * a tree's inner ranks had to be scheduled before their subtrees could finish, and each message
 * was a send and a receive of its own. Open MPI's shared-memory collectives (coll/sm) broadcast
 * small buffers through such slots too.
 *
 * Each rank numbers its world broadcasts that take this path; every rank calls them in the same
 * order, so the numbers agree. A rank's broadcasts act in that order (a later one waits for its
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

export class SharedBcastRequest extends Request<void> implements BackgroundTask {
  private readonly host: SharedBcastHost;
  private readonly sequence: number;
  private readonly isRoot: boolean;
  private readonly bytes: Uint8Array;
  /** This rank's broadcast before this one, while it is pending (this one acts after it). */
  private previous: SharedBcastRequest | undefined;

  /** `root` and the ranks are the world's; `bytes` is the root's payload, or a reader's receive buffer. */
  constructor(host: SharedBcastHost, operation: string, tag: number, context: number, sequence: number, root: number, isRoot: boolean, bytes: Uint8Array, previous: SharedBcastRequest | undefined) {
    super(host.driver, operation, isRoot ? -1 : root, tag, context);
    this.host = host;
    this.sequence = sequence;
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
    if (this.isRoot) {
      if (broadcast.publish(this.sequence, this.bytes)) {
        this.complete(undefined);
        return true;
      }
    } else {
      const length = broadcast.length(this.sequence);
      if (length >= 0) {
        this.read(length);
        return true;
      }
    }
    // Published first: the root may have ended right after it published.
    const error = this.host.endedError(this);
    if (error === undefined) return false;
    this.fail(error);
    return true;
  }

  /** Copies the published broadcast out, or fails naming how the ranks' calls differ. */
  private read(length: number): void {
    const broadcast = this.host.broadcast;
    const root = broadcast.root(this.sequence);
    if (root !== this.peer) {
      broadcast.take(this.sequence, this.bytes, 0);
      this.fail(
        new TsmpiError(ErrorCode.Arg, `rank ${root} broadcast as the root where this rank named rank ${this.peer}`, {
          rank: this.host.rank,
          operation: this.operation,
          hint: 'pass the same root on every rank of a bcast',
        }),
      );
      return;
    }
    if (length > this.bytes.length) {
      broadcast.take(this.sequence, this.bytes, 0);
      this.fail(
        new TsmpiError(ErrorCode.Truncate, `the ${length}-byte broadcast of rank ${root} does not fit the ${this.bytes.length}-byte buffer`, {
          rank: this.host.rank,
          operation: this.operation,
          hint: 'pass buffers of the same byte length on every rank of a bcastInto',
        }),
      );
      return;
    }
    broadcast.take(this.sequence, this.bytes, length);
    this.complete(undefined);
  }

  /** A broadcast cannot be cancelled. */
  override cancel(): boolean {
    return false;
  }
}
