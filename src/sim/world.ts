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
import { FRAME_HEADER_BYTES } from '../transport/link.js';
import type { Simulation } from './engine.js';
import { linkClassOf, type LinkClass, type NetworkModel } from './network/model.js';

export type ComputeMode = 'measured' | 'declared';

/**
 * A span of a rank's timeline (for the Chrome trace). A rank's spans never overlap and cover
 * [0, end] exactly: computing, waiting inside a tsmpi call, or paying a message's overhead.
 */
export interface Span {
  rank: number;
  kind: 'compute' | 'blocked' | 'overhead';
  start: number;
  end: number;
  what?: string;
}

/**
 * Where a rank's virtual time went. The three parts partition it: compute + blocked + overhead
 * equals end, to rounding.
 */
export interface RankStats {
  /** Virtual seconds spent computing (measured segments and declared compute). */
  compute: number;
  /** Virtual seconds waiting inside tsmpi calls (blocked in a wait, or polling with test/iprobe). */
  blocked: number;
  /** Virtual seconds of per-message CPU overhead (--message-overhead, LogGP's o). */
  overhead: number;
  /** Virtual time the rank's program ended (NaN while running). */
  end: number;
  messagesSent: number;
  bytesSent: number;
}

/** One simulated rank's clock and bookkeeping. */
export class SimRank {
  readonly rank: number;
  readonly host: number;
  /** The process the rank runs in (ranks of one process share memory; see LinkClass). */
  readonly proc: number;
  /** Virtual time the running segment started at, and the real time it started. */
  segmentStart = 0;
  realStart = 0;
  /** Virtual time the rank's last segment ended: it cannot act before. */
  readyAt = 0;
  running = false;
  /** Virtual seconds added to the running segment: declared compute, polling, overhead (all of them). */
  declared = 0;
  /** The parts of `declared` that are not compute: polling inside calls, and message overhead. */
  polledInSegment = 0;
  overheadInSegment = 0;
  /** Where the running segment's timeline has been written up to (spans). */
  spanCursor = 0;
  /** The waiter to resolve when the rank is resumed. */
  resume: (() => void) | null = null;
  /** Up to when the rank's time outside its segments is accounted for (blocked or overhead). */
  blockedSince = 0;
  readonly stats: RankStats = { compute: 0, blocked: 0, overhead: 0, end: Number.NaN, messagesSent: 0, bytesSent: 0 };
  /** Called by the network when frames reached this rank (its progress re-checks its waiters). */
  onArrival: (() => void) | null = null;
  /** Called once when the running segment ends (the rank waits in tsmpi, or its program ends). */
  onYield: (() => void) | null = null;
  /** Called once when the rank next waits in tsmpi during its segment (its first wait, while loading). */
  onWait: (() => void) | null = null;
  /**
   * How many ranks of its host (itself included) compute beside the running segment, as a step
   * function of virtual time (SimWorld.fixSegmentShare): `shareFirst` from the segment's start,
   * `shareBusy[i]` from `shareTimes[i]` (ascending) on; `shareCores` is the host's cores (Infinity:
   * they fit), and `shareWork[i]` the full-speed compute the segment has done by `shareTimes[i]`.
   */
  shareFirst = 1;
  shareTimes: number[] = [];
  shareBusy: number[] = [];
  shareWork: number[] = [];
  shareCores = Infinity;
  /** tsmpi calls the rank is inside (metered worlds): its CPU meter stands still while > 0. */
  callDepth = 0;
  /** Real time the meter stopped (callDepth became > 0). */
  pausedAt = 0;
  /** Virtual time the rank was put on the resume queue (NaN: not queued). */
  queuedAt = Number.NaN;
  /** Frames the rank has sent, and received (a fresh rank's first ones cost more: FrameCosts.warmup). */
  framesSent = 0;
  framesReceived = 0;
  /** The same by payload size class (FrameCosts.sizedWarmup's `index`; made when first needed). */
  sizedSent: number[] | undefined = undefined;
  sizedReceived: number[] | undefined = undefined;
  /** The peers the rank has sent to, and received from (FrameCosts.linkSetup; made when first needed). */
  sentTo: Set<number> | undefined = undefined;
  heardFrom: Set<number> | undefined = undefined;
  /** Virtual time the rank's last segment ended: since then it waits (polling, then asleep). */
  waitingSince = 0;
  /** The link class of the last frame that reached the rank (what woke it). */
  lastArrival: LinkClass = 'intra-process';
  /** Real time (performance.now) the rank's code last began to wait in tsmpi, in its running segment. */
  lastWaitReal = 0;
  /**
   * Real seconds of measured compute the rank is owed back: where a fresh rank's first frames
   * cost less on the calibrated machine than the simulator counted running the same probe
   * (FrameCosts.warmup below 0), V8 compiling the simulator's copy of the runtime in place. Taken
   * off the measured compute of its next segments; `segmentCredit` is what the running segment
   * may use (fixed when it begins, so that its clock never runs back).
   */
  warmupCredit = 0;
  segmentCredit = 0;
  /** CPU owed for frames sent in the running segment, after they left: done once it stops running (chargeAfterSend). */
  afterSendOwed = 0;

