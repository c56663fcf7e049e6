/**
 * The progress engine of a rank: how a rank waits.
 *
 * A wait first polls the rank's links in a tight loop for `spinMicros` (a frame already on its way
 * costs ~0.2 us instead of the 20-40 us a sleeping thread takes to wake on these VMs), then goes
 * asynchronous: one sleep loop per rank polls, re-checks every waiter's condition, and sleeps on
 * the rank's doorbell with `Atomics.waitAsync`, so the rank's timers and other promises keep
 * running. Anyone with news for the rank (a frame, freed ring space, a socket event) rings the
 * doorbell. While waiters exist, a ref'd handle keeps the thread alive (`Atomics.waitAsync`
 * alone does not). The engine publishes the rank's state and progress count for the launcher's
 * hang detector.
 *
 * A rank with sockets cannot poll them in place (their data arrives only while its event loop
 * turns): such a rank keeps the loop turning between polls for its yield budget
 * (TSMPI_SOCKET_SPIN_US) before it sleeps, as ranks that share a thread do.
 *
 * Rank threads that outnumber the cores poll with sched_yield between polls instead
 * (TSMPI_YIELD_US, processor-yield.ts): the rank waited for may be queued on this very CPU, and a
 * spin would hold it off while a sleep would cost both a wake-up.
 *
 * TSMPI_SPIN_US=0 turns the spinning fast path off (every wait sleeps at once).
 */
import type { Clock } from '../clock.js';
import { monotonicMillis, realClock } from '../clock.js';
import { ControlArea, RankState } from './control-block.js';
import { processorYield } from './processor-yield.js';

/** What a rank waits for, for hang reports (a request's operation, peer, tag and context). */
export interface WaitDescription {
  readonly operation: string;
  /** Peer in the communicator; -1 for any source. */
  readonly peer: number;
  readonly tag: number;
  readonly context: number;
}

/** Something that completes (a request): what a spin waits for. */
export interface Completable {
  readonly done: boolean;
}

/**
 * How a rank waits, and its clock: the contract between the protocol engine (src/comm) and
 * whatever drives time. The runtime's ProgressEngine (below) spins and sleeps on real threads
 * with the real clock; the simulator's SimProgress (src/sim/sim-progress.ts) parks waiters until
 * virtual-time events satisfy them, on the rank's virtual clock. init() builds one per rank and
 * hands it to the endpoint.
 */
export interface Progress {
  /**
   * The rank's clock: everything above the link takes time and timers from it (real:
   * the monotonic clock and unref'd timers; simulated: the rank's virtual time and engine events).
   */
  readonly clock: Clock;
  /**
   * Resolves once `condition()` holds. `spun`: the caller has just spent the spin budget on this
   * wait (a request's wait spins before it makes a promise), so sleep without spinning again.
   */
  waitUntil(condition: () => boolean, description: WaitDescription, spun?: boolean): Promise<void>;
  /** Polls until `target` is done or the spin budget is spent (never sleeps). */
  spinFor(target: Completable): void;
  /**
   * How many times a receive may look at one link's next frame in place before it posts itself
   * (ReceivePath.receiveSoon): 0 when waits do not spin in place (the simulator, ranks that
   * yield or sleep at once, ranks that share a thread).
   */
  readonly peekSpins: number;
  /**
   * A program's poll (test and its any/all/some forms, iprobe, improbe): progress once, then
   * `check()`. The runtime polls its links; the simulator first moves the rank's clock on by
   * the poll's virtual cost and runs the network events due by then, as SMPI does for MPI_Test
   * and MPI_Iprobe, so a polling loop sees messages arrive and ends.
   */
  poll(operation: PollOperation, check: () => boolean): boolean;
  /** Resolves after `seconds` of the rank's time, the rank meanwhile waiting (not computing). */
  sleep(seconds: number): Promise<void>;
  /** Something outside the polled links changed: let the waiting loop look again. */
  kick(): void;
  /** Event-driven links delivered frames: settle the waiters they satisfied. */
  progressed(): void;
  countCompletion(): void;
  /** Keeps the rank alive until a matching release (pending sends). */
  retain(): void;
  release(): void;
  describeWaits(): WaitDescription[];
  finish(): void;
  /**
   * Declared computation (the simulator: the rank's clock moves on by that much). The runtime
   * has none: real computation takes real time.
   */
  compute?(seconds: number): Promise<void>;
  /**
   * A test() found nothing (`eventDriven`: the rank has sockets): when what it waits for can only
   * come while the event loop runs (socket data, the other ranks of a shared thread), the runtime
   * warns once when the program has polled for long without letting it run.
   */
  idlePoll?(rank: number, eventDriven: boolean): void;
  /** Virtual seconds `flops` take on this rank's host (the simulator only). */
  flopsSeconds?(flops: number): number;
  /**
   * Runs `build`, the making of a value a receive returns as a new array or object (an
   * allocation, a copy, its garbage later): work of the receiving rank's CPU that a link's
   * receive cost, measured into a buffer the receiver reuses, does not cover. The runtime just
   * runs it; the simulator times it and charges it to the receiving rank when it runs outside
   * that rank's metered time (a frame handed over by a network event).
   */
  building?<T>(build: () => T): T;
}

