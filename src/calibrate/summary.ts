/**
 * A calibrated machine in a few lines: per link class, the fitted costs at a few sizes (and the
 * path's CPU between processes), a new link's cost, what a sleeping receiver adds between
 * processes (and its CPU when processes outnumber the cores), what a fresh rank's first frames
 * cost more (16-byte ones, and larger ones on top), the worst fit error and how far the runs lay
 * apart; the compute speed and cores, and how long the calibration took. A warning when the runs
 * disagree widely.
 */
import { evaluate, frameOneWay, type LinkClassCalibration, type MachineCalibration, type WarmupStep } from '../sim/platform/calibration.js';
import { sizeLabel } from '../size-label.js';

const us = (s: number): string => `${(s * 1e6).toFixed(2)} us`;

/** Runs whose one-way times at one size differ by more than this factor make the summary warn. */
export const UNSTEADY_RUNS_RATIO = 1.5;

/** The size whose runs' one-way times lie furthest apart, and how far (slowest / fastest); undefined with one run. */
export function runsApart(c: Pick<LinkClassCalibration, 'measured'>): { bytes: number; ratio: number } | undefined {
  let worst: { bytes: number; ratio: number } | undefined;
  for (const m of c.measured) {
    const runs = m.oneWayRuns ?? [];
    if (runs.length < 2 || !runs.every((t) => t > 0)) continue;
    const ratio = Math.max(...runs) / Math.min(...runs);
    if (worst === undefined || ratio > worst.ratio) worst = { bytes: m.bytes, ratio };
  }
  return worst;
}

/** What a warm-up's steps add over a rank's first frames, sent and received, in all (below 0: the simulator's own count is more). */
function warmupMillis(steps: readonly WarmupStep[] | undefined): string {
  let total = 0;
  let from = 0;
  for (const step of steps ?? []) {
    total += 2 * step.extra * (step.frames - from);
    from = step.frames;
  }
  return `${(total * 1e3).toFixed(1)} ms`;
}

export function formatCalibration(machine: MachineCalibration): string {
  const lines = [`machine ${machine.machine.host}: ${machine.hosts.cores} cores, ${(machine.hosts.speed / 1e9).toFixed(2)} Gflop/s per core (JavaScript kernel)${machine.machine.seconds !== undefined ? `; measured in ${machine.machine.seconds.toFixed(1)} s` : ''}`];
  const warnings: string[] = [];
  for (const [name, c] of Object.entries(machine.classes)) {
    const worst = Math.max(...[c.send, c.recv, c.latency, c.gap].flat().map((s) => s.fitError));
    const big = c.measured.at(-1);
    const rate = big !== undefined && big.streamPeriod > 0 ? `${(big.bytes / big.streamPeriod / 1e9).toFixed(2)} GB/s streaming at ${big.bytes >> 20} MiB` : '';
    const path = (c.pathCpu !== undefined ? `, the path's CPU ${us(c.pathCpu)} at each end` : '') + (c.afterSend !== undefined ? `, the sender's CPU ${us(c.afterSend)} after it left` : '');
    const link = c.linkSetup !== undefined ? `; a new link ${us(c.linkSetup)} each way` : '';
    const s = c.sleeping;
    const crowded = s?.crowded !== undefined && s.crowded.length > 0 ? `, and its CPU ${s.crowded.map((p) => `${us(p.seconds)} more at ${p.ranksPerCore} processes per core`).join(', ')}` : '';
    const asleep = s !== undefined ? `; a sleeping receiver ${us(s.wake)} more${s.pathCpu !== undefined ? ` (path's CPU ${us(s.pathCpu)})` : ''}${crowded}` : '';
    const apart = runsApart(c);
    const runs = apart !== undefined ? `; runs up to ${apart.ratio.toFixed(2)}x apart (${sizeLabel(apart.bytes)})` : '';
    const fresh = [`16 B ${warmupMillis(c.warmup)}`, ...(c.sizedWarmup ?? []).map((w) => `${sizeLabel(w.bytes)} ${warmupMillis(w.steps)} on top`)].join(', ');
    lines.push(`  ${name}: frame of 8 B ${us(frameOneWay(c, 8))} (send ${us(evaluate(c.send, 8))}${c.burstSend !== undefined ? `, ${us(evaluate(c.burstSend, 8))} continuing a burst` : ''}, receive ${us(evaluate(c.recv, 8))}${path}), 64 KiB ${us(frameOneWay(c, 65536))}; ${rate}; eager up to ${c.eagerLimit} B${link}${asleep}; a fresh rank's first frames beyond the simulator's own count ${fresh}; worst fit error ${(worst * 100).toFixed(1)}%${runs}`);
    if (apart !== undefined && apart.ratio > UNSTEADY_RUNS_RATIO) {
      warnings.push(
        `warning: the machine was not steady: ${name} one-way times at ${sizeLabel(apart.bytes)} differed ${apart.ratio.toFixed(2)}x between runs (the figures are their medians); ` +
          'a calibration at another moment may predict differently: calibrate again when the machine is quiet, or with more --runs',
      );
    }
  }
  return [...lines, ...warnings].join('\n');
}
