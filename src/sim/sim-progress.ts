/**
 * How a simulated rank waits (the Progress contract of src/transport/progress.ts). Waiting ends the
 * rank's segment: the world then runs other ranks and network events, and resumes this one at
 * the virtual time an arrival satisfied one of its waiters. A poll (test, iprobe) runs the network
 * events due by the rank's own clock, so it sees what has arrived by then; a rank that polls in a
 * loop without ever awaiting would stop the whole world, so after many fruitless polls its clock
 * moves on by a small quantum (as SMPI does for MPI_Test), and past a bound it is an error.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { Completable, Progress, ProgressHost, WaitDescription } from '../transport/progress.js';
import type { SimRank, SimWorld } from './world.js';

interface Waiter {
  condition: () => boolean;
  resolve: () => void;
  description: WaitDescription;
}

const resolved = Promise.resolve();
/** Virtual seconds a fruitless poll moves the rank's clock on (SMPI's smpi/test default: 1e-4). */
const POLL_QUANTUM = 1e-6;
const POLLS_BEFORE_QUANTUM = 16;
const MAX_POLL_SECONDS = 3600;

/**
 * A simulated rank's clock: its virtual time (segment start plus what it computed since), and
 * timers that are events of the simulation at that rank's time. A timer due while the rank's own
 * code runs (a poll ran the network up to it) fires once that code awaits, as a real timer
 * would: never in the middle of a call.
 */
interface RankTimer extends TimerHandle {
  pending: boolean;
  event: TimerHandle;
}

export class RankClock implements Clock {
  private readonly world: SimWorld;
  private readonly rank: SimRank;

  constructor(world: SimWorld, rank: SimRank) {
    this.world = world;
    this.rank = rank;
  }

  now(): number {
    return this.world.rankNow(this.rank);
  }

  schedule(seconds: number, fn: () => void): TimerHandle {
    const world = this.world;
    world.liveTimers++;
    const handle: RankTimer = {
      id: 0,
      pending: true,
      event: world.sim.at(this.now() + Math.max(0, seconds), () => {
        if (!handle.pending) return;
        handle.pending = false;
        world.liveTimers--;
        if (world.current === this.rank) queueMicrotask(fn);
        else fn();
      }),
    };
    return handle;
  }

  cancel(handle: TimerHandle): void {
    const timer = handle as RankTimer;
    if (!timer.pending) return;
    timer.pending = false;
    this.world.liveTimers--;
    this.world.sim.cancel(timer.event);
  }
}

export class SimProgress implements Progress {
  readonly clock: Clock;
  private readonly world: SimWorld;
  private readonly rank: SimRank;
  private readonly host: ProgressHost;
  private waiters: Waiter[] = [];
  private fruitless = 0;
  private polledTime = 0;

  constructor(world: SimWorld, rank: SimRank, host: ProgressHost) {
    this.world = world;
    this.rank = rank;
    this.host = host;
    this.clock = new RankClock(world, rank);
    rank.onArrival = () => this.progressed();
  }

  /** The rank waits `seconds` of virtual time (blocked, not computing); other ranks run meanwhile. */
  sleep(seconds: number): Promise<void> {
    let due = false;
    this.world.sim.at(this.world.rankNow(this.rank) + Math.max(0, seconds), () => {
      due = true;
      this.progressed();
    });
    return this.waitUntil(() => due, { operation: 'sleep', peer: -1, tag: -1, context: -1 });
  }

  waitUntil(condition: () => boolean, description: WaitDescription): Promise<void> {
    if (condition()) return resolved;
    this.spinNetwork();
    if (condition()) return resolved;
    // The rank's segment does not end here: another async flow of the same rank (a task pool's
    // loop beside the program, a Promise.all of several waits) may still have work queued in
    // microtasks. The runner ends the segment once they have all settled; endSegment then looks
    // again at what has arrived by the rank's clock.
    return new Promise<void>((resolve) => {
      this.waiters.push({ condition, resolve, description });
      if (this.rank.running) {
        const waiting = this.rank.onWait;
        this.rank.onWait = null;
        waiting?.();
      } else this.progressed();
    });
  }

  /** A poll: run the network events due by this rank's clock, moving it on after fruitless polls. */
  spinFor(request: Completable): void {
    this.spinNetwork();
    if (request.done) {
      this.fruitless = 0;
      return;
    }
    if (++this.fruitless >= POLLS_BEFORE_QUANTUM && this.rank.running) {
      this.world.declarePolling(this.rank, POLL_QUANTUM);
      this.polledTime += POLL_QUANTUM;
      if (this.polledTime > MAX_POLL_SECONDS) {
        throw new TsmpiError(ErrorCode.Hang, `rank ${this.rank.rank} polled for ${MAX_POLL_SECONDS} s of virtual time without awaiting`, {
          rank: this.rank.rank,
          operation: 'test',
          hint: 'in the simulator other ranks run only while this one awaits: await between polls (or use wait())',
        });
      }
      this.spinNetwork();
    }
  }

  private spinNetwork(): void {
    if (this.rank.running) this.world.advanceNetwork(this.world.rankNow(this.rank));
    this.host.poll();
  }

  /**
   * Protocol work arrived (a CTS starts a stream): the endpoint acts on it now, at the current
   * virtual time, as a NIC would, whether or not the rank's code is running.
   */
  kick(): void {
    this.host.poll();
    this.progressed();
  }

  /** Frames arrived or a send completed: resume the rank if a waiter is now satisfied. */
  progressed(): void {
    if (this.waiters.length === 0 || this.rank.running || this.rank.resume !== null) return;
    const waiters = this.waiters;
    let kept = 0;
    const ready: Waiter[] = [];
    for (const w of waiters) {
      if (w.condition()) ready.push(w);
      else waiters[kept++] = w;
    }
    if (ready.length === 0) return;
    waiters.length = kept;
    this.fruitless = 0;
    this.rank.resume = () => {
      for (const w of ready) w.resolve();
    };
    this.world.wake(this.rank, this.world.sim.now());
  }

  countCompletion(): void {}
  retain(): void {}
  release(): void {}

  describeWaits(): WaitDescription[] {
    return this.waiters.map((w) => w.description);
  }

  finish(): void {}

  flopsSeconds(flops: number): number {
    return this.world.flopsTime(this.rank, flops);
  }

  /** Declared compute: the rank's clock moves on by `seconds` (it waits for it, like a sleep). */
  compute(seconds: number): Promise<void> {
    if (seconds <= 0) return resolved;
    this.world.declareCompute(this.rank, seconds);
    return resolved;
  }
}
