/**
 * A calibrated machine as a SimGrid platform: the hosts as a cluster whose links carry the TCP
 * figures (between processes, or between hosts when measured) and whose loopback carries the
 * shared-memory ones, with SMPI's own knobs set from the same fits: smpi/os, smpi/ois and smpi/or
 * ("size:intercept:slope;..."), smpi/lat-factor and smpi/bw-factor ("size:factor;...", relative
 * to the cluster's link latency and bandwidth), and the eager limit as SMPI's thresholds.
 */
import { evaluate, type LinkClassCalibration, type MachineCalibration, type Piecewise } from '../sim/platform/calibration.js';

const num = (x: number): string => Number(x.toPrecision(6)).toString();

function overheads(cost: Piecewise): string {
  return cost.map((s) => `${s.from}:${num(s.intercept)}:${num(s.slope)}`).join(';');
}

/** Pipe time (latency + gap) of a range, as an intercept and a slope. */
function pipeOf(c: LinkClassCalibration, i: number): { intercept: number; slope: number; from: number } {
  const lat = c.latency[Math.min(i, c.latency.length - 1)]!;
  const gap = c.gap[Math.min(i, c.gap.length - 1)]!;
  return { from: lat.from, intercept: lat.intercept + gap.intercept, slope: lat.slope + gap.slope };
}

export function simgridXml(machine: MachineCalibration): string {
  const tcp = machine.classes['inter-host'] ?? machine.classes['inter-process'] ?? machine.classes['intra-process']!;
  const shm = machine.classes['intra-process'] ?? tcp;
  const ranges = tcp.latency.map((_, i) => pipeOf(tcp, i));
  // The cluster's nominal figures: the smallest frame's pipe time over the two links of a route,
  // and the bandwidth of the largest range; the factors bring every range to its fit.
  const latency = Math.max(evaluate(tcp.latency, 0) + evaluate(tcp.gap, 0), 1e-9) / 2;
  const last = ranges.at(-1)!;
  const bandwidth = last.slope > 0 ? 1 / last.slope : 1e10;
  const latFactor = ranges.map((r) => `${r.from}:${num(Math.max(r.intercept, 1e-12) / (2 * latency))}`).reverse().join(';');
  const bwFactor = ranges.map((r) => `${r.from}:${num(r.slope > 0 ? 1 / r.slope / bandwidth : 1)}`).reverse().join(';');
  const shmLatency = Math.max(evaluate(shm.latency, 0) + evaluate(shm.gap, 0), 1e-9);
  const shmLast = pipeOf(shm, shm.latency.length - 1);
  const shmBandwidth = shmLast.slope > 0 ? 1 / shmLast.slope : 1e10;
  const { count, cores, speed } = machine.hosts;
  const prefix = machine.hosts.prefix ?? 'node-';
  const lines = [
    "<?xml version='1.0'?>",
    '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
    `<!-- tsmpi calibrate: ${machine.machine.host}, ${machine.machine.cpus} cpus, ${machine.machine.node}, ${machine.machine.date} -->`,
    '<platform version="4.1">',
    '  <config>',
    '    <prop id="network/model" value="SMPI"/>',
    `    <prop id="smpi/os" value="${overheads(tcp.send)}"/>`,
    `    <prop id="smpi/ois" value="${overheads(tcp.send)}"/>`,
    `    <prop id="smpi/or" value="${overheads(tcp.recv)}"/>`,
    `    <prop id="smpi/lat-factor" value="${latFactor}"/>`,
    `    <prop id="smpi/bw-factor" value="${bwFactor}"/>`,
    `    <prop id="smpi/async-small-thresh" value="${tcp.eagerLimit + 1}"/>`,
    `    <prop id="smpi/send-is-detached-thresh" value="${tcp.eagerLimit + 1}"/>`,
    '  </config>',
    `  <cluster id="calibrated" prefix="${prefix}" suffix="" radical="0-${count - 1}" speed="${num(speed)}f" core="${cores}" bw="${num(bandwidth)}Bps" lat="${num(latency)}s" loopback_bw="${num(shmBandwidth)}Bps" loopback_lat="${num(shmLatency)}s"/>`,
    '</platform>',
    '',
  ];
  return lines.join('\n');
}