  constructor(rank: number, host: number, proc: number) {
    this.rank = rank;
    this.host = host;
    this.proc = proc;
  }
}

/**
 * Per-frame CPU costs of a calibrated machine: what the runtime spends sending and receiving a
 * frame of `bytes` over a link of class `linkClass` (LogGP's o, SMPI's smpi/os and smpi/or).
 */
export interface FrameCosts {
  send(linkClass: LinkClass, bytes: number): number;
  recv(linkClass: LinkClass, bytes: number): number;
  /**
   * What a rank's frame number `count` (of those it sent, or of those it received, from its first)
   * costs more while the rank is fresh; below 0, what the simulator's own measured compute counts
   * beyond the real rank's there (the rank is owed it back: SimRank.warmupCredit).
   */
  warmup(linkClass: LinkClass, count: number): number;
  /**
   * The size class of a frame of `bytes` (envelope included) whose first frames cost more again,
   * or -1; then what its frame number `count` of that class costs more while the rank is fresh.
   */
  sizedWarmupClass?(linkClass: LinkClass, bytes: number): number;
  sizedWarmup?(linkClass: LinkClass, index: number, count: number): number;
  /** What a new link of `linkClass` costs, per direction (half to its first frame's sender, half to its receiver). */
  linkSetup?(linkClass: LinkClass): number;
  /** CPU the sender spends on a frame after it has left (the frame does not wait for it). */
  afterSend?(linkClass: LinkClass): number;
  /**
   * CPU of a send whose frame continues a burst and is held back by its link (publish-batch.ts);
   * undefined when the class has no such figure, and then its links hold nothing back.
   */
  burstSend?(linkClass: LinkClass, bytes: number): number | undefined;
  /** The receive of a frame that came in one write with the frame before it: without that write's path CPU. */
  groupedRecv?(linkClass: LinkClass, bytes: number): number;
}

/** What a frame of `bytes` costs more as one of the first of its size class, counted in `counts` (a rank's sent or received frames by class). */
function sizedWarmupOf(costs: FrameCosts, linkClass: LinkClass, bytes: number, counts: number[]): number {
  const index = costs.sizedWarmupClass?.(linkClass, bytes) ?? -1;
  if (index < 0) return 0;
  const count = counts[index] ?? 0;
  counts[index] = count + 1;
  return costs.sizedWarmup!(linkClass, index, count);
}

/** Half a new link's cost the first time `rank` meets `peer` this way (then remembered), else 0. */
function newLinkHalf(costs: FrameCosts, linkClass: LinkClass, rank: SimRank, way: 'sentTo' | 'heardFrom', peer: number): number {
  const setup = costs.linkSetup?.(linkClass) ?? 0;
  if (setup <= 0) return 0;
  const met = (rank[way] ??= new Set());
  if (met.has(peer)) return 0;
  met.add(peer);
  return setup / 2;
}

/**
 * How long a rank that slept takes to resume (calibrated machines). A waiting rank polls for its
 * spin budget, then sleeps: a frame that reaches it later wakes it, which costs time, the more
 * so when the host's cores are shared by more ranks.
 */
export interface WakeModel {
  /** Seconds each rank polls before it sleeps (its spin budget, as the runtime picks it). */
  readonly spinSeconds: readonly number[];
  /** Seconds a sleeping rank of `host` takes to resume after a frame of `linkClass` reached it. */
  wake(host: number, linkClass: LinkClass): number;
  /**
   * The part of that wake-up which is the woken rank's own CPU work (going to sleep and waking:
   * system calls, an event-loop turn), at most `wake`: it takes longer while the host's cores
   * are shared by busy ranks. The rest is a delay that takes no core.
   */
  wakeCpu?(host: number, linkClass: LinkClass): number;
  /**
   * Seconds asleep after which a wake-up costs all of `wake` and `wakeCpu` (the calibration
   * measured them on ranks that slept that long); a shorter sleep costs that share of them (see
   * {@link wakeShare}). Undefined: all of them, however short the sleep.
   */
  fullWakeAfter?(host: number, linkClass: LinkClass): number | undefined;
  /**
   * Seconds each rank polls with sched_yield before it sleeps (TSMPI_YIELD_US: rank threads that
   * outnumber the cores), 0 for a rank that spins. Such a rank takes a frame from another thread
   * of its process when the ranks queued on its CPU have had their turn: `wake` of its host then,
   * whatever it waited, as a delay that takes no core of its own (the others' turns are their
   * work); a wait beyond the budget is a sleep, as for a rank that spins.
   */
  readonly yieldSeconds?: readonly number[];
}

