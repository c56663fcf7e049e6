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
 * FATPIPE links give every flow their whole bandwidth (a bound, not a shared constraint);
 * messages between ranks of one host use a loopback of `loopbackBandwidth`.
 */
import type { TimerHandle } from '../../clock.js';
import type { Simulation } from '../engine.js';
import type { Platform } from '../platform/platform.js';
import { MaxMinSystem } from './maxmin.js';
import type { LinkUsage, NetworkModel } from './model.js';

export interface FlowModelOptions {
  latencyFactor?: number;
  bandwidthFactor?: number;
  tcpGamma?: number;
  /** Bytes/s between ranks of one host. @default 1e10 */
  loopbackBandwidth?: number;
}

interface ActiveFlow {
  remaining: number;
  rate: number;
  updated: number;
  bytes: number;
  links: readonly number[];
  arrived: () => void;
  completion: TimerHandle | null;
}

export class FlowModel implements NetworkModel {
  readonly name = 'flow';
  private readonly sim: Simulation;
  private readonly platform: Platform;
  private readonly system = new MaxMinSystem();
  /** Platform link id -> solver link id (-1 for fatpipe links: bounds, not constraints). */
  private readonly solverLink: Int32Array;
  private readonly flows = new Map<number, ActiveFlow>();
  private readonly latencyFactor: number;
  private readonly bandwidthFactor: number;
  private readonly tcpGamma: number;
  private readonly loopbackBandwidth: number;
  private solveScheduled = false;
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
    const n = platform.linkCount;
    this.solverLink = new Int32Array(n);
    for (let l = 0; l < n; l++) {
      const link = platform.link(l);
      this.solverLink[l] = link.sharing === 'fatpipe' ? -1 : this.system.addLink(link.bandwidth * this.bandwidthFactor);
    }
    this.linkBytes = new Float64Array(n);
    this.linkFlows = new Int32Array(n);
    this.linkBusySince = new Float64Array(n);
    this.linkBusy = new Float64Array(n);
  }

  /** Changes a link's bandwidth from now on (a rail slows down or recovers). */
  setBandwidth(link: number, bandwidth: number): void {
    const id = this.solverLink[link]!;
    if (id >= 0) {
      this.system.setCapacity(id, bandwidth * this.bandwidthFactor);
      this.needSolve();
    }
  }

  send(src: number, dst: number, bytes: number, rail: number, arrived: () => void): void {
    if (src === dst) {
      this.sim.schedule(bytes / this.loopbackBandwidth, arrived);
      return;
    }
    const links = this.platform.route(src, dst, rail);
    const latency = this.platform.routeLatency(src, dst, rail) * this.latencyFactor;
    this.sim.schedule(latency, () => this.start(links, latency, bytes, arrived));
  }

  private start(links: readonly number[], latency: number, bytes: number, arrived: () => void): void {
    if (bytes <= 0) {
      arrived();
      return;
    }
    const constraints: number[] = [];
    let bound = this.tcpGamma > 0 && latency > 0 ? this.tcpGamma / (2 * latency) : Infinity;
    for (const l of links) {
      const id = this.solverLink[l]!;
      if (id >= 0) constraints.push(id);
      else bound = Math.min(bound, this.platform.link(l).bandwidth * this.bandwidthFactor);
    }
    const id = this.system.addFlow(constraints, { bound });
    const now = this.sim.now();
    this.flows.set(id, { remaining: bytes, rate: 0, updated: now, bytes, links, arrived, completion: null });
    for (const l of links) {
      if (this.linkFlows[l]!++ === 0) this.linkBusySince[l] = now;
    }
    this.needSolve();
  }

  private needSolve(): void {
    if (this.solveScheduled) return;
    this.solveScheduled = true;
    this.sim.schedule(0, () => this.solve());
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
      if (flow.completion !== null) this.sim.cancel(flow.completion);
      flow.completion = flow.rate > 0 ? this.sim.schedule(flow.remaining / flow.rate, () => this.finish(id)) : null;
    }
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
      out.push({ name: link.name, bytes: this.linkBytes[l]!, busy: this.linkBusy[l]!, bandwidth: link.bandwidth });
    }
    return out;
  }

  /** Flows moving now. */
  get activeFlows(): number {
    return this.flows.size;
  }
}