/** The kinds of program poll, each with its own virtual cost under the simulator. */
export type PollOperation = 'test' | 'iprobe';

export interface ProgressHost {
  /** Polls links and queues once; returns true when anything progressed. */
  poll(): boolean;
  /** Polls everything a sleeping rank could be woken for (no shortcuts); true on progress. */
  pollFully(): boolean;
}

interface Waiter {
  condition: () => boolean;
  resolve: () => void;
  description: WaitDescription;
}

const resolved = Promise.resolve();
/**
 * The part of the yield budget a wait spends in place, its event loop held (ms); the rest it
 * yields between turns of the event loop. In place the rank sees a frame soonest, but its timers
 * and other promises wait: with 1 ms in place the exchange example on 4 ranks on 2 cores took
 * 0.35 s, with 0.1 ms 0.24-0.26 s; and with 0.1 ms and no turning after, 64 KiB and 1 MiB
 * collectives on 8 ranks slept between frames, 1.5-3x slower (docs/guide.md).
 */
const YIELD_IN_PLACE_MS = 0.3;
/** The adaptive spin budget's floor: a wake-up costs 20-40 us here, a round trip ~2 us. */
const MIN_SPIN_MICROS = 10;
/**
 * Looks a receive takes at its link's next frame before it posts itself: enough for the
 * one-way time of a small message, then the posted receive's spin (which polls every link) goes on.
 */
const PEEK_SPINS = 256;
/**
 * Blocking sleep slices a wait takes (a turn of the event loop after each) before it sleeps with
 * Atomics.waitAsync, whose wake-up comes through the event loop, far slower than a blocking
 * sleep's. With one slice, a peer held up for a few milliseconds (a
 * collection, a compilation) sent its partner into the slow sleeps, and a 2-rank loop of 64 KiB
 * bcasts read 29.9-60.0 us per call (5 runs) where it reads 6.4-28.2 us staying in slices.
 */
const SYNC_SLICES = 4;
/** Budgets a spin may run in a row while each sees something move (pollUntil). */
const MAX_SPIN_WINDOWS = 64;
// Below the TCP handshake timeout (5 s): a rank that never awaits cannot accept a peer's
// connection either, so the warning comes before the peer's failure names this rank.
const IDLE_POLLING_WARNING_MS = 3_000;

/** How a {@link ProgressEngine} waits, beyond its spin budget. */
export interface ProgressOptions {
  /** Longest single sleep, ms (a safety net: a doorbell normally ends it). */
  sleepLimitMs?: number;
  /**
   * For ranks that share a thread: how long a wait goes on polling between turns of the thread
   * (its other ranks run in between) before it sleeps; such a rank cannot spin in place.
   */
  yieldMicros?: number;
  /**
   * For ranks with sockets: how long a wait keeps the event loop turning (polling between turns)
   * before it sleeps; socket data is read only while the loop turns.
   */
  socketTurnMicros?: number;
  /**
   * > 0: the rank has no event-driven link (no socket), so a wait first sleeps in blocking
   * `Atomics.wait` slices of at most this long (SYNC_SLICES, the event loop turning between
   * them): a notify then wakes it directly (a futex) rather than through a task on its event
   * loop. A wait that outlasts them goes on asynchronously, so the event loop (timers, the
   * launcher's messages) runs freely and a long wait costs no wake-ups.
   */
  syncSleepMs?: number;
  /**
   * The process runs more rank threads than cores: a rank that has just woken a sleeping rank
   * sleeps at once on its next wait (see handOff). Not for ranks that fit the cores: two ranks
   * that wake each other would then sleep on every message, where spinning catches the reply.
   */
  handOff?: boolean;
  /**
   * > 0: a wait polls with sched_yield between polls for this long before it sleeps, in place of
   * the spin budget (ranks that outnumber the cores: the rank waited for may be queued on this
   * CPU, and yielding runs it without a wake-up): up to YIELD_IN_PLACE_MS of it in place, the rest
   * between turns of the event loop. Where the yield is not available, the spin budget and handOff
   * apply.
   */
  yieldSpinMicros?: number;
}