/**
 * The share of a calibrated wake-up that a sleep of `slept` seconds costs, where the calibration
 * measured the whole of it on sleeps of `full` seconds: linear between nothing (a rank still
 * turning costs no wake-up) and that. A sleep of a few microseconds past the turning budget costs
 * a real process little (docs/simulator.md has the measurement).
 */
export function wakeShare(slept: number, full: number | undefined): number {
  return full === undefined || !(full > 0) ? 1 : Math.min(1, Math.max(0, slept / full));
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
  /** Process of each rank (process ids are global, a process is on one host). @default one per rank */
  procOf?: readonly number[];
  /** Cores of each host: ranks of a host that compute at once share them. @default unlimited */
  coresOf?: readonly number[];
  /** Per-frame send and receive costs by link class and size (replaces the flat overheads). */
  frameCosts?: FrameCosts;
  /** Wake-ups of ranks that slept (none: a rank resumes when what it waits for arrives). */
  wakeModel?: WakeModel;
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
  /** Bytes a frame puts on the wire besides its payload (SMPI's envelope is 16). @default 32, the frame header */
  envelopeBytes?: number;
  /**
   * Handshake frames (a rendezvous' request and clear to send) cost no network time: matching as
   * SimGrid models it, where a transfer starts once both sides are posted. @default false
   */
  freeHandshakes?: boolean;
}

export class SimWorld {
  readonly sim: Simulation;
  readonly network: NetworkModel;
  readonly ranks: SimRank[];
  readonly computeMode: ComputeMode;
  private readonly options: SimWorldOptions;
  /** Bytes a frame puts on the wire besides its payload. */
  readonly envelopeBytes: number;
  readonly freeHandshakes: boolean;
  private readonly resumeHeap: ResumeEntry[] = [];
  private resumeSeq = 0;
  /** The rank whose segment is running, if any. */
  current: SimRank | null = null;
  /** The rank whose segment ran last (still running or not). */
  lastTurn: SimRank | null = null;
  /** > 0 while network events run inside a rank's segment (its meter stopped, advanceNetwork). */
  private inNetwork = 0;
  /** Timeline spans, when a trace was asked for. */
  spans: Span[] | null = null;
  /** Ranks' clock timers scheduled and not yet fired or cancelled (conveyor flushes, rail watchdogs, ...). */
  liveTimers = 0;
  /** Bytes sent on each rail (frames with their headers). */
  readonly railBytes: number[] = [];
  /** Ranks of each host, for hosts with fewer cores than ranks (the others need no count). */
  private readonly crowded: (SimRank[] | undefined)[] = [];
  private readonly cores: readonly number[];

  constructor(options: SimWorldOptions) {
    this.options = options;
    this.envelopeBytes = options.envelopeBytes ?? FRAME_HEADER_BYTES;
    this.freeHandshakes = options.freeHandshakes ?? false;
    this.sim = options.sim;
    this.network = options.network;
    this.computeMode = options.computeMode;
    this.ranks = options.hostOf.map((host, rank) => new SimRank(rank, host, options.procOf?.[rank] ?? rank));
    this.cores = options.coresOf ?? [];
    for (const r of this.ranks) {
      const cores = this.cores[r.host];
      if (cores === undefined) continue;
      (this.crowded[r.host] ??= []).push(r);
    }
    this.crowded.forEach((list, h) => {
      if (list !== undefined && list.length <= this.cores[h]!) this.crowded[h] = undefined;
    });
  }

  /** How two ranks are linked: the same process, two processes of one host, or two hosts. */
  linkClass(from: SimRank, to: SimRank): LinkClass {
    return linkClassOf(from.host, to.host, from.proc, to.proc);
  }

