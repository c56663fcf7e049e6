/**
 * The flow network model (SimGrid's CM02 family): a message waits its route's latency, then flows
 * over the route's links, sharing each link's bandwidth max-min fairly with the other flows there
 * (maxmin.ts); it arrives when its last byte has flowed. Rates are recomputed incrementally, and
 * once per virtual instant however many flows start or end at that instant: a change schedules
 * one zero-delay "solve" event, which runs after every event already due at that time.
 * Flows between the same two hosts on one rail have the same links, bound and weight, hence one
 * rate: the solver sees one flow per host pair standing for all of them (FlowClass), so a solve
 * costs the host pairs of a component, not its flows (an all-to-all on 256 ranks: 65K flows,
 * 240 pairs per 16-node component, 35x faster at equal results).
 *
 * Options mirror SimGrid's knobs so runs can be matched against it (network-models.ts names the
 * sets SimGrid calls CM02, SMPI and LV08):
 * - `latencyFactor`, `bandwidthFactor`: a number, or a factor by message size (SMPI's
 *   smpi/lat-factor, smpi/bw-factor, size-factor.ts). The latency factor stretches the wait; the
 *   bandwidth factor scales the flow's progress, not its share (a flow at factor 0.94 takes its
 *   whole share of the link and moves 0.94 of it), as SimGrid's rate factor does;
 * - `tcpGamma`: a flow's rate is bounded by gamma / (2 x route latency), the TCP window limit
 *   (SimGrid's network/TCP-gamma, default 4194304; 0 turns the bound off);
 * - `latencyWeighted`: on a common bottleneck a flow's share is inversely proportional to its
 *   sharing penalty, the route latency plus `weightS` / bandwidth of each link of the route (TCP's
 *   RTT unfairness; SimGrid's network/weight-S, 0 in CM02, 8775 in SMPI). On by default; off,
 *   every flow has an equal share;
 * - `crosstraffic`: each flow also takes 0.05 of its rate on every link of the reverse route (the
 *   acknowledgements; SimGrid's network/crosstraffic), 1.05 on a link both routes cross.
 * FATPIPE links give every flow their whole bandwidth (a bound, not a shared constraint);
 * messages between ranks of one host use a loopback of `loopbackBandwidth`.
 */
import type { TimerHandle } from '../../clock.js';
import type { Simulation } from '../engine.js';
import type { Platform } from '../platform/platform.js';
import { CompletionHeap } from './completion-heap.js';
import { MaxMinSystem } from './maxmin.js';
import type { LinkUsage, NetworkModel } from './model.js';
import { constantFactor, type SizeFactor } from './size-factor.js';

/** Share of a flow's rate its acknowledgements take on the reverse route (SimGrid's cross-traffic). */
const CROSSTRAFFIC = 0.05;

export interface FlowModelOptions {
  /** The model's name in summaries (cm02, smpi, ...). @default 'flow' */
  name?: string;
  /** @default 1 */
  latencyFactor?: number | SizeFactor;
  /** @default 1 */
  bandwidthFactor?: number | SizeFactor;
  tcpGamma?: number;
  /** Added to a flow's sharing penalty per link of its route, over the link's bandwidth. @default 0 */
  weightS?: number;
  /** Each flow also uses 0.05 of its rate on its reverse route. @default false */
  crosstraffic?: boolean;
  /** Bytes/s between ranks of one host. @default 1e10 */
  loopbackBandwidth?: number;
  /** Shares on a bottleneck inversely proportional to route latency (SimGrid CM02). @default true */
  latencyWeighted?: boolean;
  /**
   * Frames of at most this many bytes (a protocol's header-only control frames: a rendezvous'
   * request and clear-to-send are 32 bytes) take latency + size / narrowest bandwidth and stay
   * out of the sharing: a solve of a large component per control frame would cost more than the
   * bytes they move. 0 puts every frame in the sharing. @default 64
   */
  smallFrameBytes?: number;
  /**
   * Seconds between re-solves of the sharing (0: exact, a re-solve at every instant a flow starts
   * or ends). With q > 0, flows that start wait for the next multiple of q to get a rate, and the
   * bandwidth a finished flow frees is handed out at the next multiple of q: each flow is late by
   * less than q, capacity is never exceeded, and a run whose flows end at many distinct instants
   * (random sizes on thousands of ranks) costs far fewer solves of large components. @default 0
   */
  solveInterval?: number;
}