export class ProgressEngine implements Progress {
  readonly clock: Clock = realClock;
  private readonly host: ProgressHost;
  private readonly control: ControlArea;
  private readonly slot: number;
  /**
   * The spin budget now, ms. It adapts between a floor and the configured budget: spins that end
   * empty-handed twice in a row halve it (the peer is not running, e.g. a busy process took its
   * core, and spinning holds the core the peer could have; one miss alone is a GC pause or an
   * uneven step), a sleep that a message ended within the configured budget doubles it (spinning
   * that long would have saved the wake-up).
   */
  private spinMillis: number;
  /** Spins in a row that ended empty-handed. */
  private misses = 0;
  /** How long a wait turns the event loop before it sleeps: the thread's turn or the sockets' budget. */
  private readonly yieldMillis: number;
  /** Ranks share this thread (they run only while this one awaits). */
  private readonly sharesThread: boolean;
  private readonly maxSpinMillis: number;
  private readonly minSpinMillis: number;
  private readonly sleepLimitMs: number;
  private waiters: Waiter[] = [];
  private sleeping = false;
  /** A poll from the event loop is scheduled by {@link kick} (no sleep loop was running). */
  private pollPending = false;
  private completions = 0;
  private readonly keepAlive: ReturnType<typeof setInterval>;
  private keepAliveRefs = 0;
  /** When fruitless test() polls began without an event-loop turn since; -1: none. */
  private idlePollingSince = -1;
  private warnedIdlePolling = false;
  /** Sleeps that ended by the safety timeout rather than a doorbell (diagnostics). */
  timeoutWakeups = 0;

  private readonly syncSleepMs: number;
  /** The rank's own sleep() calls not yet over: the sleep loop must not block the thread meanwhile. */
  private sleepsPending = 0;
  private readonly handsOff: boolean;
  /** The rank polls and yields when it waits (ranks outnumber the cores); `yieldNow` is sched_yield, taken once its process has started. */
  private readonly yielding: boolean;
  private yieldNow: (() => number) | undefined;
  /**
   * Until every rank of the process has started, a rank that would yield sleeps instead: the
   * ranks it waits for are still starting, and a poll that yields keeps taking the CPU they need
   * (64 rank threads on 2 cores: ~6% of the start; so is the WASI instance behind sched_yield).
   */
  private starting = true;
  /** How long a wait yields in place, then between turns of the event loop, before it sleeps (ms). */
  private readonly yieldSpinMillis: number;
  private readonly yieldTurnMillis: number;
  /** The event loop is kept turning for a wait that joined a parked sleep loop, until turnUntil. */
  private turning = false;
  private turnUntil = 0;

  constructor(host: ProgressHost, control: ControlArea, slot: number, spinMicros: number, options: ProgressOptions = {}) {
    const { sleepLimitMs = 1000, yieldMicros = 0, socketTurnMicros = 0, syncSleepMs = 0, handOff = false, yieldSpinMicros = 0 } = options;
    this.syncSleepMs = syncSleepMs;
    this.handsOff = handOff;
    this.yielding = yieldSpinMicros > 0;
    this.yieldSpinMillis = Math.min(YIELD_IN_PLACE_MS, yieldSpinMicros / 1000);
    this.yieldTurnMillis = Math.max(0, yieldSpinMicros / 1000 - this.yieldSpinMillis);
    this.sharesThread = yieldMicros > 0;
    this.yieldMillis = Math.max(yieldMicros, socketTurnMicros) / 1000;
    this.host = host;
    this.control = control;
    this.slot = slot;
    this.maxSpinMillis = spinMicros / 1000;
    this.minSpinMillis = Math.min(this.maxSpinMillis, MIN_SPIN_MICROS / 1000);
    this.spinMillis = this.maxSpinMillis;
    this.sleepLimitMs = sleepLimitMs;
    this.keepAlive = setInterval(() => {}, 1 << 30);
    this.keepAlive.unref();
    control.setState(slot, RankState.Running);
  }