  /**
   * How much slower `rank` computes from `time` on: the ranks of its host that compute then (one
   * running or due to run by `time`, or still busy with a segment that ends after it), over its
   * cores; 1 while they fit. For work a rank does outside its segments; a segment follows the
   * share as it changes (fixSegmentShare).
   */
  private shareAt(rank: SimRank, time: number): number {
    const list = this.crowded[rank.host];
    if (list === undefined) return 1;
    let busy = 1;
    for (const other of list) {
      // A rank whose program ended after `time` was still busy then (a leaf of a reduce that
      // ended once its part was sent): only one that ended by `time` has left the cores.
      if (other === rank || other.stats.end <= time) continue;
      if (other.running || other.readyAt > time || other.queuedAt <= time) busy++;
    }
    return Math.max(1, busy / this.cores[rank.host]!);
  }

  /**
   * Fixes who shares the cores with the segment of `rank` that starts at `time`. A rank due to run
   * by then, or whose last segment (already run) ends after it, counts as busy throughout: what
   * it does next is unknown until it runs, and counting it keeps ranks that compute alike exact.
   * But when nothing is under way (no frame in flight, no timer set), a rank that stopped can
   * only be woken by this segment's own sends or when it is due to resume: it leaves the cores
   * when its last segment ends and comes back when it is due. Ranks released together whose
   * parts take microseconds thus leave one that compiles for milliseconds a core to itself, as
   * they do in a real run. A rank woken during the segment does not slow it otherwise: the
   * simulator runs one rank at a time, and a segment is not slowed retroactively (it stays
   * causal).
   */
  private fixSegmentShare(rank: SimRank, time: number): void {
    rank.shareFirst = 1;
    rank.shareTimes.length = 0;
    rank.shareBusy.length = 0;
    rank.shareWork.length = 0;
    const list = this.crowded[rank.host];
    rank.shareCores = list === undefined ? Infinity : this.cores[rank.host]!;
    if (list === undefined) return;
    const settled = this.sim.live === 0;
    const steps: { at: number; by: number }[] = [];
    for (const other of list) {
      if (other === rank || other.stats.end <= time) continue;
      if (other.running || other.queuedAt <= time) rank.shareFirst++;
      else if (other.readyAt > time) {
        rank.shareFirst++;
        if (settled) steps.push({ at: other.readyAt, by: -1 });
      }
      // Due to resume during the segment (queuedAt is NaN when it is not queued).
      if (settled && other.queuedAt > time) steps.push({ at: other.queuedAt, by: 1 });
    }
    if (steps.length === 0) return;
    steps.sort((x, y) => x.at - y.at || x.by - y.by);
    let count = rank.shareFirst;
    let at = time;
    let done = 0;
    for (const step of steps) {
      done += (step.at - at) / Math.max(1, count / rank.shareCores);
      count += step.by;
      at = step.at;
      rank.shareTimes.push(at);
      rank.shareBusy.push(count);
      rank.shareWork.push(done);
    }
  }