/**
 * The flows between one pair of hosts on one rail: same links, bound and weight, so max-min gives
 * them one rate at every instant (the solver sees one flow of `count` members, maxmin.ts). All
 * members move at that rate, so each is described by the class's bytes-per-member `served` at
 * which it ends (`target`): a rate change is O(1) for the class, not O(members), and its members
 * end in order of target. An all-to-all on 256 ranks has 65K flows in one component but only the
 * host pairs as classes.
 */
interface FlowClass {
  /** Solver flow id (the class's id in `completions`). */
  readonly id: number;
  readonly key: number;
  readonly links: readonly number[];
  /** Members moving or waiting for their first solve (the solver's count). */
  count: number;
  /** Rate of each member since `updated` (0 before the first solve). */
  rate: number;
  /** Bytes each member of the class had moved by `updated`, counted from the class's creation. */
  served: number;
  updated: number;
  /**
   * Moving members: flow ids in a binary min-heap by (target, id). Not a CompletionHeap: members
   * never move once in (their targets are fixed), and its index by flow id would cost each class
   * an array as long as the largest flow id.
   */
  heapIds: number[];
  heapTargets: number[];
  /** Members started since the last solve: they get their first rate there. */
  waiting: number[];
}

/**
 * What the solver needs of a host pair's class (its constraints, their coefficients, bound and
 * weight), worked out from the routes once per pair: classes come and go as the pair's first
 * message starts and its last ends (an all-to-all's pairwise steps re-create each pair's class
 * once per collective), and building the lists anew each time was a fifth of the flow model's
 * own time in a 64-rank replay of every collective.
 */
interface ClassSpec {
  readonly constraints: readonly number[];
  readonly options: { readonly bound: number; readonly weight: number; readonly coefficients?: readonly number[] };
}

export class FlowModel implements NetworkModel {
  readonly name: string;
  private readonly sim: Simulation;
  private readonly platform: Platform;
  private readonly system = new MaxMinSystem();
  /** Platform link id -> solver link id (-1 for fatpipe links: bounds, not constraints). */
  private readonly solverLink: Int32Array;
  /** Current bandwidth of each platform link. */
  private readonly bandwidth: Float64Array;
  /** Classes by route key ((rail x hosts + src) x hosts + dst), and by solver flow id. */
  private readonly classByKey = new Map<number, FlowClass>();
  /** Solver inputs by route key (x2, + 1 when the latency wait is > 0), for classes made again; cleared when a bandwidth changes. */
  private readonly specByKey = new Map<number, ClassSpec>();
  private readonly classById: (FlowClass | undefined)[] = [];
  /** Classes with members waiting for their first solve. */
  private waitingClasses: FlowClass[] = [];
  // Flows (members), by id. Ids are handed out as the solver hands out its flow ids (the most
  // recently freed first), so that flows ending at one instant finish in the same order as when
  // every flow was a solver flow of its own.
  private flowSlots = 0;
  private readonly freeFlowIds: number[] = [];
  private flowBytes = new Float64Array(64);
  /** Bytes over the bandwidth factor: what the flow must drain at the solver's rate. */
  private flowWork = new Float64Array(64);
  private flowTarget = new Float64Array(64);
  private flowClass: (FlowClass | undefined)[] = [];
  private flowArrived: ((() => void) | undefined)[] = [];
  private liveFlows = 0;
  private readonly latencyFactor: SizeFactor;
  private readonly bandwidthFactor: SizeFactor;
  private readonly tcpGamma: number;
  private readonly weightS: number;
  readonly crosstraffic: boolean;
  private readonly loopbackBandwidth: number;
  private readonly latencyWeighted: boolean;
  private readonly smallFrameBytes: number;
  private readonly solveInterval: number;
  private solveScheduled = false;
  /** The solve event's callback, made once (a solve is posted per instant that changes flows). */
  private readonly solveEvent = (): void => this.solve();
  private readonly completeEvent = (): void => this.completeDue();
  /** Earliest completion of every class with moving members (keyed by class id), and the one engine event armed for the earliest. */
  private readonly completions = new CompletionHeap();
  private timer: TimerHandle | null = null;
  private timerAt = Infinity;
  private readonly linkBytes: Float64Array;
  private readonly linkFlows: Int32Array;
  private readonly linkBusySince: Float64Array;
  private readonly linkBusy: Float64Array;
  /** Solver time and calls (for the scale benchmark). */
  solves = 0;
  solveSeconds = 0;

