/**
 * The steps every staged collective takes through the world's staging regions (control-block.ts),
 * when every world rank lives in this process: round after round, each rank stages its part in
 * its own region and enters the staging barrier; once every rank has, each reads what it needs of
 * the others' regions and enters the barrier again; once every rank has, the regions may be
 * written anew. Subclasses say what a round stages and reads (staged-reduction.ts). A subclass
 * whose rounds alternate between the two halves of the regions (staged-gather.ts) skips the second
 * barrier; a request that writes whole regions after one first waits for every rank to have read
 * its last half (a fence of one barrier).
 *
 * The staging barrier is a counter of its own, entered only by these requests, and a rank's
 * staged collectives act one after another (each waits for the one before it): so nonblocking
 * calls in flight, and world barriers between them, cannot pair one rank's step with another's
 * of a different call.
 *
 * Waiting is the endpoint's, as for the shared barrier: the request is a background task advanced
 * by every poll, so a rank in it still serves the others and sleeps on its doorbell.
 */
import type { BackgroundTask } from './background.js';
import { Request, type RequestDriver } from './request.js';
import type { WorldStaging } from '../transport/transport.js';

/**
 * Bytes of each half of a staging region of `regionBytes`: the one cut every staged collective
 * makes. Consecutive rounds that alternate halves may belong to different calls (an alltoallv's
 * last round, then an allgatherv's first), and a round may write its half only because the ranks
 * still reading the round before read the other one. A collective with halves of its own size
 * broke that (tried with 1 MiB regions): a gather's second half, cut from 256 KiB of the region,
 * lay inside an alltoallv's first and overwrote blocks a slower rank had yet to copy out.
 */
export function stagingHalfBytes(regionBytes: number): number {
  return Math.floor(regionBytes / 2 / 64) * 64;
}

/** What a staged request needs of the process and of the endpoint. */
export interface StagedHost {
  readonly driver: RequestDriver;
  /** This rank and the world's size. */
  readonly rank: number;
  readonly size: number;
  readonly staging: WorldStaging;
  /** Views of the whole of `staging.buffer`, made once: a view per copy or header read cost ~0.1 us each, a dozen of them a small call. */
  readonly bytes: Uint8Array;
  readonly words: Int32Array;
  /**
   * Which half of the regions the next round that alternates halves writes (0 or 1), and whether
   * the rank's last staged collective did (its last reads then have no barrier after them yet).
   * The same on every rank: world ranks run their staged collectives in the same order.
   */
  half: number;
  readsOpen: boolean;
  /** Staged collectives this rank has started: the same count on every rank at the same call. */
  calls: number;
  /** The error of a wait that can never complete because a rank ended, or undefined while none did. */
  endedError(request: Request<unknown>): Error | undefined;
  /** Runs a step and counts its CPU as the rank's (the simulator's Progress.building); undefined in a real run. */
  readonly building?: (<T>(work: () => T) => T) | undefined;
}

/**
 * A place in a rank's order of staged collectives, held from a call's start until it makes its
 * staged request (which then acts in that place) or stages nothing (Endpoint.reserveStaged).
 */
export class StagedTicket {
  private request: { readonly done: boolean } | undefined;
  private released = false;

  /** `previous`: what the ticket's request must wait for. */
  constructor(readonly previous: { readonly done: boolean } | undefined) {}

  /** Done once its request is, or once released unused: the next staged call may act. */
  get done(): boolean {
    return this.released || (this.request !== undefined && this.request.done);
  }

  /** The staged request that takes this place. */
  take(request: { readonly done: boolean }): void {
    this.request = request;
  }

  /** The call stages nothing (or failed before it did): the place is given up. */
  release(): void {
    if (this.request === undefined) this.released = true;
  }
}

const enum Phase {
  /** This rank's previous staged collective has not finished. */
  Queued,
  /** Waiting for every rank to have read the previous one's last round (when it left them open). */
  Fence,
  /** Its part of the round is staged; waiting for every rank's. */
  Staged,
  /** It has read what it needs of the round; waiting for every rank to have. */
  Read,
}