  /** The index of the last step of `steps` (ascending) at or before `value`, -1 if none. */
  private static stepAt(steps: readonly number[], value: number): number {
    let lo = 0;
    let hi = steps.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (steps[mid]! <= value) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /**
   * Virtual seconds the running segment of `rank` takes from virtual time `from` on to do `work`
   * seconds of compute at full speed: each stretch of its share profile at the share it has.
   */
  private segmentStretch(rank: SimRank, from: number, work: number): number {
    const times = rank.shareTimes;
    const done = rank.shareWork;
    const shareOf = (i: number): number => Math.max(1, (i < 0 ? rank.shareFirst : rank.shareBusy[i]!) / rank.shareCores);
    if (times.length === 0) return work * shareOf(-1);
    // The compute the segment would have done by `from`, plus `work`: the step where that is done.
    const k = SimWorld.stepAt(times, from);
    const target = (k < 0 ? 0 : done[k]!) + (from - (k < 0 ? rank.segmentStart : times[k]!)) / shareOf(k) + work;
    const i = SimWorld.stepAt(done, target);
    return Math.max(0, (i < 0 ? rank.segmentStart : times[i]!) + (target - (i < 0 ? 0 : done[i]!)) * shareOf(i) - from);
  }

  /** The virtual time of `rank` now: its segment start plus what it has computed since. */
  rankNow(rank: SimRank): number {
    return this.rankAt(rank, Number.NaN);
  }

  /**
   * The virtual time of `rank` at real time `real` (performance.now; NaN: now) of its running
   * segment. The clock is read only when compute is measured (declared runs never need it).
   */
  private rankAt(rank: SimRank, real: number): number {
    if (!rank.running) return Math.max(rank.readyAt, this.sim.now());
    let t = rank.segmentStart + rank.declared;
    if (this.computeMode === 'measured') t += this.segmentStretch(rank, rank.segmentStart, this.creditedSeconds(rank, real) * this.options.cpuScale(rank.host, rank.segmentStart));
    return t;
  }

  /** Real seconds the running segment of `rank` has computed by real time `real` (NaN: now). */
  private measuredSeconds(rank: SimRank, real: number): number {
    return ((rank.callDepth > 0 ? rank.pausedAt : Number.isNaN(real) ? performance.now() : real) - rank.realStart) / 1000;
  }

  /** The same less the warm-up credit the segment may use (SimRank.warmupCredit). */
  private creditedSeconds(rank: SimRank, real: number): number {
    const measured = this.measuredSeconds(rank, real);
    return measured > rank.segmentCredit ? measured - rank.segmentCredit : 0;
  }

  /** Starts a segment of `rank` at virtual time `time`. */
  beginSegment(rank: SimRank, time: number): void {
    rank.running = true;
    rank.segmentStart = time;
    rank.spanCursor = time;
    rank.declared = 0;
    rank.polledInSegment = 0;
    rank.overheadInSegment = 0;
    rank.realStart = performance.now();
    // A rank resumed inside a tsmpi call (its wait) starts with the meter stopped.
    rank.pausedAt = rank.realStart;
    rank.segmentCredit = rank.warmupCredit;
    this.fixSegmentShare(rank, time);
    this.current = rank;
    this.lastTurn = rank;
  }

  /**
   * The running rank enters a tsmpi call (call-meter.ts): its CPU meter stops until the call
   * returns (a post) or settles (a blocking call), see leaveCall.
   */
  enterCall(): SimRank | null {
    const rank = this.current;
    if (rank === null) return null;
    if (rank.callDepth++ === 0) rank.pausedAt = performance.now();
    return rank;
  }

  /**
   * The simulator's own work for the running `rank` begins (its simulated link taking a frame):
   * what a real rank's link does is in the calibrated frame costs, and the simulator's stand-in
   * for it is not the rank's compute. Stops the rank's CPU meter as a call does; true when it did
   * (then end it with {@link leaveCall}).
   */
  pauseMeter(rank: SimRank): boolean {
    if (this.computeMode !== 'measured' || this.current !== rank || !rank.running) return false;
    if (rank.callDepth++ === 0) rank.pausedAt = performance.now();
    return true;
  }

  /** The call `enterCall` returned `rank` for has returned or settled. */
  leaveCall(rank: SimRank): void {
    if (rank.callDepth === 0) return;
    if (--rank.callDepth === 0 && rank.running) rank.realStart += performance.now() - rank.pausedAt;
  }

  /** Appends a span to the rank's timeline, merged with the previous one when they touch. */
  private span(rank: SimRank, kind: Span['kind'], start: number, end: number): void {
    const spans = this.spans;
    if (spans === null || !(end > start)) return;
    for (let i = spans.length - 1; i >= 0 && i >= spans.length - 4; i--) {
      const last = spans[i]!;
      if (last.rank !== rank.rank) continue;
      if (last.kind === kind && last.end === start) {
        last.end = end;
        return;
      }
      break;
    }
    spans.push({ rank: rank.rank, kind, start, end });
  }

  /**
   * Ends the running segment of `rank` (it waits or finished); returns its end time. `real` is
   * when its code stopped running (performance.now; NaN: now; see endSegmentAfterTurn).
   */
  endSegment(rank: SimRank, real = Number.NaN): number {
    // One reading of the clock for both the segment's end and the credit it used.
    const stopped = Number.isNaN(real) && rank.running && this.computeMode === 'measured' ? performance.now() : real;
    const end = this.rankAt(rank, stopped);
    if (rank.segmentCredit > 0) {
      rank.warmupCredit -= Math.min(rank.segmentCredit, Math.max(0, this.measuredSeconds(rank, stopped)));
      rank.segmentCredit = 0;
    }
    const notCompute = rank.polledInSegment + rank.overheadInSegment;
    // max: rounding of (end - start) - parts may leave -1e-19 where nothing was computed.
    rank.stats.compute += Math.max(0, end - rank.segmentStart - notCompute);
    rank.stats.blocked += rank.polledInSegment;
    rank.stats.overhead += rank.overheadInSegment;
    this.span(rank, 'compute', rank.spanCursor, end);
    rank.running = false;
    rank.readyAt = end;
    rank.blockedSince = end;
    rank.waitingSince = end;
    if (this.current === rank) this.current = null;
    if (rank.afterSendOwed > 0) {
      // The frames' work after they left: it runs first, the rank waiting only from its end on.
      this.addOutside(rank, 'overhead', rank.afterSendOwed * this.shareAt(rank, end), end);
      rank.afterSendOwed = 0;
      rank.waitingSince = rank.readyAt;
    }
    const yielded = rank.onYield;
    rank.onYield = null;
    yielded?.();
    // Frames that arrived while it ran may already satisfy what it waits for.
    rank.onArrival?.();
    return end;
  }

  /**
   * Ends the running segment of `rank` found blocked one turn of the event loop after it ran: the
   * turn is the runner's, not the rank's. Its code stopped `turnMillis` before the turn came
   * round (`turned`, performance.now; NaN: now), or at its last wait in tsmpi if that was later.
   * (Each segment counted a whole turn as compute before: ~5 us per message of a ping-pong on 2
   * cores, 3x the real round trip; and, until the turn was read in its own callback, the
   * runner's work after it too, V8 compiling the runner while it warms up.)
   */
  endSegmentAfterTurn(rank: SimRank, turnMillis: number, turned = Number.NaN): number {
    if (this.computeMode !== 'measured') return this.endSegment(rank);
    const real = Number.isNaN(turned) ? performance.now() : Math.min(turned, performance.now());
    return this.endSegment(rank, Math.min(real, Math.max(rank.realStart, rank.lastWaitReal, real - turnMillis)));
  }

  /**
   * Restarts the CPU meter of the running segment: what came before was the simulator's (the rank
   * called init(): loading and compiling its module; or the runner, resuming it, has done its own
   * part and is about to yield to the rank's code).
   */
  restartMeter(rank: SimRank): void {
    if (!rank.running) return;
    rank.realStart = performance.now();
    // A meter stopped inside a call stays stopped, from here.
    if (rank.callDepth > 0) rank.pausedAt = rank.realStart;
  }

  /**
   * Charges `rank` the per-message overhead of one frame it sends to `to` (nothing when it is 0):
   * inside its segment, or, for a frame the network sends on its behalf while it waits (a
   * rendezvous stream), after whatever it was already due to do.
   */
  chargeSend(rank: SimRank, to: SimRank, bytes = 0, held = false): void {
    const costs = this.options.frameCosts;
    if (costs === undefined) {
      this.chargeOverhead(rank, (rank.host === to.host ? this.options.localMessageOverhead : this.options.messageOverhead) ?? 0);
      return;
    }
    const linkClass = this.linkClass(rank, to);
    const fresh = this.freshCost(rank, costs.warmup(linkClass, rank.framesSent++) + sizedWarmupOf(costs, linkClass, bytes, (rank.sizedSent ??= [])));
    const call = held ? (costs.burstSend?.(linkClass, bytes) ?? costs.send(linkClass, bytes)) : costs.send(linkClass, bytes);
    this.chargeOverhead(rank, call + fresh + newLinkHalf(costs, linkClass, rank, 'sentTo', to.rank));
  }

  /** True when links from `rank` to `to` hold back the frames of a burst: the calibration measured what such a send costs. */
  holdsBursts(rank: SimRank, to: SimRank): boolean {
    return this.options.frameCosts?.burstSend?.(this.linkClass(rank, to), 0) !== undefined;
  }

  /**
   * Charges `rank` the write of the held frames of a burst to `to`, `bytes` in all: what a send of
   * that many bytes costs beyond the held sends' calls (chargeSend charged those).
   */
  chargeRelease(rank: SimRank, to: SimRank, bytes: number): void {
    const costs = this.options.frameCosts;
    if (costs === undefined) return;
    const linkClass = this.linkClass(rank, to);
    this.chargeOverhead(rank, Math.max(0, costs.send(linkClass, bytes) - (costs.burstSend?.(linkClass, bytes) ?? 0)));
  }

  /**
   * Charges `rank` the CPU it spends on a frame to `to` after the frame has left (chargeSend's
   * cost is before). The runtime does it in its event loop, so a rank that is running owes it
   * until it stops (its send call returns as soon as it would have); a rank that sends and
   * receives at once pays it before it handles what came.
   */
  chargeAfterSend(rank: SimRank, to: SimRank): void {
    const after = this.options.frameCosts?.afterSend?.(this.linkClass(rank, to)) ?? 0;
    if (after <= 0) return;
    if (rank.running) rank.afterSendOwed += after;
    else this.chargeOverhead(rank, after);
  }

  /** A fresh frame's warm-up to charge: itself, or nothing when it is a credit (then owed to `rank`). */
  private freshCost(rank: SimRank, warmup: number): number {
    if (warmup >= 0) return warmup;
    rank.warmupCredit -= warmup;
    return 0;
  }

  /**
   * Charges `rank` the receive cost of a frame of `bytes` from `from` (calibrated machines only);
   * `grouped`: the frame came in one write with the one before it.
   */
  chargeRecv(rank: SimRank, from: SimRank, bytes: number, grouped = false): void {
    const costs = this.options.frameCosts;
    if (costs === undefined) return;
    const linkClass = this.linkClass(from, rank);
    rank.lastArrival = linkClass;
    const fresh = this.freshCost(rank, costs.warmup(linkClass, rank.framesReceived++) + sizedWarmupOf(costs, linkClass, bytes, (rank.sizedReceived ??= [])));
    const own = grouped && costs.groupedRecv !== undefined ? costs.groupedRecv(linkClass, bytes) : costs.recv(linkClass, bytes);
    this.chargeOverhead(rank, own + fresh + newLinkHalf(costs, linkClass, rank, 'heardFrom', from.rank));
  }

  /**
   * When a rank whose waiter was satisfied at `time` resumes: at once if it was still polling
   * (it waited no longer than its spin budget), else after its wake-up.
   */
  resumeTime(rank: SimRank, time: number): number {
    const model = this.options.wakeModel;
    const yielding = model?.yieldSeconds?.[rank.rank] ?? 0;
    if (yielding > 0 && rank.lastArrival === 'intra-process') {
      const waited = time - rank.waitingSince;
      if (waited <= 0) return time;
      if (waited <= yielding) return Math.max(time, rank.readyAt) + model!.wake(rank.host, 'intra-process');
    }
    const slept = model === undefined ? 0 : time - rank.waitingSince - Math.max(yielding, model.spinSeconds[rank.rank]!);
    if (model === undefined || slept <= 0) return time;
    // The frame's receive cost (charged at its arrival) is the woken rank's work: after the wake-up.
    const share = wakeShare(slept, model.fullWakeAfter?.(rank.host, rank.lastArrival));
    const wake = share * model.wake(rank.host, rank.lastArrival);
    const cpu = Math.min(wake, share * (model.wakeCpu?.(rank.host, rank.lastArrival) ?? 0));
    const woken = Math.max(time, rank.readyAt) + wake - cpu;
    if (cpu <= 0) return woken;
    // Its own work takes a core: shared with the ranks busy then, and busy itself meanwhile.
    this.addOutside(rank, 'overhead', cpu * this.shareAt(rank, woken), woken);
    return rank.readyAt;
  }

  /**
   * A calibrated frame cost is CPU work on the host's cores: ranks busy meanwhile share them (the
   * flat LogGP overheads of the made-up platforms stay what they are set to).
   */
  private chargeOverhead(rank: SimRank, o: number): void {
    if (o <= 0) return;
    const shared = this.options.frameCosts !== undefined;
    if (rank.running) {
      const t = shared ? this.segmentStretch(rank, this.rankNow(rank), o) : o;
      this.addToSegment(rank, 'overhead', t);
      rank.overheadInSegment += t;
      return;
    }
    this.addOutside(rank, 'overhead', shared ? o * this.shareAt(rank, Math.max(rank.readyAt, this.sim.now())) : o);
  }

  /**
   * Adds declared compute (seconds of virtual time) to the running segment of `rank`; code of a
   * rank that runs outside its segments (a callback of its clock) computes after what it was
   * already due to do.
   */
  declareCompute(rank: SimRank, seconds: number): void {
    if (rank.running) this.addToSegment(rank, 'compute', this.segmentStretch(rank, this.rankNow(rank), seconds));
    else this.addOutside(rank, 'compute', seconds * this.shareAt(rank, Math.max(rank.readyAt, this.sim.now())));
  }

  /** Runs `build` (work of `rank` inside the runtime: a value decoded, a copy) and charges its CPU (chargeBuilding). */
  building<T>(rank: SimRank, build: () => T): T {
    if (this.computeMode !== 'measured') return build();
    const started = performance.now();
    const value = build();
    this.chargeBuilding(rank, (performance.now() - started) / 1000);
    return value;
  }

  /**
   * `rank` spent `realSeconds` of this process's time building a received value (Progress.building):
   * computing, unless its meter was running and counted it already.
   */
  chargeBuilding(rank: SimRank, realSeconds: number): void {
    if (this.computeMode !== 'measured' || realSeconds <= 0) return;
    if (rank.running && this.current === rank && rank.callDepth === 0 && this.inNetwork === 0) return;
    this.declareCompute(rank, realSeconds * this.options.cpuScale(rank.host, Math.max(rank.readyAt, this.sim.now())));
  }

  /** Time a rank spends while not running (its segment over): from its ready time on (or `from`, if later). */
  private addOutside(rank: SimRank, kind: 'compute' | 'overhead', seconds: number, from = 0): void {
    const start = Math.max(rank.readyAt, this.sim.now(), from);
    this.blockedSpan(rank, start);
    this.span(rank, kind, start, start + seconds);
    rank.stats[kind] += seconds;
    rank.readyAt = start + seconds;
    rank.blockedSince = start + seconds;
  }

  /** Adds time spent polling inside a tsmpi call (test, iprobe in a loop) to the running segment. */
  declarePolling(rank: SimRank, seconds: number): void {
    this.addToSegment(rank, 'blocked', seconds);
    rank.polledInSegment += seconds;
  }

  /** Moves the running segment's clock on by `seconds` of `kind`, writing the timeline up to there. */
  private addToSegment(rank: SimRank, kind: Span['kind'], seconds: number): void {
    if (this.spans !== null) {
      const at = this.rankNow(rank);
      this.span(rank, 'compute', rank.spanCursor, at);
      this.span(rank, kind, at, at + seconds);
      rank.spanCursor = at + seconds;
    }
    rank.declared += seconds;
  }

  /** Counts the rank's wait from when it stopped running until `until` as blocked. */
  private blockedSpan(rank: SimRank, until: number): void {
    if (until <= rank.blockedSince) return;
    rank.stats.blocked += until - rank.blockedSince;
    this.span(rank, 'blocked', rank.blockedSince, until);
    rank.blockedSince = until;
  }

  /** The rank's program ended: closes its books (its end time is the rank's last instant). */
  finishRank(rank: SimRank): number {
    const end = rank.running ? this.endSegment(rank) : Math.max(rank.readyAt, rank.blockedSince);
    this.blockedSpan(rank, end);
    rank.stats.end = end;
    return end;
  }

  flopsTime(rank: SimRank, flops: number): number {
    return this.options.flopsTime(rank.host, this.rankNow(rank), flops);
  }

  /** Puts `rank` on the resume queue for virtual time `time` (not before it is ready). */
  wake(rank: SimRank, time: number): void {
    const entry: ResumeEntry = { time: Math.max(time, rank.readyAt), seq: this.resumeSeq++, rank };
    if (!(rank.queuedAt <= entry.time)) rank.queuedAt = entry.time;
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
    if (!(this.sim.peekTime() <= Math.min(time, heap.length > 0 ? heap[0]!.time : Infinity))) return;
    // The simulator's own work (the flow model, other ranks' deliveries) is nobody's compute:
    // the running rank's CPU meter stops while it runs, as it does in a call. Stopped, not
    // wound back after: what the events stamp on the rank's clock (a receive matched on
    // arrival) must not lie ahead of its next reading.
    const running = this.current;
    const paused = running !== null && this.pauseMeter(running);
    // An event may wake a rank: the bound is read again after each one.
    this.inNetwork++;
    try {
      while (this.sim.peekTime() <= Math.min(time, heap.length > 0 ? heap[0]!.time : Infinity)) this.sim.step();
    } finally {
      this.inNetwork--;
      if (paused) this.leaveCall(running);
    }
  }

  /**
   * True when nothing is left but the ranks' timers: no rank to resume, no transfer in flight. A
   * timer may still start something (a rail's drain tick), so they run; the runner stops when
   * nothing but timers has happened for a long while (a periodic timer in a deadlock).
   */
  onlyTimersLeft(): boolean {
    return this.resumeHeap.length === 0 && this.sim.live <= this.liveTimers;
  }

  /** Resolves when the running segment of `rank` ends. */
  segmentEnd(rank: SimRank): Promise<void> {
    if (!rank.running) return Promise.resolve();
    return new Promise((resolve) => {
      rank.onYield = resolve;
    });
  }

  /** Resolves when the running `rank` waits in tsmpi (or its segment ends). */
  firstWait(rank: SimRank): Promise<void> {
    if (!rank.running) return Promise.resolve();
    return new Promise((resolve) => {
      rank.onWait = resolve;
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
    rank.queuedAt = Number.NaN;
    const resume = rank.resume;
    if (resume === null) return null;
    rank.resume = null;
    // Overhead charged while it waited may have pushed its ready time past the entry's.
    const at = Math.max(entry.time, rank.readyAt);
    this.blockedSpan(rank, at);
    this.beginSegment(rank, at);
    resume();
    return rank;
  }
}