  /** Resolves once `condition()` holds; see {@link Progress.waitUntil}. */
  waitUntil(condition: () => boolean, description: WaitDescription, spun = false): Promise<void> {
    if (condition() || (!spun && this.spin(condition))) return resolved;
    return new Promise<void>((resolve) => {
      this.waiters.push({ condition, resolve, description });
      if (this.waiters.length === 1) {
        this.retain();
        this.control.setState(this.slot, RankState.Waiting);
      }
      if (!this.sleeping) void this.startWaiting();
      else if (this.yieldMillis > 0) this.turnWhileParked();
    });
  }

  /**
   * A wait that joins a sleep loop parked on the doorbell: turn the event loop (polling without
   * blocking) for the yield budget before relying on the parked loop. Socket data is read only
   * while the event loop turns, and a process that blocks in the kernel takes 40-50 us to wake
   * here, where a turning one sees a reply in ~10 us.
   */
  private turnWhileParked(): void {
    this.turnUntil = monotonicMillis() + this.yieldMillis;
    if (this.turning) return;
    this.turning = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    if (this.waiters.length === 0 || !this.sleeping) {
      this.turning = false;
      return;
    }
    // A joining wait gets at least one turn, however late the event loop comes to it.
    if (this.host.pollFully()) this.checkWaiters();
    if (monotonicMillis() >= this.turnUntil) {
      this.turning = false;
      return;
    }
    setImmediate(this.turn);
  };

  /** Counts completed operations (published for the hang detector when the rank sleeps). */
  countCompletion(): void {
    if (++this.completions >= 64) {
      this.control.addProgress(this.slot, this.completions);
      this.completions = 0;
    }
  }

  /**
   * Something outside the polled links made progress (a socket opened or drained, a CTS queued a
   * stream): wakes the sleep loop, or starts it when none runs (see {@link keepProgressing}).
   */
  kick(): void {
    this.control.ring(this.slot);
    this.keepProgressing();
  }

  /**
   * Makes sure someone polls for the rank's pending sends when no waiter does: the program may
   * poll with test(), compute, or have returned (a rank ends when nothing is left to do). Without
   * it, a send queued behind a TCP connection that opened after the program's last call into
   * tsmpi, or a rendezvous whose CTS came later, was never written and its receiver waited for
   * ever. Deferred to the event loop: callers are in the middle of an endpoint operation.
   */
  private keepProgressing(): void {
    if (!this.sleeping && !this.pollPending) {
      this.pollPending = true;
      setImmediate(this.startPolling);
    }
  }

  private readonly startPolling = (): void => {
    this.pollPending = false;
    if (this.sleeping) return;
    // Pending sends: the sleep loop runs (poll, then sleep on the doorbell) until they are out.
    if (this.keepAliveRefs > 0) void this.startWaiting();
    else this.host.pollFully();
  };

  /**
   * Event-driven links (sockets) delivered frames from their own events: settle the waiters
   * they satisfied now, in this tick, rather than after the sleep loop's wake-up.
   */
  progressed(): void {
    if (this.waiters.length === 0) return;
    this.checkWaiters();
    // A sleep loop parked on the doorbell stays parked: waking it to end it cost a notify and a
    // fresh waitAsync per message (an eventfd write and a task each; ~20 us of a 60 us TCP
    // round trip's CPU). The next wait joins it; a shared-memory sender still rings it (its
    // sleeping flag stays up), and it ends by itself at its time limit with nothing to wait for.
  }

  /** Keeps the thread alive until a matching {@link release} (pending sends, waiters). */
  retain(): void {
    if (this.keepAliveRefs++ === 0) {
      this.keepAlive.ref();
      if (this.waiters.length === 0) this.keepProgressing();
    }
  }

  release(): void {
    if (--this.keepAliveRefs === 0) this.keepAlive.unref();
  }

  /** What every waiter of this rank waits for (hang reports). */
  describeWaits(): WaitDescription[] {
    return this.waiters.map((w) => w.description);
  }

