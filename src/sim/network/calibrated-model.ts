/**
 * The network of a calibrated machine (platform/calibration.ts): every frame crosses the pipe of
 * its ordered pair of processes, which it keeps busy for `gap(bytes)` (frames of the pair queue
 * behind each other, so a stream runs at the measured rate), and arrives `latency(bytes)` after
 * leaving it. The link class (same process, same host, two hosts) picks the figures. Pairs do
 * not share anything: the contention that matters on one machine, its cores, is the world's
 * (ranks computing at once share them).
 */
import type { Simulation } from '../engine.js';
import { classCosts, evaluate, sizedWarmupIndex, warmupExtra, type LinkClassCalibration, type MachineCalibration } from '../platform/calibration.js';
import { FRAME_HEADER_BYTES } from '../../transport/link.js';
import type { FrameCosts } from '../world.js';
import { linkClassOf, type LinkClass, type NetworkModel } from './model.js';

export class CalibratedModel implements NetworkModel {
  readonly name = 'calibrated';
  private readonly sim: Simulation;
  private readonly classes: Map<LinkClass, LinkClassCalibration>;
  /** Virtual time each ordered pair of processes' pipe is free again. */
  private readonly pipeFree = new Map<number, number>();

  constructor(sim: Simulation, calibration: MachineCalibration) {
    this.sim = sim;
    this.classes = new Map();
    for (const c of ['intra-process', 'inter-process', 'inter-host'] as const) {
      const costs = classCosts(calibration, c);
      if (costs !== undefined) this.classes.set(c, costs);
    }
  }

  /** The figures of a link class; throws naming what to calibrate when there are none. */
  costs(linkClass: LinkClass): LinkClassCalibration {
    const costs = this.classes.get(linkClass);
    if (costs === undefined) throw new RangeError(`the calibration has no ${linkClass} figures: calibrate with ${linkClass === 'intra-process' ? 'threads' : '--procs'} too (tsmpi calibrate --modes threads,procs)`);
    return costs;
  }

  send(src: number, dst: number, bytes: number, _rail: number, arrived: () => void, srcProc = src, dstProc = dst): void {
    // Calibrated figures are per payload byte: the frame's header is part of its fixed cost.
    const costs = this.costs(linkClassOf(src, dst, srcProc, dstProc));
    const payload = Math.max(0, bytes - FRAME_HEADER_BYTES);
    const now = this.sim.now();
    const key = srcProc * 0x100000 + dstProc;
    const start = Math.max(now, this.pipeFree.get(key) ?? 0);
    const free = start + evaluate(costs.gap, payload);
    this.pipeFree.set(key, free);
    // The path's CPU at both ends is charged to the ranks (calibratedFrameCosts), not waited here.
    this.sim.post(free + evaluate(costs.latency, payload) - 2 * pathCpuOf(costs, payload), arrived);
  }
}

/**
 * The path's CPU at each end of a frame of `payload` bytes: what the one-way time holds of it
 * (never more than half the latency at that size, so a lone message costs what it was measured).
 */
function pathCpuOf(costs: LinkClassCalibration, payload: number): number {
  const cpu = costs.pathCpu;
  return cpu === undefined || cpu <= 0 ? 0 : Math.min(cpu, evaluate(costs.latency, payload) / 2);
}

/** Per-frame CPU costs of a calibrated machine, for SimWorldOptions.frameCosts. */
export function calibratedFrameCosts(model: CalibratedModel): FrameCosts {
  return {
    send: (c, bytes) => {
      const costs = model.costs(c);
      const payload = Math.max(0, bytes - FRAME_HEADER_BYTES);
      return evaluate(costs.send, payload) + pathCpuOf(costs, payload);
    },
    recv: (c, bytes) => {
      const costs = model.costs(c);
      const payload = Math.max(0, bytes - FRAME_HEADER_BYTES);
      return evaluate(costs.recv, payload) + pathCpuOf(costs, payload);
    },
    warmup: (c, count) => warmupExtra(model.costs(c).warmup, count),
    sizedWarmupClass: (c, bytes) => sizedWarmupIndex(model.costs(c).sizedWarmup, Math.max(0, bytes - FRAME_HEADER_BYTES)),
    sizedWarmup: (c, index, count) => warmupExtra(model.costs(c).sizedWarmup?.[index]?.steps, count),
    linkSetup: (c) => model.costs(c).linkSetup ?? 0,
    afterSend: (c) => model.costs(c).afterSend ?? 0,
    burstSend: (c, bytes) => {
      const burst = model.costs(c).burstSend;
      return burst === undefined ? undefined : evaluate(burst, Math.max(0, bytes - FRAME_HEADER_BYTES));
    },
    groupedRecv: (c, bytes) => evaluate(model.costs(c).recv, Math.max(0, bytes - FRAME_HEADER_BYTES)),
  };
}
