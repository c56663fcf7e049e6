/**
 * The flow network model (SimGrid's CM02 family): a message waits its route's latency, then flows
 * over the route's links, sharing each link's bandwidth max-min fairly with the other flows there
 * (maxmin.ts); it arrives when its last byte has flowed. Rates are recomputed incrementally, and
 * once per virtual instant however many flows start or end at that instant: a change schedules
 * one zero-delay "solve" event, which runs after every event already due at that time.
 *
 * Options mirror SimGrid's knobs so runs can be matched against it:
 * - `latencyFactor`, `bandwidthFactor` (SimGrid's network/latency-factor, bandwidth-factor;
 *   CM02: 1, LV08: 13.01 and 0.97);
 * - `tcpGamma`: a flow's rate is bounded by gamma / (2 x route latency), the TCP window limit
 *   (SimGrid's network/TCP-gamma, default 4194304; 0 turns the bound off);
 * - `latencyWeighted`: on a common bottleneck a flow's share is inversely proportional to its
 *   route latency (TCP's RTT unfairness; SimGrid CM02 makes the route latency the flow's sharing
 *   penalty, `NetworkCm02Model::communicate`). On by default; off, every flow has an equal share.
 * FATPIPE links give every flow their whole bandwidth (a bound, not a shared constraint);
 * messages between ranks of one host use a loopback of `loopbackBandwidth`.
 */
import type { TimerHandle } from '../../clock.js';
import type { Simulation } from '../engine.js';
import type { Platform } from '../platform/platform.js';
import { CompletionHeap } from './completion-heap.js';
import { MaxMinSystem } from './maxmin.js';
import type { LinkUsage, NetworkModel } from './model.js';

export interface FlowModelOptions {
  latencyFactor?: number;
  bandwidthFactor?: number;
  tcpGamma?: number;
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

interface ActiveFlow {
  remaining: number;
  rate: number;
  updated: number;
  bytes: number;
  links: readonly number[];
  /** Route latency (the TCP window bound and the sharing weight come from it). */
  latency: number;
  arrived: () => void;
}

export class FlowModel implements NetworkModel {
  readonly name = 'flow';
  private readonly sim: Simulation;
  private readonly platform: Platform;
  private readonly system = new MaxMinSystem();
  /** Platform link id -> solver link id (-1 for fatpipe links: bounds, not constraints). */
  private readonly solverLink: Int32Array;
  /** Current bandwidth of each platform link, factor applied. */
  private readonly bandwidth: Float64Array;
  private readonly flows = new Map<number, ActiveFlow>();
  private readonly latencyFactor: number;
  private readonly bandwidthFactor: number;
  private readonly tcpGamma: number;
  private readonly loopbackBandwidth: number;
  private readonly latencyWeighted: boolean;
  private readonly smallFrameBytes: number;
  private readonly solveInterval: number;
  private solveScheduled = false;
  /** Completion time of every moving flow, and the one engine event armed for the earliest. */
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
    this.latencyFactor = options.latencyFactor ?? 1;
    this.bandwidthFactor = options.bandwidthFactor ?? 1;
    this.tcpGamma = options.tcpGamma ?? 4194304;
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
      this.bandwidth[l] = link.bandwidth * this.bandwidthFactor;
      this.solverLink[l] = link.sharing === 'fatpipe' ? -1 : this.system.addLink(this.bandwidth[l]!);
    }
    this.linkBytes = new Float64Array(n);
    this.linkFlows = new Int32Array(n);
    this.linkBusySince = new Float64Array(n);
    this.linkBusy = new Float64Array(n);
  }

  /** Changes a link's bandwidth from now on (a rail slows down or recovers). */
  setBandwidth(link: number, bandwidth: number): void {
    this.bandwidth[link] = bandwidth * this.bandwidthFactor;
    const id = this.solverLink[link]!;
    if (id >= 0) this.system.setCapacity(id, this.bandwidth[link]!);
    // Bounds come from the route's bandwidths (fatpipes, pruning): refresh the flows crossing it.
    for (const [flowId, flow] of this.flows) {
      if (flow.links.includes(link)) this.system.setBound(flowId, this.boundOf(flow.links, flow.latency));
    }
    this.needSolve();
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
    if (bytes <= this.smallFrameBytes) {
      let narrowest = Infinity;
      for (const l of links) narrowest = Math.min(narrowest, this.bandwidth[l]!);
      this.sim.post(this.sim.now() + routeLatency * this.latencyFactor + (narrowest === Infinity ? 0 : bytes / narrowest), arrived);
      return;
    }
    this.sim.post(this.sim.now() + routeLatency * this.latencyFactor, () => this.start(links, routeLatency, bytes, arrived));
  }

  private start(links: readonly number[], latency: number, bytes: number, arrived: () => void): void {
    if (bytes <= 0) {
      arrived();
      return;
    }
    const constraints: number[] = [];
    for (const l of links) {
      const id = this.solverLink[l]!;
      if (id >= 0) constraints.push(id);
    }
    const bound = this.boundOf(links, latency);
    const weight = this.latencyWeighted && latency > 0 ? 1 / latency : 1;
    const id = this.system.addFlow(constraints, { bound, weight });
    const now = this.sim.now();
    this.flows.set(id, { remaining: bytes, rate: 0, updated: now, bytes, links, latency, arrived });
    for (const l of links) {
      if (this.linkFlows[l]!++ === 0) this.linkBusySince[l] = now;
    }
    this.needSolve();
  }

  private needSolve(): void {
    if (this.solveScheduled) return;
    this.solveScheduled = true;
    const now = this.sim.now();
    const q = this.solveInterval;
    // (A hair below the quotient: a time already on the grid stays there despite rounding.)
    this.sim.post(q > 0 ? Math.ceil(now / q - 1e-9) * q : now, () => this.solve());
  }

  private solve(): void {
    this.solveScheduled = false;
    const t0 = performance.now();
    const changed = this.system.solve();
    this.solves++;
    this.solveSeconds += (performance.now() - t0) / 1000;
    const now = this.sim.now();
    for (const id of changed) {
      const flow = this.flows.get(id);
      if (flow === undefined) continue;
      flow.remaining = Math.max(0, flow.remaining - flow.rate * (now - flow.updated));
      flow.updated = now;
      flow.rate = this.system.rate(id);
      if (flow.rate > 0) this.completions.set(id, now + flow.remaining / flow.rate);
      else this.completions.delete(id);
    }
    this.arm();
  }

  /** Keeps one engine event at the earliest completion. */
  private arm(): void {
    const next = this.completions.peekTime();
    if (next === this.timerAt) return;
    if (this.timer !== null) this.sim.cancel(this.timer);
    this.timerAt = next;
    this.timer = next === Infinity ? null : this.sim.at(next, () => this.completeDue());
  }

  /** Finishes every flow due now (in order of flow id when several are), then re-arms. */
  private completeDue(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.sim.now();
    while (this.completions.size > 0 && this.completions.peekTime() <= now) this.finish(this.completions.pop()!);
    this.arm();
  }

  private finish(id: number): void {
    const flow = this.flows.get(id)!;
    this.flows.delete(id);
    this.system.removeFlow(id);
    const now = this.sim.now();
    for (const l of flow.links) {
      this.linkBytes[l]! += flow.bytes;
      if (--this.linkFlows[l]! === 0) this.linkBusy[l]! += now - this.linkBusySince[l]!;
    }
    this.needSolve();
    flow.arrived();
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
    return this.flows.size;
  }
}