  constructor(sim: Simulation, platform: Platform, options: FlowModelOptions = {}) {
    this.sim = sim;
    this.platform = platform;
    this.name = options.name ?? 'flow';
    this.latencyFactor = asFactor(options.latencyFactor ?? 1);
    this.bandwidthFactor = asFactor(options.bandwidthFactor ?? 1);
    this.tcpGamma = options.tcpGamma ?? 4194304;
    this.weightS = options.weightS ?? 0;
    if (!(this.weightS >= 0 && this.weightS < Infinity)) throw new RangeError(`flow model: weightS must be a finite number >= 0, got ${this.weightS}`);
    this.crosstraffic = options.crosstraffic ?? false;
    this.loopbackBandwidth = options.loopbackBandwidth ?? 1e10;
    this.latencyWeighted = options.latencyWeighted ?? true;
    this.smallFrameBytes = options.smallFrameBytes ?? 64;
    this.solveInterval = options.solveInterval ?? 0;
    if (!(this.solveInterval >= 0 && Number.isFinite(this.solveInterval))) throw new RangeError(`flow model: solveInterval must be a finite number of seconds >= 0, got ${this.solveInterval}`);
    const n = platform.linkCount;
    this.solverLink = new Int32Array(n);
    this.bandwidth = new Float64Array(n);
    for (let l = 0; l < n; l++) {
      const link = platform.link(l);
      this.bandwidth[l] = link.bandwidth;
      this.solverLink[l] = link.sharing === 'fatpipe' ? -1 : this.system.addLink(this.bandwidth[l]!);
    }
    this.linkBytes = new Float64Array(n);
    this.linkFlows = new Int32Array(n);
    this.linkBusySince = new Float64Array(n);
    this.linkBusy = new Float64Array(n);
    // Rails whose bandwidth changes over time (a rail that loses half its rate mid-run).
    for (let rail = 0; rail < platform.rails; rail++) {
      const profile = platform.railProfile(rail);
      if (profile === undefined) continue;
      const links: number[] = [];
      for (let l = 0; l < n; l++) if ((platform.link(l).rail ?? 0) === rail) links.push(l);
      for (const step of profile) sim.post(step.time, () => links.forEach((l) => this.setBandwidth(l, platform.link(l).bandwidth * step.factor)));
    }
  }

  /** Changes a link's bandwidth from now on (a rail slows down or recovers). */
  setBandwidth(link: number, bandwidth: number): void {
    this.bandwidth[link] = bandwidth;
    const id = this.solverLink[link]!;
    if (id >= 0) this.system.setCapacity(id, this.bandwidth[link]!);
    // Bounds come from the route's bandwidths (fatpipes, pruning): refresh the flows crossing it.
    this.specByKey.clear();
    for (const c of this.classByKey.values()) {
      if (c.links.includes(link)) this.system.setBound(c.id, this.boundOf(c.links, this.latencyOf(c.key)));
    }
    this.needSolve();
  }

  /** The route latency of a class (from its key). */
  private latencyOf(key: number): number {
    const { src, dst, rail } = this.endsOf(key);
    return this.platform.routeLatency(src, dst, rail);
  }

