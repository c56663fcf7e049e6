/**
 * A broadcast (`bcastInto`, or `bcast` of an encoded value) of a world whose ranks all live in this
 * process (the threads launcher): the root copies its bytes once into the next slots of the process's broadcast ring, a chunk per slot,
 * and every other rank copies them out (control-block.ts): p copies of the bytes in all, where a
 * tree's messages make 2 (p - 1). No rank forwards for another: on more ranks than cores
 * a tree's inner ranks had to be scheduled before their subtrees could finish, and each message
 * was a send and a receive of its own. Open MPI's shared-memory collectives (coll/sm) broadcast
 * small buffers through such slots too.
 *
 * Each rank numbers the chunks of its world broadcasts that take this path; every rank calls them
 * in the same order, and learns each one's length (its own buffer's, or the first chunk's for a
 * value of any size), so the numbers agree. A rank's broadcasts act in that order (a later one waits for its
 * earlier one), which keeps a slot from being reused before every rank has read it.
 *
 * Waiting is the endpoint's, as for the shared barrier: the request is a background task
 * advanced by every poll, so a rank in it still serves the others and sleeps on its doorbell.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { BackgroundTask } from './background.js';
import { Request, type RequestDriver } from './request.js';
import type { WorldBroadcast } from '../transport/transport.js';
import type { Encoded } from './codec.js';

/** What the request needs of the process and of the endpoint. */
export interface SharedBcastHost {
  readonly driver: RequestDriver;
  /** This rank (world), for errors. */
  readonly rank: number;
  /** The broadcast slots in the process's shared memory (the transport's). */
  readonly broadcast: WorldBroadcast;
  /** The error of a wait that can never complete because a rank ended, or undefined while none did. */
  endedError(request: Request<Encoded | undefined>): Error | undefined;
  /**
   * The sequence number of the next chunk this rank's broadcasts take. Each broadcast takes its
   * own once the one before it is done, which then knows how many chunks it took.
   */
  nextSequence: number;
}

/** The sequence numbers a broadcast of `bytes` takes: one per chunk, one for an empty one. */
export function bcastChunks(bytes: number, chunkBytes: number): number {
  return Math.max(1, Math.ceil(bytes / chunkBytes));
}

/**
 * What this rank does in a broadcast: publish its bytes (the root), copy them into a buffer of
 * the same length (`bcastInto`), or take a value of any length (`bcast`: its length and kind come
 * with the first chunk; the request's result is the encoded value).
 */
export type SharedBcastRole = 'root' | 'into' | 'value';

export class SharedBcastRequest extends Request<Encoded | undefined> implements BackgroundTask {
  private readonly host: SharedBcastHost;
  private readonly role: SharedBcastRole;
  /** The sequence number of this broadcast's first chunk, once it acts (-1 before). */
  private first = -1;
  /** Its chunks, once known (-1: a value's reader before the first chunk). */
  private chunks = -1;
  private chunksDone = 0;
  /** The root's payload, a reader's buffer, or (a value's reader) the buffer made on the first chunk. */
  private bytes: Uint8Array | undefined;
  /** The payload kind (the root's; a value's reader learns it from the first chunk). */
  private kind: number;
  /** This rank's broadcast before this one, while it is pending (this one acts after it). */
  private previous: SharedBcastRequest | undefined;

  /** `root` is the world's; `bytes` the root's payload or an `into` reader's buffer. */
  constructor(host: SharedBcastHost, operation: string, tag: number, context: number, root: number, role: SharedBcastRole, bytes: Uint8Array | undefined, kind: number, previous: SharedBcastRequest | undefined) {
    super(host.driver, operation, role === 'root' ? -1 : root, tag, context);
    this.host = host;
    this.role = role;
    this.bytes = bytes;
    this.kind = kind;
    this.previous = previous;
    this.advance();
  }

  advance(): boolean {
    if (this.done) return true;
    if (this.previous !== undefined) {
      if (!this.previous.done) return false;
      this.previous = undefined;
    }
    const host = this.host;
    const broadcast = host.broadcast;
    const chunkBytes = broadcast.chunkBytes;
    if (this.first < 0) {
      this.first = host.nextSequence;
      if (this.role !== 'value') this.chunks = this.countChunks(this.bytes!.length);
    }
    // As many chunks as can move now: the root's while slots are free, a reader's while published.
    while (this.chunks < 0 || this.chunksDone < this.chunks) {
      const sequence = this.first + this.chunksDone;
      const at = this.chunksDone * chunkBytes;
      if (this.role === 'root') {
        const total = this.bytes!.length;
        if (!broadcast.publish(sequence, this.bytes!, at, Math.min(chunkBytes, total - at), total, this.kind)) break;
      } else {
        const published = broadcast.length(sequence);
        if (published < 0) break;
        if (this.chunksDone === 0) {
          if (this.mismatch(sequence)) return true;
          if (this.role === 'value') {
            const total = broadcast.total(sequence);
            this.kind = broadcast.kind(sequence);
            this.bytes = new Uint8Array(total);
            this.chunks = this.countChunks(total);
          }
        }
        broadcast.take(sequence, this.bytes!, at, published);
      }
      this.chunksDone++;
    }
    if (this.chunksDone === this.chunks) {
      this.complete(this.role === 'value' ? { kind: this.kind, bytes: this.bytes! } : undefined);
      return true;
    }
    // Published first: the root may have ended right after it published.
    const error = host.endedError(this);
    if (error === undefined) return false;
    this.fail(error);
    return true;
  }

  /** This broadcast's chunks, which the next one's numbers follow. */
  private countChunks(bytes: number): number {
    const chunks = bcastChunks(bytes, this.host.broadcast.chunkBytes);
    this.host.nextSequence = this.first + chunks;
    return chunks;
  }

  /**
   * True when the first chunk shows that the ranks' calls differ (another root, another length),
   * after failing the request with an error that says how; its slot is counted out.
   */
  private mismatch(sequence: number): boolean {
    const broadcast = this.host.broadcast;
    const root = broadcast.root(sequence);
    const total = broadcast.total(sequence);
    const sameRoot = root === this.peer;
    const length = this.bytes?.length ?? total;
    if (sameRoot && total === length) return false;
    broadcast.take(sequence, new Uint8Array(0), 0, 0);
    this.fail(
      new TsmpiError(
        !sameRoot ? ErrorCode.Arg : total > length ? ErrorCode.Truncate : ErrorCode.Count,
        !sameRoot
          ? `rank ${root} broadcast as the root where this rank named rank ${this.peer}`
          : total > length
            ? `the ${total}-byte broadcast of rank ${root} does not fit the ${length}-byte buffer`
            : `the ${total}-byte broadcast of rank ${root} does not fill the ${length}-byte buffer`,
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
