/**
 * How far the simulator scales on this machine:
 *  1. engine: events per second of the event heap driving the delay-only model (a "hold" load on
 *     4096 hosts: every arrival sends a new message to a random host; 1 and 16 messages in flight
 *     per host);
 *  2. program: a RANKS-rank periodic 3-D stencil replayed through the runtime's own communicator
 *     (MESSAGES messages, flow model on a fat tree, then the delay model): wall time, events,
 *     messages per second, peak RSS;
 *  3. contention: random sparse exchange on the same fat tree (SPARSE_STEPS steps of degree 4):
 *     every flow ends at its own instant, so the exact flow model re-solves a large component per
 *     flow; with a solve interval of 1 us it re-solves once per microsecond at most. The error
 *     this costs is measured at 512 ranks (exact against 1 us);
 *  4. baseline: SimGrid 3.32 replaying the same stencil (SIMGRID_STEPS steps) on the same fat
 *     tree, if installed: wall time of both, and their makespans.
 *   npm run bench -- sim-scale        (RANKS=4096 MESSAGES=1000000 SPARSE_STEPS=2 SIMGRID_STEPS=4)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Simulation } from '../src/sim/engine.ts';
import { DelayModel } from '../src/sim/network/model.ts';
import type { Platform } from '../src/sim/platform/platform.ts';
import { fatTree, type FatTreeOptions } from '../src/sim/platform/topologies.ts';
import type { Action } from '../src/sim/replay/actions.ts';
import { writeTiTraceFiles } from '../src/sim/replay/ti-trace.ts';
import { simulate, traceWorld, type NetworkKind } from '../src/sim/simulate.ts';
import { buildWorkload } from '../src/sim/workloads/registry.ts';
import { Rng } from '../src/rng.ts';
import { param, printTable, writeResults } from './lib/report.ts';
import { findSimgrid, simgridReplay, SIMGRID_MATCHING_CONFIG } from './lib/simgrid.ts';

const ranks = param('RANKS', 4096, 'ranks of the program runs (a cube: 8^3, 16^3, ...)');
const messages = param('MESSAGES', 1_000_000, 'messages of the stencil run');
const sparseSteps = param('SPARSE_STEPS', 2, 'steps of the random sparse run (degree 4: 4 x RANKS messages each)');
const simgridSteps = param('SIMGRID_STEPS', 4, 'stencil steps of the SimGrid comparison (0: skip)');
const engineEvents = param('ENGINE_EVENTS', 10_000_000, 'events of the engine run');

const side = Math.round(Math.cbrt(ranks));
if (side ** 3 !== ranks) throw new Error(`RANKS=${ranks} is not a cube`);
const MiB = 2 ** 20;
const rss = (): number => process.memoryUsage().rss / MiB;

// ---- 1. engine -------------------------------------------------------------------------------
function engineRun(inFlight: number): { inFlight: number; events: number; seconds: number } {
  const hosts = 4096;
  const sim = new Simulation();
  const model = new DelayModel(sim, { latency: () => 1e-6, bandwidth: () => 1.25e9 });
  const rng = new Rng(1);
  let sent = 0;
  const send = (src: number): void => {
    if (sent++ >= engineEvents) return;
    const dst = rng.int(0, hosts - 1);
    model.send(src, dst, 64 + rng.int(0, 65535), 0, () => send(dst));
  };
  for (let i = 0; i < inFlight; i++) send(i % hosts);
  const t0 = performance.now();
  sim.run();
  return { inFlight, events: sim.processed, seconds: (performance.now() - t0) / 1000 };
}
const engine = [engineRun(4096), engineRun(65536)];
for (const e of engine) console.log(`# engine, ${e.inFlight} in flight: ${e.events} events in ${e.seconds.toFixed(2)} s`);

// ---- 2./3. programs on a fat tree ------------------------------------------------------------
/** A full-bisection fat tree with `side^3` hosts of 10 Gbit/s links, 1 us each. */
function platformShape(): FatTreeOptions['shape'] {
  if (ranks === 4096) return '3;16,16,16;1,16,16;1,1,1';
  if (ranks === 512) return '3;8,8,8;1,8,8;1,1,1';
  return `1;${ranks};1;1`;
}
const platform = fatTree({ shape: platformShape(), hostBandwidth: 1.25e9, latency: 1e-6, speed: 1e9 });

interface ProgramRun {
  name: string;
  ranks: number;
  network: NetworkKind;
  solveInterval: number;
  messages: number;
  makespan: number;
  wallSeconds: number;
  events: number;
  rssMiB: number;
}

function countSends(program: ReadonlyMap<number, readonly { op: string }[]>): number {
  let n = 0;
  for (const list of program.values()) for (const a of list) if (a.op === 'send' || a.op === 'isend') n++;
  return n;
}

const stencilSteps = Math.max(1, Math.round(messages / (6 * ranks)));
const stencil = buildWorkload('stencil3d', [`steps=${stencilSteps}`, 'bytes=16384', 'flops=1e6', 'periodic=true'], ranks, 1);
const sparseOf = (n: number): Map<number, Action[]> => buildWorkload('random-sparse', [`steps=${sparseSteps}`, 'degree=4', 'minBytes=1024', 'maxBytes=65536', 'flops=1e6'], n, 1);
const sparse = sparseOf(ranks);
const smallPlatform = fatTree({ shape: '3;8,8,8;1,8,8;1,1,1', hostBandwidth: 1.25e9, latency: 1e-6, speed: 1e9 });
const smallSparse = sparseOf(512);