  /** The hosts and rail of a class key ((rail x hosts + src) x hosts + dst). */
  private endsOf(key: number): { src: number; dst: number; rail: number } {
    const n = this.platform.hostCount;
    const dst = key % n;
    const src = ((key - dst) / n) % n;
    return { src, dst, rail: (key - dst - src * n) / (n * n) };
  }

  /**
   * A flow's rate bound: the TCP window over the round trip and its fatpipe links. A bound no
   * smaller than a shared link of the route never binds and is left out of the solver.
   */
  private boundOf(links: readonly number[], latency: number): number {
    let bound = this.tcpGamma > 0 && latency > 0 ? this.tcpGamma / (2 * latency) : Infinity;
    let narrowest = Infinity;
    for (const l of links) {
      if (this.solverLink[l]! >= 0) narrowest = Math.min(narrowest, this.bandwidth[l]!);
      else bound = Math.min(bound, this.bandwidth[l]!);
    }
    return bound >= narrowest ? Infinity : bound;
  }

  send(src: number, dst: number, bytes: number, rail: number, arrived: () => void): void {
    if (src === dst) {
      this.sim.post(this.sim.now() + bytes / this.loopbackBandwidth, arrived);
      return;
    }
    const links = this.platform.route(src, dst, rail);
    // SimGrid's CM02 takes the TCP window bound and the sharing weight from the route's own
    // latency; the latency factor only stretches the wait.
    const routeLatency = this.platform.routeLatency(src, dst, rail);
    const wait = routeLatency * this.latencyFactor.at(bytes);
    const factor = this.bandwidthFactor.at(bytes);
    if (bytes <= this.smallFrameBytes) {
      let narrowest = Infinity;
      for (const l of links) narrowest = Math.min(narrowest, this.bandwidth[l]!);
      this.sim.post(this.sim.now() + wait + (narrowest === Infinity ? 0 : bytes / (narrowest * factor)), arrived);
      return;
    }
    const n = this.platform.hostCount;
    const key = ((rail ?? 0) * n + src) * n + dst;
    this.sim.post(this.sim.now() + wait, () => this.start(key, links, routeLatency, wait, bytes, factor, arrived));
  }

  /** A new class's solver flow: its constraints (and cross-traffic's), bound and weight. */
  private addClassFlow(key: number, links: readonly number[], latency: number, wait: number): number {
    // (A latency factor of 0 at some sizes makes the same pair's weight differ: both are kept.)
    const specKey = 2 * key + (wait > 0 ? 1 : 0);
    let spec = this.specByKey.get(specKey);
    if (spec === undefined) {
      spec = this.classSpec(key, links, latency, wait);
      this.specByKey.set(specKey, spec);
    }
    return this.system.addFlow(spec.constraints, spec.options);
  }

  private classSpec(key: number, links: readonly number[], latency: number, wait: number): ClassSpec {
    const constraints: number[] = [];
    const coefficients: number[] = [];
    for (const l of links) {
      const s = this.solverLink[l]!;
      if (s >= 0) {
        constraints.push(s);
        coefficients.push(1);
      }
    }
    if (this.crosstraffic) {
      const { src, dst, rail } = this.endsOf(key);
      for (const l of this.platform.route(dst, src, rail)) {
        const s = this.solverLink[l]!;
        if (s < 0) continue;
        const at = constraints.indexOf(s);
        if (at >= 0) coefficients[at]! += CROSSTRAFFIC;
        else {
          constraints.push(s);
          coefficients.push(CROSSTRAFFIC);
        }
      }
    }
    const bound = this.boundOf(links, latency);
    let weight = 1;
    if (this.latencyWeighted && wait > 0) {
      let penalty = latency;
      if (this.weightS > 0) for (const l of links) penalty += this.weightS / this.platform.link(l).bandwidth;
      if (penalty > 0) weight = 1 / penalty;
    }
    return { constraints, options: { bound, weight, ...(this.crosstraffic ? { coefficients } : {}) } };
  }

