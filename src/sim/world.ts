/**
 * A simulated world: the ranks of a tsmpi program run as tasks on one thread, in virtual time,
 * over a modelled network. The ranks' communicators, matching, protocols and collectives are the
 * runtime's own code; only their transport (sim-transport.ts) and the way they wait
 * (sim-progress.ts) differ.
 *
 * Time. The world's clock is the Simulation's. A rank runs in segments: it is resumed at a virtual
 * time, runs its JavaScript until it waits in tsmpi, and that segment costs virtual time: the
 * measured CPU time scaled by its host's speed (compute mode `measured`), or nothing but what it
 * declares with `comm.compute()` (mode `declared`, deterministic). Operations it issues during a
 * segment are stamped with its own clock (segment start + compute so far). Only one rank runs at a
 * time; the loop picks the earliest of the next network event and the next rank to resume, so
 * messages and wake-ups happen in virtual-time order.
 *
 * Network events (frame arrivals) never run rank code: they complete requests and put ranks on
 * the resume queue, so they may also run inside a rank's segment when it polls (test, iprobe):
 * a poll sees what has arrived by the rank's own clock.
 */
import type { Simulation } from './engine.js';
import type { NetworkModel } from './network/model.js';

export type ComputeMode = 'measured' | 'declared';

/** A span of a rank's timeline (for the Chrome trace). */
export interface Span {
  rank: number;
  kind: 'compute' | 'blocked';
  start: number;
  end: number;
  what?: string;
}

export interface RankStats {
  /** Virtual seconds spent computing (measured segments and declared compute). */
  compute: number;
  /** Virtual seconds blocked in tsmpi waits. */
  blocked: number;
  /** Virtual time the rank's program ended (NaN while running). */
  end: number;
  messagesSent: number;
  bytesSent: number;
}

/** One simulated rank's clock and bookkeeping. */
export class SimRank {
  readonly rank: number;
  readonly host: number;
  /** Virtual time the running segment started at, and the real time it started. */
  segmentStart = 0;
  realStart = 0;
  /** Virtual time the rank's last segment ended: it cannot act before. */
  readyAt = 0;
  running = false;
  /** Declared compute added to the running segment (virtual seconds). */
  declared = 0;
  /** The waiter to resolve when the rank is resumed. */
  resume: (() => void) | null = null;
  blockedSince = 0;
  readonly stats: RankStats = { compute: 0, blocked: 0, end: Number.NaN, messagesSent: 0, bytesSent: 0 };
  /** Called by the network when frames reached this rank (its progress re-checks its waiters). */
  onArrival: (() => void) | null = null;
  /** Called once when the running segment ends (the rank waits in tsmpi, or its program ends). */
  onYield: (() => void) | null = null;

  constructor(rank: number, host: number) {
    this.rank = rank;
    this.host = host;
  }
}

interface ResumeEntry {
  time: number;
  seq: number;
  rank: SimRank;
}

export interface SimWorldOptions {
  sim: Simulation;
  network: NetworkModel;
  /** Host of each rank. */
  hostOf: readonly number[];
  computeMode: ComputeMode;
  /** Virtual seconds per real second of measured CPU time, per host (1 / relative speed). */
  cpuScale: (host: number, at: number) => number;
  /** Virtual seconds to compute `flops` on `host` starting at `at` (declared compute). */
  flopsTime: (host: number, at: number, flops: number) => number;
  /**
   * CPU seconds a rank spends on each frame it sends (LogGP's o: the software cost of a message,
   * which aggregation saves). @default 0
   */
  messageOverhead?: number;
  /** The same for a frame to a rank of the same host (shared memory is cheaper). @default 0 */
  localMessageOverhead?: number;
}

export class SimWorld {
  readonly sim: Simulation;
  readonly network: NetworkModel;
  readonly ranks: SimRank[];
  readonly computeMode: ComputeMode;
  private readonly options: SimWorldOptions;
  private readonly resumeHeap: ResumeEntry[] = [];
  private resumeSeq = 0;
  /** The rank whose segment is running, if any. */
  current: SimRank | null = null;
  /** Timeline spans, when a trace was asked for. */
  spans: Span[] | null = null;

  constructor(options: SimWorldOptions) {
    this.options = options;
    this.sim = options.sim;
    this.network = options.network;
    this.computeMode = options.computeMode;
    this.ranks = options.hostOf.map((host, rank) => new SimRank(rank, host));
  }

  /** The virtual time of `rank` now: its segment start plus what it has computed since. */
  rankNow(rank: SimRank): number {
    if (!rank.running) return Math.max(rank.readyAt, this.sim.now());
    let t = rank.segmentStart + rank.declared;
    if (this.computeMode === 'measured') t += ((performance.now() - rank.realStart) / 1000) * this.options.cpuScale(rank.host, rank.segmentStart);
    return t;
  }