  idlePoll(rank: number, eventDriven: boolean): void {
    const sharesThread = this.sharesThread;
    if (this.warnedIdlePolling || !(eventDriven || sharesThread)) return;
    const now = monotonicMillis();
    if (this.idlePollingSince < 0) {
      this.idlePollingSince = now;
      setImmediate(() => (this.idlePollingSince = -1));
    } else if (now - this.idlePollingSince > IDLE_POLLING_WARNING_MS) {
      this.warnedIdlePolling = true;
      process.stderr.write(
        `tsmpi: warning: rank ${rank} has polled with test() for ${IDLE_POLLING_WARNING_MS / 1000} s without awaiting; ` +
          (sharesThread
            ? 'the ranks that share its thread (TSMPI_RANKS_PER_THREAD) run only while it awaits: await between polls, e.g. await comm.sleep(0), or give each rank its own thread (TSMPI_RANKS_PER_THREAD=1)\n'
            : 'messages and connections from other processes (TCP) arrive only while the program awaits: await between polls, e.g. await comm.sleep(0)\n'),
      );
    }
  }

  /** Marks the rank finished for the launcher. */
  finish(): void {
    this.control.addProgress(this.slot, this.completions);
    this.completions = 0;
    this.control.setState(this.slot, RankState.Finished);
    clearInterval(this.keepAlive);
  }

  /** Resolves after `seconds` (a timer that keeps the thread alive meanwhile); 0: after one turn of the event loop. */
  sleep(seconds: number): Promise<void> {
    this.sleepsPending++;
    return new Promise((resolve) => {
      const done = (): void => {
        this.sleepsPending--;
        resolve();
      };
      if (seconds > 0) setTimeout(done, seconds * 1000);
      else setImmediate(done);
    });
  }

  get peekSpins(): number {
    return !this.yielding && !this.sharesThread && this.spinMillis > 0 ? PEEK_SPINS : 0;
  }

  /** Polls until `target` is done or the spin budget is spent. */
  spinFor(target: Completable): void {
    this.host.poll();
    if (!target.done) {
      if (this.yields()) {
        this.yieldSpin(() => target.done);
        return;
      }
      if (this.spinMillis <= 0 || this.handOff() || !this.pollUntil(target, null)) return;
    }
    // One exit for a wait that ended however soon: a branch that had not run when V8 compiled
    // this method (a first poll that found the message, in a program whose early waits all
    // spun) threw the compiled code away when it first ran, to be compiled again with the whole
    // receive path inlined (2-4 ms of the rank's thread, on rank threads that compile in place).
    this.misses = 0;
  }

  /**
   * Polls until `target` is done (or, with `target` null, `condition()` holds): true then, false
   * once the budget ran out with nothing moving. The budget starts at the first clock read,
   * after 32 polls: most waits of a ping-pong end before it, and a read of the clock costs 60-90
   * ns on these VMs. A budget that ran out goes on for another while something moved during it
   * (frames came, a backlog drained), since the peer is then running and its next frame is near,
   * up to MAX_SPIN_WINDOWS budgets in all, and never for ranks that hand their core off; a wait
   * for a rank that computes moves nothing and sleeps as before. Sleeping there cost a wake-up
   * per refill of the ring: a root that runs ahead in a loop of 64 KiB bcasts and the rank it
   * feeds took turns sleeping.
   *
   * Written so that every path through the loop runs in its first few waits: V8 compiles the
   * loop (with the whole poll inlined) once it turns hot, and code that had not run by then (a
   * second budget, say) discarded the compiled loop when it first ran, to be compiled again.
   */
  private pollUntil(target: Completable | null, condition: (() => boolean) | null): boolean {
    const host = this.host;
    const spinMillis = this.spinMillis;
    const renewable = !this.handsOff;
    // Doubles from the start (the clock's): a first comparison of small integers was thrown away
    // for lost precision once the clock's value came.
    let deadline = Number.NEGATIVE_INFINITY;
    let limit = 0;
    let moved = false;
    let done = true;
    for (let i = 1; target !== null ? !target.done : !condition!(); i++) {
      if (host.poll()) moved = true;
      if ((i & 31) !== 0) continue;
      const now = monotonicMillis();
      // Compared at every clock read, not only once a budget ran out: see above.
      const withinLimit = now < limit;
      if (now < deadline) continue;
      if (deadline === Number.NEGATIVE_INFINITY) limit = now + MAX_SPIN_WINDOWS * spinMillis;
      else if (!(withinLimit && moved && renewable)) {
        done = false;
        break;
      }
      deadline = now + spinMillis;
      moved = false;
    }
    // Two misses in a row halve the budget (see spinMillis); any success resets the count. As
    // arithmetic on every exit, not a branch that first runs at the first miss (see above).
    const miss = done ? 0 : 1;
    const misses = (this.misses + miss) * miss;
    this.misses = misses;
    this.spinMillis = Math.max(this.minSpinMillis, this.spinMillis / (misses >= 2 ? 2 : 1));
    return done;
  }