  private start(key: number, links: readonly number[], latency: number, wait: number, bytes: number, factor: number, arrived: () => void): void {
    if (bytes <= 0) {
      arrived();
      return;
    }
    let c = this.classByKey.get(key);
    if (c === undefined) {
      const id = this.addClassFlow(key, links, latency, wait);
      c = { id, key, links, count: 1, rate: 0, served: 0, updated: this.sim.now(), heapIds: [], heapTargets: [], waiting: [] };
      this.classByKey.set(key, c);
      this.classById[id] = c;
    } else {
      this.system.setCount(c.id, ++c.count);
    }
    const f = this.newFlowId();
    this.flowBytes[f] = bytes;
    this.flowWork[f] = factor > 0 ? bytes / factor : Infinity;
    this.flowClass[f] = c;
    this.flowArrived[f] = arrived;
    this.liveFlows++;
    if (c.waiting.length === 0) this.waitingClasses.push(c);
    c.waiting.push(f);
    const now = this.sim.now();
    for (const l of links) {
      if (this.linkFlows[l]!++ === 0) this.linkBusySince[l] = now;
    }
    this.needSolve();
  }

  private newFlowId(): number {
    if (this.freeFlowIds.length > 0) return this.freeFlowIds.pop()!;
    const f = this.flowSlots++;
    if (f === this.flowBytes.length) {
      const bytes = new Float64Array(2 * f);
      bytes.set(this.flowBytes);
      this.flowBytes = bytes;
      const work = new Float64Array(2 * f);
      work.set(this.flowWork);
      this.flowWork = work;
      const target = new Float64Array(2 * f);
      target.set(this.flowTarget);
      this.flowTarget = target;
    }
    this.flowClass.push(undefined);
    this.flowArrived.push(undefined);
    return f;
  }

  private needSolve(): void {
    if (this.solveScheduled) return;
    this.solveScheduled = true;
    const now = this.sim.now();
    const q = this.solveInterval;
    // (A hair below the quotient: a time already on the grid stays there despite rounding.)
    this.sim.post(q > 0 ? Math.ceil(now / q - 1e-9) * q : now, this.solveEvent);
  }

  private solve(): void {
    this.solveScheduled = false;
    const t0 = performance.now();
    const changed = this.system.solve();
    this.solves++;
    this.solveSeconds += (performance.now() - t0) / 1000;
    const now = this.sim.now();
    for (const id of changed) {
      const c = this.classById[id];
      if (c === undefined) continue;
      // Bytes each member moved at the old rate, then the new rate from now.
      if (c.rate > 0 && c.rate !== Infinity) c.served += c.rate * (now - c.updated);
      c.updated = now;
      c.rate = this.system.rate(id);
      if (c.waiting.length === 0) this.reschedule(c);
    }
    // Members that started since the last solve move from now, at the rate just solved.
    const waiting = this.waitingClasses;
    this.waitingClasses = [];
    for (const c of waiting) {
      const base = c.served + (c.rate > 0 && c.rate !== Infinity && now > c.updated ? c.rate * (now - c.updated) : 0);
      for (const f of c.waiting) {
        this.flowTarget[f] = base + this.flowWork[f]!;
        this.heapPush(c, f);
      }
      c.waiting.length = 0;
      this.reschedule(c);
    }
    this.arm();
  }

  /** When member `f` (moving) of class `c` ends at the class's current rate. */
  private endOf(c: FlowClass, f: number): number {
    if (c.rate === Infinity) return c.updated;
    return c.updated + Math.max(0, this.flowTarget[f]! - c.served) / c.rate;
  }

  /** Puts the class's earliest end in the completion heap (or takes the class out). */
  private reschedule(c: FlowClass): void {
    if (c.rate > 0 && c.heapIds.length > 0) this.completions.set(c.id, this.endOf(c, c.heapIds[0]!));
    else this.completions.delete(c.id);
  }

