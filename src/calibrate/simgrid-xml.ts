/**
 * A calibrated machine as a SimGrid platform: the hosts as a cluster whose links carry the TCP
 * figures (between processes, or between hosts when measured) and whose loopback carries the
 * shared-memory ones, with SMPI's own knobs set from the same fits: smpi/os, smpi/ois and smpi/or
 * ("size:intercept:slope;..."), smpi/lat-factor and smpi/bw-factor ("size:factor;...", relative
 * to the nominal latency and bandwidth of the route the messages take), the eager limit as SMPI's
 * thresholds, smpi/host-speed equal to the hosts' speed, so that a computing burst SMPI times on
 * this machine takes as long on a simulated host, and smpi/test and smpi/iprobe as measured.
 *
 * SMPI's knobs are global, so one link class governs them: between hosts when the machine has
 * several, else the messages inside the host, which SimGrid sends over the host's loopback
 * (shared memory, as an MPI library on one machine does; TCP when only that was measured).
 */
import { evaluate, frameOneWay, type LinkClassCalibration, type MachineCalibration, type Piecewise } from '../sim/platform/calibration.js';

const num = (x: number): string => Number(x.toPrecision(6)).toString();

/**
 * The key of a range that starts at `from` payload bytes. SMPI 3.32 applies a key's value to the
 * sizes above it, and looks a message up at its payload plus 16 bytes (measured with a ping-pong:
 * a key of 1000 applies from 985 B on); a range from 0 keeps key 0.
 */
const keyOf = (from: number): number => (from === 0 ? 0 : from + 15);

function overheads(cost: Piecewise): string {
  return cost.map((s) => `${keyOf(s.from)}:${num(s.intercept)}:${num(s.slope)}`).join(';');
}

/** Pipe time (latency + gap) of a range, as an intercept and a slope. */
function pipeOf(c: LinkClassCalibration, i: number): { intercept: number; slope: number; from: number } {
  const lat = c.latency[Math.min(i, c.latency.length - 1)]!;
  const gap = c.gap[Math.min(i, c.gap.length - 1)]!;
  return { from: lat.from, intercept: lat.intercept + gap.intercept, slope: lat.slope + gap.slope };
}

/** A class's nominal figures: the smallest frame's pipe time, and the bandwidth of the largest range. */
function nominal(c: LinkClassCalibration): { latency: number; bandwidth: number } {
  const last = pipeOf(c, c.latency.length - 1);
  return { latency: Math.max(evaluate(c.latency, 0) + evaluate(c.gap, 0), 1e-9), bandwidth: last.slope > 0 ? 1 / last.slope : 1e10 };
}

export function simgridXml(machine: MachineCalibration): string {
  const { count, cores, speed } = machine.hosts;
  const tcp = machine.classes['inter-host'] ?? machine.classes['inter-process'] ?? machine.classes['intra-process']!;
  const shm = machine.classes['intra-process'] ?? tcp;
  const betweenHosts = count > 1;
  const governing = betweenHosts ? tcp : shm;
  // SMPI sends a large message synchronously, without tsmpi's two handshake frames (each a 0-byte
  // frame) and without charging smpi/os and smpi/or (measured: a ping-pong above the threshold
  // pays neither): those times go into the latency of the ranges above the eager limit.
  const handshake = 2 * frameOneWay(governing, 0);
  const ranges = governing.latency.map((_, i) => {
    const pipe = pipeOf(governing, i);
    if (pipe.from <= governing.eagerLimit) return pipe;
    return { ...pipe, intercept: pipe.intercept + handshake + evaluate(governing.send, pipe.from) + evaluate(governing.recv, pipe.from) };
  });
  // A route between hosts crosses two cluster links (each gets half the latency); inside a host,
  // the loopback alone. The factors bring every range to its fit.
  const net = nominal(tcp);
  const latency = net.latency / 2;
  const loop = nominal(shm);
  const routeLatency = betweenHosts ? 2 * latency : loop.latency;
  const routeBandwidth = betweenHosts ? net.bandwidth : loop.bandwidth;
  const latFactor = ranges.map((r) => `${keyOf(r.from)}:${num(Math.max(r.intercept, 1e-12) / routeLatency)}`).reverse().join(';');
  const bwFactor = ranges.map((r) => `${keyOf(r.from)}:${num(r.slope > 0 ? 1 / r.slope / routeBandwidth : 1)}`).reverse().join(';');
  const prefix = machine.hosts.prefix ?? 'node-';
  const lines = [
    "<?xml version='1.0'?>",
    '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
    `<!-- tsmpi calibrate: ${machine.machine.host}, ${machine.machine.cpus} cpus, ${machine.machine.node}, ${machine.machine.date} -->`,
    '<platform version="4.1">',
    '  <config>',
    '    <prop id="network/model" value="SMPI"/>',
    `    <prop id="smpi/os" value="${overheads(governing.send)}"/>`,
    `    <prop id="smpi/ois" value="${overheads(governing.send)}"/>`,
    `    <prop id="smpi/or" value="${overheads(governing.recv)}"/>`,
    `    <prop id="smpi/lat-factor" value="${latFactor}"/>`,
    `    <prop id="smpi/bw-factor" value="${bwFactor}"/>`,
    `    <prop id="smpi/async-small-thresh" value="${governing.eagerLimit + 1}"/>`,
    `    <prop id="smpi/send-is-detached-thresh" value="${governing.eagerLimit + 1}"/>`,
    `    <prop id="smpi/host-speed" value="${num(speed)}f"/>`,
    // SMPI's default injects 1e-4 s into every MPI_Test and MPI_Iprobe: the measured costs instead.
    ...(governing.polls !== undefined ? [`    <prop id="smpi/test" value="${num(governing.polls.test)}"/>`, `    <prop id="smpi/iprobe" value="${num(governing.polls.iprobe)}"/>`] : []),
    '  </config>',
    `  <cluster id="calibrated" prefix="${prefix}" suffix="" radical="0-${count - 1}" speed="${num(speed)}f" core="${cores}" bw="${num(net.bandwidth)}Bps" lat="${num(latency)}s" loopback_bw="${num(loop.bandwidth)}Bps" loopback_lat="${num(loop.latency)}s"/>`,
    '</platform>',
    '',
  ];
  return lines.join('\n');
}