const runs: ProgramRun[] = [];
const cases: [string, Map<number, Action[]>, Platform, NetworkKind, number][] = [
  [`stencil3d ${side}^3, 16 KiB halos`, stencil, platform, 'flow', 0],
  [`stencil3d ${side}^3, 16 KiB halos`, stencil, platform, 'delay', 0],
  ['random sparse, degree 4, 1-64 KiB', sparse, platform, 'flow', 1e-6],
  ['random sparse, degree 4, 1-64 KiB', smallSparse, smallPlatform, 'flow', 0],
  ['random sparse, degree 4, 1-64 KiB', smallSparse, smallPlatform, 'flow', 1e-6],
];
for (const [name, program, on, network, solveInterval] of cases) {
  const r = await simulate({ program, platform: on, network, flow: { solveInterval } });
  runs.push({ name, ranks: traceWorld(program), network, solveInterval, messages: countSends(program), makespan: r.makespan, wallSeconds: r.wallSeconds, events: r.events, rssMiB: rss() });
  console.log(`# ${name} on ${traceWorld(program)} ranks (${network}${solveInterval > 0 ? `, solve interval ${solveInterval} s` : ''}): ${r.wallSeconds.toFixed(1)} s, rss ${rss().toFixed(0)} MiB`);
}

// ---- 4. SimGrid on the same stencil ------------------------------------------------------------
const tools = simgridSteps > 0 ? findSimgrid() : undefined;
let baseline: { steps: number; messages: number; simgrid: { makespan: number; wallSeconds: number }; tsmpi: { makespan: number; wallSeconds: number } } | undefined;
if (tools !== undefined && ranks === 4096) {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-scale-'));
  try {
    const program = buildWorkload('stencil3d', [`steps=${simgridSteps}`, 'bytes=16384', 'flops=1e6', 'periodic=true'], ranks, 1);
    const description = await writeTiTraceFiles(dir, program);
    const xml = join(dir, 'fat-tree.xml');
    writeFileSync(xml, `<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n<platform version="4.1">\n  <cluster id="ft" prefix="ft-" suffix="" radical="0-4095" speed="1Gf" bw="1.25GBps" lat="1us" topology="FAT_TREE" topo_parameters="3;16,16,16;1,16,16;1,1,1"/>\n</platform>\n`);
    const hostfile = join(dir, 'hostfile');
    writeFileSync(hostfile, `${Array.from({ length: ranks }, (_, i) => `ft-${i}`).join('\n')}\n`);
    const simgrid = simgridReplay(tools, { platform: xml, description, hostfile, np: ranks });
    const ours = await simulate({ program, platform, network: 'flow' });
    baseline = { steps: simgridSteps, messages: countSends(program), simgrid, tsmpi: { makespan: ours.makespan, wallSeconds: ours.wallSeconds } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else if (simgridSteps > 0) {
  console.log(`# SimGrid comparison skipped: ${tools === undefined ? 'SimGrid is not installed (apt-get install libsimgrid-dev)' : 'it runs at RANKS=4096 only'}`);
}

printTable('engine (event heap + delay-only model, hold load on 4096 hosts)', ['messages in flight', 'events', 'seconds', 'events/s', 'target'], engine.map((e) => [
  e.inFlight, e.events, e.seconds.toFixed(2), `${(e.events / e.seconds / 1e6).toFixed(2)} M`, '>= 2 M',
]));
printTable('programs replayed through the communicator on full-bisection fat trees (RSS: peak so far)', ['workload', 'ranks', 'network', 'messages', 'makespan s', 'wall s', 'messages/s', 'events/s', 'RSS MiB'], runs.map((r) => [
  r.name, r.ranks, `${r.network}${r.solveInterval > 0 ? ` (solve every ${r.solveInterval * 1e6} us)` : ''}`, r.messages, r.makespan.toPrecision(5), r.wallSeconds.toFixed(1), `${(r.messages / r.wallSeconds / 1e3).toFixed(0)} k`, `${(r.events / r.wallSeconds / 1e3).toFixed(0)} k`, r.rssMiB.toFixed(0),
]));
if (baseline !== undefined) {
  printTable(`SimGrid ${tools!.version} (${SIMGRID_MATCHING_CONFIG[0]}) on the same ${baseline.steps}-step stencil (${baseline.messages} messages)`, ['simulator', 'makespan s', 'wall s', 'wall / tsmpi'], [
    ['SimGrid smpireplaymain', baseline.simgrid.makespan.toPrecision(6), baseline.simgrid.wallSeconds.toFixed(1), (baseline.simgrid.wallSeconds / baseline.tsmpi.wallSeconds).toFixed(1)],
    ['tsmpi sim (flow)', baseline.tsmpi.makespan.toPrecision(6), baseline.tsmpi.wallSeconds.toFixed(1), '1.0'],
  ]);
}
const flowRun = runs[0]!;
console.log(`\n${ranks} ranks, ${flowRun.messages} messages, flow model: ${flowRun.wallSeconds.toFixed(1)} s (target <= 60 s), peak RSS ${flowRun.rssMiB.toFixed(0)} MiB`);
const [exact, stepped] = [runs[3]!, runs[4]!];
console.log(`solve interval 1 us at 512 ranks: makespan ${((stepped.makespan / exact.makespan - 1) * 100).toFixed(3)}% off the exact one, ${(exact.wallSeconds / stepped.wallSeconds).toFixed(1)}x faster`);
writeResults('sim-scale', { ranks, engine: engine.map((e) => ({ ...e, eventsPerSecond: e.events / e.seconds })), runs, baseline });