/** A barrier generation that has passed already (this rank arrived last). */
const PASSED = -1;

export abstract class StagedRequest<T> extends Request<T> implements BackgroundTask {
  protected readonly host: StagedHost;
  private previous: { readonly done: boolean } | undefined;
  private phase = Phase.Queued;
  private generation = PASSED;
  /** True for requests whose rounds alternate between the two halves of the regions (no read barrier). */
  protected readonly alternatesHalves: boolean = false;
  /** Which of this rank's staged collectives this is (StagedHost.calls): equal on every rank at the same call. */
  protected readonly sequence: number;

  /** Subclasses call {@link advance} once constructed: the first steps may be taken at once. */
  constructor(host: StagedHost, operation: string, tag: number, context: number, previous: { readonly done: boolean } | undefined) {
    super(host.driver, operation, -1, tag, context);
    this.host = host;
    this.previous = previous;
    this.sequence = host.calls++;
  }

  /** The peer a hang report names: a rank that has not reached this rank's step yet (a getter of the class, as SharedBarrierRequest's). */
  override get peer(): number {
    return this.done || this.generation === PASSED ? -1 : this.host.staging.barrier.missing(this.generation);
  }

  advance(): boolean {
    if (this.done) return true;
    // Under the simulator the copies and combines are the rank's measured work (no frame costs them).
    const building = this.host.building;
    return building === undefined ? this.step() : building(() => this.step());
  }

  private step(): boolean {
    const barrier = this.host.staging.barrier;
    if (this.phase === Phase.Queued) {
      if (this.previous !== undefined && !this.previous.done) return false;
      this.previous = undefined;
      this.phase = Phase.Fence;
      if (this.host.readsOpen && !this.alternatesHalves) {
        // The rank's last staged collective left its reads open (it alternated halves): every
        // rank must have read it before this one writes the whole of its region.
        this.generation = barrier.enter();
      }
    }
    if (this.phase === Phase.Fence) {
      if (this.generation !== PASSED && !barrier.passed(this.generation)) return this.failIfEnded();
      this.generation = PASSED;
      this.host.readsOpen = this.alternatesHalves;
      if (!this.start()) return true;
      this.stageRound();
    }
    for (;;) {
      if (this.generation !== PASSED && !barrier.passed(this.generation)) return this.failIfEnded();
      if (this.phase === Phase.Staged) {
        this.readRound();
        this.phase = Phase.Read;
        // Rounds that alternate between two halves of the regions need no barrier after their
        // reads: the next round writes the other half, and the one after it waits on the next
        // round's barrier, which every rank enters only once it has read this round.
        this.generation = this.alternatesHalves ? PASSED : barrier.enter();
        continue;
      }
      if (this.endRound()) {
        this.release();
        return true;
      }
      this.stageRound();
    }
  }

  /** Stages this rank's part of the next round and enters the barrier. */
  private stageRound(): void {
    this.stage();
    this.phase = Phase.Staged;
    this.generation = this.host.staging.barrier.enter();
  }

  /** Makes what the rounds need; false when the request is complete already (nothing to move). */
  protected abstract start(): boolean;
  /** Writes this rank's part of the round into its region. */
  protected abstract stage(): void;
  /** Reads what this rank needs of every rank's staged part. */
  protected abstract readRound(): void;
  /** After every rank has read the round: true once the request is complete or failed. */
  protected abstract endRound(): boolean;
  /** Drops the views of the regions (the request is over). */
  protected abstract release(): void;

  private failIfEnded(): boolean {
    const error = this.host.endedError(this);
    if (error === undefined) return false;
    this.release();
    this.fail(error);
    return true;
  }

  /** A staged collective cannot be cancelled. */
  override cancel(): boolean {
    return false;
  }
}