  poll(_operation: PollOperation, check: () => boolean): boolean {
    this.host.poll();
    return check();
  }

  /**
   * True when this rank has just woken a sleeping rank and its ranks outnumber the cores: it then
   * sleeps at once rather than spin, handing its core to the rank it woke, which needs one. What
   * sched_yield does for a C rank that polls when oversubscribed.
   */
  private handOff(): boolean {
    if (!this.handsOff || !this.control.wokeSleeper) return false;
    this.control.wokeSleeper = false;
    return true;
  }

  /**
   * Polls, yielding the CPU between polls, until `condition()` holds or the yield budget is spent.
   * Polling after every yield was measured against every 4th and 16th: no better (4 and 8 ranks
   * on 2 cores, 8-byte collectives).
   */
  private yieldSpin(condition: () => boolean): boolean {
    const host = this.host;
    const yieldNow = this.yieldNow!;
    const deadline = monotonicMillis() + this.yieldSpinMillis;
    for (;;) {
      host.poll();
      if (condition()) return true;
      yieldNow();
      if (monotonicMillis() >= deadline) return false;
    }
  }

  /** True when this rank's waits poll and yield (ranks outnumber the cores), once its process's ranks have all started. */
  private yields(): boolean {
    if (!this.yielding) return false;
    if (this.starting) {
      if (!this.control.allStarted()) return false;
      this.starting = false;
      this.yieldNow = processorYield();
    }
    return this.yieldNow !== undefined;
  }

  private spin(condition: () => boolean): boolean {
    if (this.yields()) return this.yieldSpin(condition);
    this.host.poll();
    if (!condition()) {
      if (this.spinMillis <= 0 || this.handOff() || !this.pollUntil(null, condition)) return false;
    }
    this.misses = 0;
    return true;
  }

  /** The current spin budget in microseconds (diagnostics and tests). */
  get spinBudgetMicros(): number {
    return this.spinMillis * 1000;
  }

  /** A sleep ended after `sleptMillis` with a waiter satisfied. */
  private wokeFor(sleptMillis: number): void {
    if (sleptMillis >= this.maxSpinMillis) return;
    this.misses = 0;
    this.spinMillis = Math.min(this.maxSpinMillis, this.spinMillis * 2);
  }

  /** Resolves the waiters whose condition holds; true when it resolved any. */
  private checkWaiters(): boolean {
    const waiters = this.waiters;
    let kept = 0;
    for (let i = 0; i < waiters.length; i++) {
      const waiter = waiters[i]!;
      if (waiter.condition()) waiter.resolve();
      else waiters[kept++] = waiter;
    }
    if (kept === waiters.length) return false;
    waiters.length = kept;
    if (kept === 0) {
      this.release();
      this.control.addProgress(this.slot, this.completions);
      this.completions = 0;
      this.control.setState(this.slot, RankState.Running);
    }
    return true;
  }

  /**
   * Runs a rank's waits beyond its spin until none is left: where ranks yield, turns that yield
   * (yieldTurns) between the sleeps; else the sleep loop alone.
   */
  private startWaiting(): Promise<void> {
    return this.yieldTurnMillis > 0 && this.yields() ? this.yieldTurns() : this.sleepLoop(false);
  }