  /** Keeps one engine event at the earliest completion. */
  private arm(): void {
    const next = this.completions.peekTime();
    if (next === this.timerAt) return;
    if (this.timer !== null) this.sim.cancel(this.timer);
    this.timerAt = next;
    this.timer = next === Infinity ? null : this.sim.at(next, this.completeEvent);
  }

  /** Finishes every flow due now (in order of end time, then flow id), then re-arms. */
  private completeDue(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.sim.now();
    const due: number[] = [];
    const dueAt: number[] = [];
    while (this.completions.size > 0 && this.completions.peekTime() <= now) {
      const c = this.classById[this.completions.pop()!]!;
      while (c.heapIds.length > 0) {
        const f = c.heapIds[0]!;
        const end = this.endOf(c, f);
        if (end > now) break;
        this.heapPop(c);
        due.push(f);
        dueAt.push(end);
      }
      this.reschedule(c);
    }
    if (due.length > 1) {
      const order = due.map((_, i) => i).sort((a, b) => dueAt[a]! - dueAt[b]! || due[a]! - due[b]!);
      for (const i of order) this.finish(due[i]!);
    } else if (due.length === 1) this.finish(due[0]!);
    this.arm();
  }

  private finish(f: number): void {
    const c = this.flowClass[f]!;
    const arrived = this.flowArrived[f]!;
    const bytes = this.flowBytes[f]!;
    this.flowClass[f] = undefined;
    this.flowArrived[f] = undefined;
    this.freeFlowIds.push(f);
    this.liveFlows--;
    if (--c.count === 0) {
      this.system.removeFlow(c.id);
      this.completions.delete(c.id);
      this.classByKey.delete(c.key);
      this.classById[c.id] = undefined;
    } else this.system.setCount(c.id, c.count);
    const now = this.sim.now();
    for (const l of c.links) {
      this.linkBytes[l]! += bytes;
      if (--this.linkFlows[l]! === 0) this.linkBusy[l]! += now - this.linkBusySince[l]!;
    }
    this.needSolve();
    arrived();
  }

  /** Adds moving member f to its class's heap (by target, then id). */
  private heapPush(c: FlowClass, f: number): void {
    const ids = c.heapIds;
    const targets = c.heapTargets;
    const t = this.flowTarget[f]!;
    let i = ids.length;
    ids.push(f);
    targets.push(t);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (targets[p]! < t || (targets[p] === t && ids[p]! < f)) break;
      ids[i] = ids[p]!;
      targets[i] = targets[p]!;
      i = p;
    }
    ids[i] = f;
    targets[i] = t;
  }

  private heapPop(c: FlowClass): void {
    const ids = c.heapIds;
    const targets = c.heapTargets;
    const f = ids.pop()!;
    const t = targets.pop()!;
    const n = ids.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let k = 2 * i + 1;
      if (k >= n) break;
      if (k + 1 < n && (targets[k + 1]! < targets[k]! || (targets[k + 1] === targets[k] && ids[k + 1]! < ids[k]!))) k++;
      if (t < targets[k]! || (t === targets[k] && f < ids[k]!)) break;
      ids[i] = ids[k]!;
      targets[i] = targets[k]!;
      i = k;
    }
    ids[i] = f;
    targets[i] = t;
  }

  linkReport(): LinkUsage[] {
    const out: LinkUsage[] = [];
    for (let l = 0; l < this.platform.linkCount; l++) {
      if (this.linkBytes[l] === 0) continue;
      const link = this.platform.link(l);
      out.push({ name: link.name, bytes: this.linkBytes[l]!, busy: this.linkBusy[l]!, bandwidth: link.bandwidth, ...(link.rail !== undefined ? { rail: link.rail } : {}) });
    }
    return out;
  }

  /** Flows moving now. */
  get activeFlows(): number {
    return this.liveFlows;
  }
}

function asFactor(factor: number | SizeFactor): SizeFactor {
  return typeof factor === 'number' ? constantFactor(factor) : factor;
}
