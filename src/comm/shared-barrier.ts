/**
 * The barrier of a world whose ranks all live in this process (the threads launcher): each rank
 * adds itself to a counter in the process's control area, and the last to arrive releases the
 * others and wakes those that sleep (control-block.ts). A rank that waits is woken once, by the
 * last arrival; the dissemination barrier's log2(p) rounds of messages each need the next rank
 * scheduled, which on 2 cores cost 64 rank threads 30-38 ms per barrier. Open MPI's shared-memory
 * collectives (coll/sm) count arrivals the same way.
 *
 * Waiting is the endpoint's: the request is a background task, advanced by every poll and before
 * every look at a wait's condition, so a rank in this barrier still serves the others (a window's
 * target, a nonblocking collective's schedule) and sleeps on its doorbell like any wait.
 */
import type { BackgroundTask } from './background.js';
import { Request, type RequestDriver } from './request.js';
import type { WorldBarrier } from '../transport/transport.js';

/** What the request needs of the process and of the endpoint. */
export interface SharedBarrierHost {
  readonly driver: RequestDriver;
  /** The counter in the process's shared memory (the transport's). */
  readonly barrier: WorldBarrier;
  /** The error of a wait that can never complete because a rank ended, or undefined while none did. */
  endedError(request: Request<void>): Error | undefined;
}

/** A barrier not entered yet: it waits for this rank's previous one to release it. */
const NOT_ENTERED = -2;

export class SharedBarrierRequest extends Request<void> implements BackgroundTask {
  private readonly host: SharedBarrierHost;
  private generation = NOT_ENTERED;
  /**
   * This rank's barrier before this one, while it is pending: collectives may be started before
   * the last one ended (every rank starts them in the same order), so this one enters the count
   * once that one has released this rank.
   */
  private previous: SharedBarrierRequest | undefined;

  constructor(host: SharedBarrierHost, operation: string, tag: number, context: number, previous: SharedBarrierRequest | undefined) {
    super(host.driver, operation, -1, tag, context);
    this.host = host;
    this.previous = previous;
    this.enterWhenFirst();
  }

  /**
   * The peer a hang report names: a rank not there yet, looked up when the report asks. (A getter
   * of the class: one defined on each instance was the largest item of a barrier loop's CPU
   * profile, and gave every request of the class a shape of its own.)
   */
  override get peer(): number {
    return this.done ? -1 : this.generation === NOT_ENTERED ? (this.previous?.peer ?? -1) : this.host.barrier.missing(this.generation);
  }

  private enterWhenFirst(): void {
    if (this.previous !== undefined && !this.previous.done) return;
    this.previous = undefined;
    const generation = this.host.barrier.enter();
    if (generation === -1) this.complete(undefined);
    else this.generation = generation;
  }

  advance(): boolean {
    if (this.done) return true;
    if (this.generation === NOT_ENTERED) {
      this.enterWhenFirst();
      if (this.done) return true;
      if (this.generation === NOT_ENTERED) return false;
    }
    // Released first: the last rank may have ended right after it released this one.
    if (this.host.barrier.passed(this.generation)) {
      this.complete(undefined);
      return true;
    }
    const error = this.host.endedError(this);
    if (error === undefined) return false;
    this.fail(error);
    return true;
  }

  /** A barrier cannot be cancelled. */
  override cancel(): boolean {
    return false;
  }
}