  /**
   * Where ranks outnumber the cores: poll, yield the CPU and let the event loop turn, until
   * `yieldTurnMillis` pass with nothing moving; then sleep until something moves, and yield
   * again. Apart from the sleep loop so that the loop every wait of such a rank runs is small:
   * V8 compiled the whole sleep loop once it turned hot (its awaits and sleeps, the receive path
   * inlined), 14-21 ms of a rank's thread each time, while the ranks of a ring waited for it.
   */
  private async yieldTurns(): Promise<void> {
    this.sleeping = true;
    const host = this.host;
    const yieldNow = this.yieldNow!;
    // The flag drops in the same turn as the loop sees nothing left to wait for: a wait that came
    // a microtask later, finding it still up, would join a loop that had ended (and hang).
    try {
      while (this.keepAliveRefs > 0) {
        let until = monotonicMillis() + this.yieldTurnMillis;
        for (;;) {
          const progressed = host.pollFully();
          const resolved = this.checkWaiters();
          const now = monotonicMillis();
          if (progressed || resolved) until = now + this.yieldTurnMillis;
          else if (this.keepAliveRefs === 0) return;
          else if (now >= until) break;
          else yieldNow();
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        await this.sleepLoop(true);
      }
    } finally {
      this.sleeping = false;
    }
  }

  /**
   * Polls, then sleeps on the doorbell, until no wait (or send) is left; with `untilProgress`, only
   * until something moves, for yieldTurns (which then holds the `sleeping` flag).
   */
  private async sleepLoop(untilProgress: boolean): Promise<void> {
    const control = this.control;
    const index = control.doorbellIndex(this.slot);
    let yieldUntil = this.yieldMillis > 0 ? monotonicMillis() + this.yieldMillis : 0;
    /** When the last sleep began (-1: the loop has not slept since it last looked). */
    let sleptAt = -1;
    // A wait first sleeps in blocking slices, up to SYNC_SLICES of them with a turn of the event
    // loop after each; a wait that outlasts them sleeps asynchronously: ranks parked for long
    // (64 ranks at start-up waiting for the last to boot) would otherwise wake every slice and
    // take the cores from the ranks still booting.
    let blocking = this.syncSleepMs > 0;
    let slices = 0;
    // As in yieldTurns, the flag drops in the turn the loop ends.
    if (!untilProgress) this.sleeping = true;
    try {
      // Waiters, or sends still on their way (keepAliveRefs counts both).
      while (this.keepAliveRefs > 0) {
        const progressed = this.host.pollFully();
        const resolved = this.checkWaiters();
        if (progressed || resolved) {
          blocking = this.syncSleepMs > 0;
          slices = 0;
        }
        if (sleptAt >= 0) {
          if (resolved) this.wokeFor(monotonicMillis() - sleptAt);
          sleptAt = -1;
        }
        if (progressed || resolved) {
          if (untilProgress) return;
          // Let I/O and timers run between bursts of work, and the program go on from the waits
          // that ended (their continuations run before this one): a sleep now, with sends still
          // retaining the loop, held a finished wait back for a whole blocking slice.
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (yieldUntil > 0) yieldUntil = monotonicMillis() + this.yieldMillis;
          continue;
        }
        if (this.keepAliveRefs === 0) break;
        if (yieldUntil > 0 && monotonicMillis() < yieldUntil) {
          // The thread's other ranks take their turn; what they send is here at the next poll.
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        control.addProgress(this.slot, this.completions);
        this.completions = 0;
        // Dekker with the senders: announce the sleep, then look once more at everything
        // (control-block.ts); a shortcut here would lose the wake-up of a peer's first frame.
        control.setSleeping(this.slot, true);
        const seen = control.doorbell(this.slot);
        if (this.host.pollFully()) {
          control.setSleeping(this.slot, false);
          const resolved = this.checkWaiters();
          if (untilProgress) return;
          if (resolved) await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        if (control.rung(this.slot)) {
          // Rung since the announcement for nothing this rank had to do (another rank's broadcast,
          // a freed slot): senders that see the ring do not ring again, so sleeping on the count
          // read after it would miss them. Announce again and look again.
          control.setSleeping(this.slot, false);
          continue;
        }
        sleptAt = monotonicMillis();
        // A blocking sleep would hold up the rank's own sleep(): a conveyor's advance() took up
        // to a whole slice per call while its receive waited in the background.
        if (blocking && this.sleepsPending === 0) {
          const outcome = Atomics.wait(control.i32, index, seen, this.syncSleepMs);
          control.setSleeping(this.slot, false);
          if (outcome === 'timed-out') {
            // Nothing came: let the event loop run; after SYNC_SLICES, sleep asynchronously.
            blocking = ++slices < SYNC_SLICES;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          continue;
        }
        const result = Atomics.waitAsync(control.i32, index, seen, this.sleepLimitMs);
        if (result.async) {
          const outcome = await result.value;
          if (outcome === 'timed-out') this.timeoutWakeups++;
        }
        control.setSleeping(this.slot, false);
      }
    } finally {
      if (!untilProgress) this.sleeping = false;
    }
  }
}
