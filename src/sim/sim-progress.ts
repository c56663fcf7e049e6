/**
 * How a simulated rank waits (the Progress contract of src/transport/progress.ts). Waiting ends the
 * rank's segment: the world then runs other ranks and network events, and resumes this one at
 * the virtual time an arrival satisfied one of its waiters. A program's poll (test, iprobe) first
 * moves the rank's clock on by its cost, SMPI's smpi/test and smpi/iprobe (TSMPI_SIM_TEST,
 * TSMPI_SIM_IPROBE; the n-th fruitless poll in a row costs n times as much, as SMPI's
 * smpi/grow-injected-times, unless the rank did more work since its last poll than the poll
 * costs), then runs the network events due by then: a polling loop sees what
 * has arrived by its clock and ends. Other ranks' code runs only while this one awaits, so a loop
 * that never awaits and waits for another rank's next call cannot end: past a bound of virtual
 * time it is an error that says so.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { Settings } from '../config/tunables.js';
import type { Completable, PollOperation, Progress, ProgressHost, WaitDescription } from '../transport/progress.js';
import type { SimRank, SimWorld } from './world.js';

interface Waiter {
  condition: () => boolean;
  resolve: () => void;
  description: WaitDescription;
}

const resolved = Promise.resolve();
/** Virtual seconds of polling without awaiting after which a rank's loop is an error. */
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
  private readonly pollCost: Record<PollOperation, number>;
  private readonly growPolls: boolean;
  /** Fruitless polls in a row, per kind (SMPI keeps one count per call). */
  private readonly fruitless: Record<PollOperation, number> = { test: 0, iprobe: 0 };
  /** Virtual seconds spent polling since the rank last awaited. */
  private polledTime = 0;
  /** The rank's clock when its last poll ended. */
  private lastPollEnd = Number.NEGATIVE_INFINITY;

  constructor(world: SimWorld, rank: SimRank, host: ProgressHost, settings: Pick<Settings, 'simTestCost' | 'simIprobeCost' | 'simGrowPolls'>) {
    this.world = world;
    this.rank = rank;
    this.host = host;
    this.pollCost = { test: settings.simTestCost, iprobe: settings.simIprobeCost };
    this.growPolls = settings.simGrowPolls;
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

  /**
   * A program's own timer (its setTimeout, under the simulator): as sleep, the rank waits for it
   * in virtual time, and `fn` runs in the rank's code when it is due; unlike sleep it can be
   * cancelled (the returned function), which ends the wait at once without calling `fn`.
   */
  startTimer(seconds: number, fn: () => void): () => void {
    let state: 'pending' | 'due' | 'cancelled' = 'pending';
    const event = this.world.sim.at(this.world.rankNow(this.rank) + Math.max(0, seconds), () => {
      if (state !== 'pending') return;
      state = 'due';
      this.progressed();
    });
    void this.waitUntil(() => state !== 'pending', { operation: 'setTimeout', peer: -1, tag: -1, context: -1 }).then(() => {
      if (state === 'due') fn();
    });
    return () => {
      if (state !== 'pending') return;
      state = 'cancelled';
      this.world.sim.cancel(event);
      this.progressed();
    };
  }

  waitUntil(condition: () => boolean, description: WaitDescription): Promise<void> {
    if (condition()) return resolved;
    this.spinNetwork();
    if (condition()) return resolved;
    // The rank's segment does not end here: another async flow of the same rank (a task pool's
    // loop beside the program, a Promise.all of several waits) may still have work queued in
    // microtasks. The runner ends the segment once they have all settled; endSegment then looks
    // again at what has arrived by the rank's clock.
    this.polledTime = 0;
    if (this.rank.running && this.world.computeMode === 'measured') this.rank.lastWaitReal = performance.now();
    return new Promise<void>((resolve) => {
      this.waiters.push({ condition, resolve, description });
      if (this.rank.running) {
        const waiting = this.rank.onWait;
        this.rank.onWait = null;
        waiting?.();
      } else this.progressed();
    });
  }

  /** A receive never waits in place: its frames come from events in virtual time. */
  readonly peekSpins = 0;

  /** Before a wait: run the network events due by this rank's clock (a wait costs no poll time). */
  spinFor(_request: Completable): void {
    this.spinNetwork();
  }

  poll(operation: PollOperation, check: () => boolean): boolean {
    if (this.rank.running) {
      // A poll that follows more work than it costs is not part of a spinning loop (a task pool
      // polls between tasks): its count starts again, so only a loop that spins pays the growth.
      if (this.world.rankNow(this.rank) - this.lastPollEnd > this.pollCost[operation] * (this.fruitless[operation] + 1)) this.fruitless[operation] = 0;
      const cost = this.pollCost[operation] * (this.growPolls ? this.fruitless[operation] + 1 : 1);
      if (cost > 0) {
        this.world.declarePolling(this.rank, cost);
        this.polledTime += cost;
      }
      if (this.polledTime > MAX_POLL_SECONDS) {
        this.polledTime = 0;
        throw new TsmpiError(ErrorCode.Hang, `rank ${this.rank.rank} polled (${operation}) for ${MAX_POLL_SECONDS} s of virtual time without awaiting`, {
          rank: this.rank.rank,
          operation,
          hint: 'in the simulator other ranks run only while this one awaits: await between polls (e.g. `await comm.sleep(0)`), or wait() instead of polling',
        });
      }
    }
    this.spinNetwork();
    const found = check();
    this.fruitless[operation] = found ? 0 : this.fruitless[operation] + 1;
    if (this.rank.running) this.lastPollEnd = this.world.rankNow(this.rank);
    if (!found && this.rank.running) {
      if (this.world.computeMode === 'measured') this.rank.lastWaitReal = performance.now();
      // The program may now yield to the event loop to poll again (setImmediate) rather than wait
      // in tsmpi: the runner waiting for this rank's first wait must then end its segment too.
      const waiting = this.rank.onWait;
      this.rank.onWait = null;
      waiting?.();
    }
    return found;
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
    this.rank.resume = () => {
      for (const w of ready) w.resolve();
    };
    this.world.wake(this.rank, this.world.resumeTime(this.rank, this.world.sim.now()));
  }

  building<T>(build: () => T): T {
    return this.world.building(this.rank, build);
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
