/**
 * A calibrated machine in a few lines: per link class, the fitted costs at a few sizes (and the
 * path's CPU between processes), a new link's cost, what a sleeping receiver adds between
 * processes (and its CPU when processes outnumber the cores), and the worst fit error; the
 * compute speed and cores.
 */
import { evaluate, type MachineCalibration } from '../sim/platform/calibration.js';

const us = (s: number): string => `${(s * 1e6).toFixed(2)} us`;

export function formatCalibration(machine: MachineCalibration): string {
  const lines = [`machine ${machine.machine.host}: ${machine.hosts.cores} cores, ${(machine.hosts.speed / 1e9).toFixed(2)} Gflop/s per core (JavaScript kernel)`];
  for (const [name, c] of Object.entries(machine.classes)) {
    const worst = Math.max(...[c.send, c.recv, c.latency, c.gap].flat().map((s) => s.fitError));
    const oneWay = (bytes: number): number => evaluate(c.send, bytes) + evaluate(c.latency, bytes) + evaluate(c.gap, bytes) + evaluate(c.recv, bytes);
    const big = c.measured.at(-1);
    const rate = big !== undefined && big.streamPeriod > 0 ? `${(big.bytes / big.streamPeriod / 1e9).toFixed(2)} GB/s streaming at ${big.bytes >> 20} MiB` : '';
    const path = c.pathCpu !== undefined ? `, the path's CPU ${us(c.pathCpu)} at each end` : '';
    const link = c.linkSetup !== undefined ? `; a new link ${us(c.linkSetup)} each way` : '';
    const s = c.sleeping;
    const crowded = s?.crowded !== undefined && s.crowded.length > 0 ? `, and its CPU ${s.crowded.map((p) => `${us(p.seconds)} more at ${p.ranksPerCore} processes per core`).join(', ')}` : '';
    const asleep = s !== undefined ? `; a sleeping receiver ${us(s.wake)} more${s.pathCpu !== undefined ? ` (path's CPU ${us(s.pathCpu)})` : ''}${crowded}` : '';
    lines.push(`  ${name}: frame of 8 B ${us(oneWay(8))} (send ${us(evaluate(c.send, 8))}, receive ${us(evaluate(c.recv, 8))}${path}), 64 KiB ${us(oneWay(65536))}; ${rate}; eager up to ${c.eagerLimit} B${link}${asleep}; worst fit error ${(worst * 100).toFixed(1)}%`);
  }
  return lines.join('\n');
}