  /** Starts a segment of `rank` at virtual time `time`. */
  beginSegment(rank: SimRank, time: number): void {
    rank.running = true;
    rank.segmentStart = time;
    rank.declared = 0;
    rank.realStart = performance.now();
    this.current = rank;
  }

  /** Ends the running segment of `rank` (it waits or finished); returns its end time. */
  endSegment(rank: SimRank): number {
    const end = this.rankNow(rank);
    rank.stats.compute += end - rank.segmentStart;
    if (this.spans !== null && end > rank.segmentStart) this.spans.push({ rank: rank.rank, kind: 'compute', start: rank.segmentStart, end });
    rank.running = false;
    rank.readyAt = end;
    if (this.current === rank) this.current = null;
    const yielded = rank.onYield;
    rank.onYield = null;
    yielded?.();
    // Frames that arrived while it ran may already satisfy what it waits for.
    rank.onArrival?.();
    return end;
  }

  /**
   * Restarts the CPU meter of the running segment (the rank called init(): loading and compiling
   * its module is the simulator's cost, not the program's).
   */
  restartMeter(rank: SimRank): void {
    if (rank.running) rank.realStart = performance.now();
  }

  /** Charges `rank` the per-message overhead of one frame it sends to `to` (nothing when it is 0). */
  chargeSend(rank: SimRank, to: SimRank): void {
    const o = (rank.host === to.host ? this.options.localMessageOverhead : this.options.messageOverhead) ?? 0;
    if (o <= 0) return;
    if (rank.running) rank.declared += o;
    else rank.readyAt = Math.max(rank.readyAt, this.sim.now()) + o;
  }

  /** Adds declared compute (seconds of virtual time) to the running segment of `rank`. */
  declareCompute(rank: SimRank, seconds: number): void {
    rank.declared += seconds;
  }

  flopsTime(rank: SimRank, flops: number): number {
    return this.options.flopsTime(rank.host, this.rankNow(rank), flops);
  }

  /** Puts `rank` on the resume queue for virtual time `time` (not before it is ready). */
  wake(rank: SimRank, time: number): void {
    const entry: ResumeEntry = { time: Math.max(time, rank.readyAt), seq: this.resumeSeq++, rank };
    const heap = this.resumeHeap;
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p.time < entry.time || (p.time === entry.time && p.seq < entry.seq)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  private popResume(): ResumeEntry | undefined {
    const heap = this.resumeHeap;
    if (heap.length === 0) return undefined;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= heap.length) break;
        const r = l + 1;
        const c = r < heap.length && (heap[r]!.time < heap[l]!.time || (heap[r]!.time === heap[l]!.time && heap[r]!.seq < heap[l]!.seq)) ? r : l;
        const child = heap[c]!;
        if (last.time < child.time || (last.time === child.time && last.seq < child.seq)) break;
        heap[i] = child;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }

  /**
   * Runs network events due by `time` (safe inside a rank's segment: they run no rank code), but
   * never past the earliest rank waiting to resume: that rank may still send something that
   * arrives before `time`, and the network cannot run ahead of it. A poll thus sees what has
   * arrived by the latest time the simulation can vouch for; the rest it sees when it waits.
   */
  advanceNetwork(time: number): void {
    const heap = this.resumeHeap;
    // An event may wake a rank: the bound is read again after each one.
    while (this.sim.peekTime() <= Math.min(time, heap.length > 0 ? heap[0]!.time : Infinity)) this.sim.step();
  }

  /** Resolves when the running segment of `rank` ends. */
  segmentEnd(rank: SimRank): Promise<void> {
    if (!rank.running) return Promise.resolve();
    return new Promise((resolve) => {
      rank.onYield = resolve;
    });
  }

  /**
   * The next thing to happen: a network event, or the earliest rank to resume. Returns the rank
   * to run (its segment begun), or null after a network event; undefined when nothing is left.
   */
  next(): SimRank | null | undefined {
    const netTime = this.sim.peekTime();
    const resumeTime = this.resumeHeap.length > 0 ? this.resumeHeap[0]!.time : Infinity;
    if (netTime === Infinity && resumeTime === Infinity) return undefined;
    if (netTime <= resumeTime) {
      this.sim.step();
      return null;
    }
    const entry = this.popResume()!;
    this.sim.advanceTo(entry.time);
    const rank = entry.rank;
    const resume = rank.resume;
    if (resume === null) return null;
    rank.resume = null;
    rank.stats.blocked += entry.time - rank.blockedSince;
    if (this.spans !== null && entry.time > rank.blockedSince) this.spans.push({ rank: rank.rank, kind: 'blocked', start: rank.blockedSince, end: entry.time });
    this.beginSegment(rank, entry.time);
    resume();
    return rank;
  }
}
