/**
 * The contract between the simulator and its network models, registered by name with a one-line
 * description and a factory (as SimGrid registers its models).
 *
 * A model moves `bytes` from host `src` to host `dst` over rail `rail`, starting at the current
 * virtual time, and calls `arrived` (from an event) when the last byte is in. It never reorders
 * within the call: ordering between messages is the caller's (the simulated link keeps frames of
 * one pair in order).
 */
import type { Simulation } from '../engine.js';

/**
 * How two ranks are connected, as a calibrated machine tells them apart: shared memory between
 * ranks of one process, TCP between processes of one host, TCP between hosts.
 */
export type LinkClass = 'intra-process' | 'inter-process' | 'inter-host';

export const LINK_CLASSES: readonly LinkClass[] = ['intra-process', 'inter-process', 'inter-host'];

/** The class of a link between two ranks, from their hosts and processes. */
export function linkClassOf(srcHost: number, dstHost: number, srcProc: number, dstProc: number): LinkClass {
  return srcProc === dstProc ? 'intra-process' : srcHost === dstHost ? 'inter-process' : 'inter-host';
}

export interface NetworkModel {
  readonly name: string;
  /**
   * `srcProc`/`dstProc` name the processes at both ends (global ids): models that tell link
   * classes apart use them; the host models ignore them.
   */
  send(src: number, dst: number, bytes: number, rail: number, arrived: () => void, srcProc?: number, dstProc?: number): void;
  /** Per-link utilisation so far: bytes carried and busy seconds (flow models). */
  linkReport?(): LinkUsage[];
}

export interface LinkUsage {
  name: string;
  bytes: number;
  /** Seconds with at least one flow on the link. */
  busy: number;
  bandwidth: number;
  /** The rail (network plane) of the link, when the platform knows. */
  rail?: number;
}

/** A transfer time for a delay-only model: what (src, dst, bytes, rail) costs without contention. */
export interface DelayCost {
  latency(src: number, dst: number, rail: number): number;
  bandwidth(src: number, dst: number, rail: number): number;
}

/**
 * Delay-only (LogGP-style) model: latency + bytes / bandwidth, no sharing. Scales to millions of
 * ranks and events; contention is ignored (the flow model accounts for it).
 */
export class DelayModel implements NetworkModel {
  readonly name = 'delay';
  private readonly sim: Simulation;
  private readonly cost: DelayCost;

  constructor(sim: Simulation, cost: DelayCost) {
    this.sim = sim;
    this.cost = cost;
  }

  send(src: number, dst: number, bytes: number, rail: number, arrived: () => void): void {
    const now = this.sim.now();
    if (src === dst) {
      this.sim.post(now, arrived);
      return;
    }
    this.sim.post(now + this.cost.latency(src, dst, rail) + bytes / this.cost.bandwidth(src, dst, rail), arrived);
  }
}
