/**
 * `tsmpi calibrate -o FILE`: measures this machine in each launch mode with the probe program
 * (probe.ts) on two ranks, fits each link class's per-frame costs (fit.ts), and writes the
 * calibrated machine as JSON (what `tsmpi sim --platform` reads) and as SimGrid XML with the
 * matching smpi/* settings. `--sim PLATFORM` runs the same probes under `tsmpi sim` instead: a
 * fit against a modelled machine must give that machine back (the calibration's own check).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cliProgress from 'cli-progress';
import { ErrorCode, TsmpiError } from '../errors.js';
import { CALIBRATION_FORMAT, CALIBRATION_VERSION, evaluate, frameOneWay, type LinkClassCalibration, type MachineCalibration, type SizedWarmup } from '../sim/platform/calibration.js';
import type { LinkClass } from '../sim/network/model.js';
import { loadPlatformFile } from '../sim/platform/load.js';
import { readHostfile } from '../bootstrap/mpirun-hosts.js';
import { TCP_BORROW_FROM } from '../transport/tcp-link.js';
import { excessOver, fitCrowded, fitAfterSend, fitLinkClass, fitLinkSetup, fitPathCpu, fitSleeping, fitWake, fitWarmup } from './fit.js';
import { combineProbes, combineWakes, type CrowdedRing, type ProbeResult, type SizedCold, type SleepingResult, type WakeResult } from './combine.js';
import { simgridXml } from './simgrid-xml.js';

/** A launch mode and the link class its two ranks measure. */
export const CALIBRATION_MODES: Readonly<Record<string, { linkClass: LinkClass; flags: readonly string[]; describe: string }>> = {
  threads: { linkClass: 'intra-process', flags: [], describe: 'shared memory between worker threads of a process' },
  procs: { linkClass: 'inter-process', flags: ['--procs'], describe: 'TCP between two processes of this machine' },
  hosts: { linkClass: 'inter-host', flags: [], describe: 'TCP between the first two hosts of the hostfile' },
};

/**
 * The launch flags of a mode's two ranks. Between hosts: one rank on each of the hostfile's first
 * two hosts (or, on a modelled machine, one rank per host); else both on one host.
 */
function flagsOf(mode: string, options: CalibrateOptions): readonly string[] {
  if (mode !== 'hosts') return options.sim !== undefined ? [...CALIBRATION_MODES[mode]!.flags, '--ranks-per-host', '2'] : CALIBRATION_MODES[mode]!.flags;
  if (options.sim !== undefined) return ['--ranks-per-host', '1'];
  return ['--hostfile', options.hostfile!, '--map-by', 'node'];
}

export interface CalibrateOptions {
  output: string;
  modes: readonly string[];
  /** Calibrate a modelled machine (tsmpi sim --platform FILE) instead of this one. */
  sim?: string;
  /** The hosts of the cluster (Open MPI's hostfile syntax, as tsmpi run reads it): mode `hosts` measures between the first two. */
  hostfile?: string;
  quick: boolean;
  /** Independent runs of each experiment, combined by medians (combine.ts); default 3, 1 with quick or sim. */
  runs?: number;
  /** Draw a progress bar (else a line per mode). */
  progress: boolean;
}

function calibrateError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { operation: 'tsmpi calibrate', hint });
}

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
// (From dist/calibrate/ and from the command's bundle in dist/bundle/ alike.)
const PROBE = fileURLToPath(new URL('../calibrate/probe.js', import.meta.url));

/** One run of the probe program: its ranks, launch flags, experiment and environment. */
interface ProbeRun {
  label: string;
  np: number;
  flags: readonly string[];
  experiment: string;
  env?: Readonly<Record<string, string>>;
}

/** Runs the probe once (`onStep` hears of each size done) and reads what rank 0 wrote. */
function runProbeProgram(run: ProbeRun, options: CalibrateOptions, out: string, onStep: (done: number, total: number) => void = () => {}, compute: 'declared' | 'measured' = 'declared'): Promise<unknown> {
  const { flags, np } = run;
  // Under the simulator the probe declares nothing: only the modelled costs move its clock (the
  // simulator's own JavaScript between calls is not the modelled machine's). Measured: what the
  // simulator counts of a program by itself (netOfSimulator).
  const args = options.sim !== undefined ? [CLI, 'sim', '--quiet', '--compute', compute, '--platform', options.sim, '-n', String(np), ...flags, PROBE, out, run.experiment] : [CLI, 'run', '-n', String(np), ...flags, PROBE, out, run.experiment];
  return new Promise((resolve, reject) => {
    // A modelled machine's poll costs are measured as they are, not grown by a loop of polls.
    const modelled = options.sim !== undefined ? { TSMPI_SIM_GROW_POLLS: process.env['TSMPI_SIM_GROW_POLLS'] ?? '0' } : {};
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...modelled, ...run.env } });
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const m = /^progress (\d+) (\d+)$/.exec(line.trim());
        if (m !== null) onStep(Number(m[1]), Number(m[2]));
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const command = `${options.sim !== undefined ? 'tsmpi sim' : 'tsmpi run'} -n ${np} ${flags.join(' ')} ${run.experiment}`;
        reject(calibrateError(`the ${run.label} probe (${command}) ${signal !== null ? `was killed by ${signal}` : `exited with code ${code}`}:\n${stderr.trim()}`, `the probe needs ${np} ranks in that mode: check that \`tsmpi run -n ${np}\` works here`));
        return;
      }
      try {
        resolve(readJson(out, run.label));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function readJson(path: string, label: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (cause) {
    throw new TsmpiError(ErrorCode.Config, `the ${label} probe wrote no readable figures (${(cause as Error).message})`, { operation: 'tsmpi calibrate', hint: 'run the calibration again; if it fails again, run the probe by hand to see its output', cause });
  }
}

/** Runs the sweep in one launch mode. */
async function runSweep(mode: string, options: CalibrateOptions, out: string, onStep: (done: number, total: number) => void): Promise<ProbeResult> {
  const value = (await runProbeProgram({ label: mode, np: 2, flags: flagsOf(mode, options), experiment: options.quick ? 'quick' : 'full' }, options, out, onStep)) as ProbeResult;
  // Under the simulator the process's CPU is the simulator's, not the modelled machine's.
  if (options.sim !== undefined) delete value.cpuPerRoundTrip;
  if (!Array.isArray(value.figures) || typeof value.speed !== 'number') throw calibrateError(`the ${mode} probe's output ${out} has no figures`, 'run the calibration again');
  // The probe's file also shows how the path settled (`settle`, each size's dropped `firstBatch`); the platform keeps the figures.
  return { ...value, figures: value.figures.map(({ bytes, oneWay, streamPeriod, send, recv, burstSend }) => ({ bytes, oneWay, streamPeriod, send, recv, ...(burstSend !== undefined ? { burstSend } : {}) })) };
}

/**
 * Between processes, the sweep's ranks turn their event loops while they wait (the machine's two
 * ranks fit its cores); ranks that outnumber the cores sleep in the kernel instead. The probe's
 * `sleep` experiment measures that case: the 16-byte ping-pong with TSMPI_SOCKET_SPIN_US=0.
 */
async function runSleeping(mode: string, options: CalibrateOptions, out: string): Promise<SleepingResult> {
  const value = (await runProbeProgram({ label: `${mode} sleeping`, np: 2, flags: flagsOf(mode, options), experiment: options.quick ? 'sleep-quick' : 'sleep', env: { TSMPI_SOCKET_SPIN_US: '0' } }, options, out)) as { oneWay?: unknown; cpuPerRoundTrip?: unknown };
  if (typeof value.oneWay !== 'number' || !(value.oneWay > 0)) throw calibrateError(`the ${mode} sleeping probe measured ${String(value.oneWay)} s`, 'run the calibration again');
  // Under the simulator the process's CPU is the simulator's, not the modelled machine's.
  return options.sim === undefined && typeof value.cpuPerRoundTrip === 'number' ? { oneWay: value.oneWay, cpuPerRoundTrip: value.cpuPerRoundTrip } : { oneWay: value.oneWay };
}

/**
 * A new link's round trips (the probe's `link` experiment, 3 ranks): in threads and --procs
 * modes, all on one host (a modelled one too).
 */
async function runLink(mode: string, options: CalibrateOptions, out: string, metered?: 'measured'): Promise<{ first: number; warm: number }> {
  const flags = options.sim !== undefined ? [...CALIBRATION_MODES[mode]!.flags, '--ranks-per-host', '3'] : CALIBRATION_MODES[mode]!.flags;
  const value = (await runProbeProgram({ label: `${mode} new link`, np: 3, flags, experiment: 'link' }, options, out, () => {}, metered)) as { first?: unknown; warm?: unknown };
  if (typeof value.first !== 'number' || typeof value.warm !== 'number' || !(value.first > 0 && value.warm > 0)) throw calibrateError(`the ${mode} new-link probe measured ${String(value.first)} s and ${String(value.warm)} s warm`, 'run the calibration again');
  return { first: value.first, warm: value.warm };
}

/**
 * The payloads of the sized fresh curves: the first whose copies go through memcpy, and the eager
 * limit's (copy-bytes.ts and the runtime's defaults). A frame takes the curve of the largest of
 * them it reaches, from half-way (geometric) between two of them.
 */
export const SIZED_COLD_BYTES = [2048, 65536];

/** The sized fresh curves in one mode (the probe's `cold-BYTES`, each on fresh ranks). */
async function runSizedCold(mode: string, options: CalibrateOptions, dir: string, run: number, simulating?: CalibrateOptions): Promise<SizedCold[]> {
  const curves: SizedCold[] = [];
  for (const bytes of SIZED_COLD_BYTES) {
    const probe: ProbeRun = { label: `${mode} fresh ${bytes} B${simulating !== undefined ? ' (simulated)' : ''}`, np: 2, flags: simulating !== undefined ? CALIBRATION_MODES[mode]!.flags : flagsOf(mode, options), experiment: `cold-${bytes}${options.quick ? '-quick' : ''}` };
    const value = (await runProbeProgram(probe, simulating ?? options, join(dir, `cold-${bytes}-${mode}-${run}.json`), () => {}, simulating !== undefined ? 'measured' : 'declared')) as Partial<SizedCold>;
    if (!Array.isArray(value.cold) || !Array.isArray(value.coldFrames) || value.cold.length < 3 || value.cold.length !== value.coldFrames.length) {
      throw calibrateError(`the ${probe.label} probe wrote no curve (${JSON.stringify(value).slice(0, 80)})`, 'run the calibration again');
    }
    curves.push({ bytes, cold: value.cold, coldFrames: value.coldFrames });
  }
  return curves;
}

/** Ranks per core of the ring experiments; none past this many ranks (threads of one process). */
const RING_RANKS_PER_CORE = [2, 4];
const RING_MAX_RANKS = 64;
/** The rings of processes stop at this many (each is a Node process of its own). */
const PROCESS_RING_MAX_RANKS = 16;

/** Runs of the calibration that measure the crowded ring of the most processes per core. */
const CROWDED_LARGEST_RUNS = 2;

/** The process counts of the crowded rings on a host of `cores` cores. */
function crowdedRingSizes(cores: number): { ranksPerCore: number; np: number }[] {
  return RING_RANKS_PER_CORE.map((perCore) => ({ ranksPerCore: perCore, np: perCore * cores })).filter((r) => r.np <= PROCESS_RING_MAX_RANKS);
}

/**
 * Warm rings of processes with 2 and 4 per core (`--procs`, the default waits): a woken process
 * then queues for a core behind the others, which the 2-process sleeping ping-pong never shows
 * (4 processes on 2 cores passed a token in 54-58 us per hop, 8 in 73-80, against ~33 one way for 2).
 */
async function runCrowded(options: CalibrateOptions, cores: number, dir: string, run: number, simulating?: CalibrateOptions): Promise<CrowdedRing[]> {
  const rings: CrowdedRing[] = [];
  for (const { ranksPerCore, np } of crowdedRingSizes(cores)) {
    // The largest ring runs in the first two runs only (the median of two is their mean): on 2
    // cores its 8 processes took 5-8 s a run, the calibration's largest part (its batches are
    // bounded in time too, RING_FORMS in probe.ts).
    if (run >= CROWDED_LARGEST_RUNS && ranksPerCore === RING_RANKS_PER_CORE.at(-1)) continue;
    const ring: ProbeRun = { label: `ring of ${np} processes${simulating !== undefined ? ' (simulated)' : ''}`, np, flags: ['--procs'], experiment: options.quick ? 'crowded-quick' : 'crowded' };
    const value = (await runProbeProgram(ring, simulating ?? options, join(dir, `crowded-${np}-${run}.json`), () => {}, simulating !== undefined ? 'measured' : 'declared')) as { hop?: unknown };
    if (typeof value.hop !== 'number' || !(value.hop > 0)) throw calibrateError(`the ring probe on ${np} processes measured ${String(value.hop)} s per hop`, 'run the calibration again');
    rings.push({ ranksPerCore, hop: value.hop });
  }
  return rings;
}

/**
 * The wake-up experiments (threads): a ping-pong where every receive sleeps (TSMPI_SPIN_US=0),
 * then a ring over 2 and 4 ranks per core with the default spin.
 */
async function runWake(options: CalibrateOptions, cores: number, dir: string): Promise<WakeResult> {
  const out = join(dir, 'wake.json');
  const sleeping = (await runProbeProgram({ label: 'wake-up', np: 2, flags: [], experiment: 'wake', env: { TSMPI_SPIN_US: '0' } }, options, out)) as { oneWay?: unknown };
  if (typeof sleeping.oneWay !== 'number' || !(sleeping.oneWay > 0)) throw calibrateError(`the wake-up probe measured ${String(sleeping.oneWay)} s`, 'run the calibration again');
  const rings: WakeResult['rings'] = [];
  for (const perCore of RING_RANKS_PER_CORE) {
    const np = perCore * cores;
    if (np > RING_MAX_RANKS) break;
    const ring = (await runProbeProgram({ label: `ring of ${np}`, np, flags: [], experiment: 'ring' }, options, join(dir, `ring-${np}.json`))) as { hop?: unknown };
    if (typeof ring.hop !== 'number' || !(ring.hop > 0)) throw calibrateError(`the ring probe on ${np} ranks measured ${String(ring.hop)} s per hop`, 'run the calibration again');
    rings.push({ ranksPerCore: perCore, hop: ring.hop });
  }
  return { sleepingOneWay: sleeping.oneWay, rings };
}

/**
 * Fits the figures of each mode into a calibrated machine (`speed`: flop/s when not measured;
 * `wake`: the wake-up experiments, when run).
 */
export function machineFrom(results: ReadonlyMap<string, ProbeResult>, seconds: number, speedGiven?: number, wake?: WakeResult, cores = availableParallelism(), hostCount = 1): MachineCalibration {
  const classes: Partial<Record<LinkClass, LinkClassCalibration>> = {};
  let speed = 0;
  for (const [mode, result] of results) {
    const { linkClass } = CALIBRATION_MODES[mode]!;
    const eager = linkClass === 'intra-process' ? result.eagerLimit : result.tcpEagerLimit;
    try {
      // Over TCP an eager payload past the link's copy limit is written from the sender's buffer.
      const pathChange = linkClass === 'intra-process' ? undefined : TCP_BORROW_FROM;
      const fitted = fitLinkClass(result.figures, eager, `${mode} (${linkClass})`, pathChange);
      const warmup = result.cold !== undefined && result.coldFrames !== undefined ? fitWarmup(result.cold, result.coldFrames) : undefined;
      const sizedWarmup = result.sizedCold?.map((curve, i, all): SizedWarmup => ({ bytes: curve.bytes, fromBytes: i === 0 ? curve.bytes : Math.round(Math.sqrt(all[i - 1]!.bytes * curve.bytes)), steps: fitWarmup(curve.cold, curve.coldFrames) }));
      // Only a rank alone in its process measures its own path's CPU (threads share one process).
      const pathCpu = linkClass !== 'intra-process' && result.cpuPerRoundTrip !== undefined ? fitPathCpu(result.cpuPerRoundTrip, evaluate(fitted.send, 16), evaluate(fitted.recv, 16), evaluate(fitted.latency, 16)) : undefined;
      // Between threads the exchange costs what the model makes of it already (a ring copy has no completion to handle).
      const afterSend = linkClass !== 'intra-process' && result.exchange !== undefined ? fitAfterSend(result.exchange, frameOneWay(fitted, 16), evaluate(fitted.send, 16), evaluate(fitted.recv, 16), pathCpu) : undefined;
      const linkSetup = result.link !== undefined ? fitLinkSetup(result.link) : undefined;
      const sleepingFit = result.sleeping !== undefined ? fitSleeping(result.sleeping, fitted, afterSend) : undefined;
      const crowded = sleepingFit !== undefined && result.crowded !== undefined ? fitCrowded(result.crowded, result.sleeping!.oneWay) : [];
      const sleeping = sleepingFit !== undefined && crowded.length > 0 ? { ...sleepingFit, crowded } : sleepingFit;
      classes[linkClass] = {
        ...fitted,
        ...(warmup !== undefined ? { warmup } : {}),
        ...(sizedWarmup !== undefined ? { sizedWarmup } : {}),
        ...(result.polls !== undefined ? { polls: result.polls } : {}),
        ...(pathCpu !== undefined ? { pathCpu } : {}),
        ...(afterSend !== undefined ? { afterSend } : {}),
        ...(linkSetup !== undefined ? { linkSetup } : {}),
        ...(sleeping !== undefined ? { sleeping } : {}),
      };
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw calibrateError(`cannot fit the ${mode} figures: ${error.message}`, 'run the calibration again on an idle machine');
    }
    speed = Math.max(speed, result.speed);
  }
  if (speedGiven !== undefined) speed = speedGiven;
  if (!(speed > 0)) throw calibrateError(`the measured compute speed is ${speed} flop/s`, 'run the calibration again');
  const cpu = cpus()[0];
  return {
    format: CALIBRATION_FORMAT,
    version: CALIBRATION_VERSION,
    machine: { host: hostname(), cpus: availableParallelism(), cpuModel: cpu?.model ?? '', node: process.version, date: new Date().toISOString(), seconds: Math.round(seconds * 10) / 10 },
    hosts: { count: hostCount, cores, speed },
    compute: { kernel: 'x = x * a + b, 2 flops per step', fitError: 0 },
    classes,
    ...(wake !== undefined && classes['intra-process'] !== undefined ? { wake: fitWake(wake, classes['intra-process'].measured) } : {}),
  };
}

/**
 * What the machine costs beyond what the simulator counts by itself. A simulated rank's compute
 * is measured as it runs, its tsmpi calls included: a fresh rank's first calls run slow there too
 * (each rank warms up its own runtime, tsmpi-sim's V8 compiles on the rank's time), and a hop of a
 * ring includes the calls' own work. The fresh ranks' curve and the wake-up experiments are
 * therefore run again under `tsmpi sim` on the machine just fitted, without its warm-up and
 * wake-ups, and only what the real runs took beyond the simulated ones is kept: the warm-up as
 * the excess of the real curve over the simulated one, the wake-ups as real minus simulated.
 */
async function netOfSimulator(machine: MachineCalibration, results: ReadonlyMap<string, ProbeResult>, wake: WakeResult | undefined, options: CalibrateOptions, cores: number): Promise<{ results: Map<string, ProbeResult>; wake: WakeResult | undefined }> {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-calibrate-net-'));
  try {
    const { wake: _wake, ...withoutWake } = machine;
    const strip = (linkSetupOf: (c: LinkClass) => number | undefined): MachineCalibration => ({
      ...withoutWake,
      classes: Object.fromEntries(
        Object.entries(machine.classes).map(([c, { warmup: _warmup, sizedWarmup: _sizedWarmup, linkSetup: _linkSetup, sleeping, ...rest }]) => {
          const linkSetup = linkSetupOf(c as LinkClass);
          // The crowded rings are measured against a machine without their extra wake-up.
          const kept = sleeping === undefined ? {} : (({ crowded: _crowded, ...bare }) => ({ sleeping: bare }))(sleeping);
          return [c, { ...rest, ...kept, ...(linkSetup !== undefined ? { linkSetup } : {}) }];
        }),
      ),
    });
    /** Options that simulate `bare`, written to `name` in the scratch directory. */
    const simulating = (bare: MachineCalibration, name: string): CalibrateOptions => {
      const platform = join(dir, name);
      writeFileSync(platform, `${JSON.stringify(bare)}\n`);
      return { ...options, sim: platform };
    };
    process.stderr.write('tsmpi calibrate: the same under tsmpi sim (what it counts by itself)\n');
    // First a new link's cost, on the machine without one: what the simulated ranks' own first
    // round trip took beyond their warm ones is not the link's.
    const links = new Map<string, { first: number; warm: number }>();
    const noLinks = simulating(strip(() => undefined), 'bare-no-links.json');
    for (const [mode, result] of results) {
      if (result.link === undefined || mode === 'hosts') continue;
      const simulatedLink = await runLink(mode, noLinks, join(dir, `link-${mode}.json`), 'measured');
      links.set(mode, { first: Math.max(result.link.warm, result.link.first - Math.max(0, simulatedLink.first - simulatedLink.warm)), warm: result.link.warm });
    }
    // Then the fresh curve on the machine with its links: the first round trip opens two, which
    // the link's cost prices; the warm-up keeps only the rest.
    const linkOf = new Map([...links].map(([mode, link]) => [CALIBRATION_MODES[mode]!.linkClass, fitLinkSetup(link)]));
    const withLinks = simulating(strip((c) => linkOf.get(c)), 'bare.json');
    const sim = (run: ProbeRun, out: string): Promise<unknown> => runProbeProgram(run, withLinks, out, () => {}, 'measured');
    const net = new Map<string, ProbeResult>();
    for (const [mode, result] of results) {
      const link = links.get(mode);
      let crowded: CrowdedRing[] | undefined;
      if (result.crowded !== undefined && result.sleeping !== undefined) {
        // What the simulated rings took is the model's already; the rest is the crowding's, kept
        // on top of the sleeping one-way time that fitCrowded measures from.
        const simulated = await runCrowded(options, cores, dir, 0, withLinks);
        crowded = result.crowded.map((ring) => ({ ranksPerCore: ring.ranksPerCore, hop: result.sleeping!.oneWay + Math.max(0, ring.hop - (simulated.find((s) => s.ranksPerCore === ring.ranksPerCore)?.hop ?? ring.hop)) }));
      }
      const extras = { ...(link !== undefined ? { link } : {}), ...(crowded !== undefined ? { crowded } : {}) };
      if (result.cold === undefined || result.coldFrames === undefined || mode === 'hosts') {
        net.set(mode, { ...result, ...extras });
        continue;
      }
      const simulatedCold = ((await sim({ label: `${mode} (simulated)`, np: 2, flags: CALIBRATION_MODES[mode]!.flags, experiment: options.quick ? 'cold-quick' : 'cold' }, join(dir, `cold-${mode}.json`))) as { cold?: number[] }).cold;
      if (!Array.isArray(simulatedCold) || simulatedCold.length < 3) throw calibrateError(`the simulated ${mode} probe wrote no fresh-rank curve`, 'run the calibration again');
      // Each sized curve likewise, beyond the simulated one (whose 16-byte part no warm-up prices either).
      let sizedCold: SizedCold[] | undefined;
      if (result.sizedCold !== undefined) {
        const simulated = await runSizedCold(mode, options, dir, 0, withLinks);
        sizedCold = result.sizedCold.map((curve) => {
          const twin = simulated.find((c) => c.bytes === curve.bytes);
          return twin === undefined ? curve : { ...curve, cold: excessOver(curve.cold, twin.cold, curve.coldFrames) };
        });
      }
      net.set(mode, { ...result, cold: excessOver(result.cold, simulatedCold, result.coldFrames), ...(sizedCold !== undefined ? { sizedCold } : {}), ...extras });
    }
    let netWake: WakeResult | undefined;
    if (wake !== undefined) {
      // Each experiment as the real one ran it (one simulated run: the real runs' median is the noisy part).
      const sleeping = (await sim({ label: 'wake-up (simulated)', np: 2, flags: [], experiment: 'wake', env: { TSMPI_SPIN_US: '0' } }, join(dir, 'wake.json'))) as { oneWay?: number };
      const rings: WakeResult['rings'] = [];
      for (const ring of wake.rings) {
        const simulatedRing = (await sim({ label: `ring of ${ring.ranksPerCore * cores} (simulated)`, np: ring.ranksPerCore * cores, flags: [], experiment: 'ring' }, join(dir, `ring-${ring.ranksPerCore}.json`))) as { hop?: number };
        rings.push({ ranksPerCore: ring.ranksPerCore, hop: beyond(ring.hop, simulatedRing.hop, machine) });
      }
      netWake = { sleepingOneWay: beyond(wake.sleepingOneWay, sleeping.oneWay, machine), rings };
    }
    return { results: net, wake: netWake };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A real wake-up experiment's time less what the simulator took for it beyond the calibrated
 * 16-byte one-way time (fitWake subtracts that one itself): what is left is the wake-up's.
 */
function beyond(real: number, simulated: number | undefined, machine: MachineCalibration): number {
  if (typeof simulated !== 'number' || !(simulated > 0)) throw calibrateError(`a simulated wake-up experiment measured ${String(simulated)} s`, 'run the calibration again');
  const measured = machine.classes['intra-process']?.measured ?? [];
  const base = (measured.find((f) => f.bytes === 16) ?? measured.find((f) => f.bytes > 0) ?? measured[0])?.oneWay ?? 0;
  return Math.max(base, real - Math.max(0, simulated - base));
}

/** Where the XML goes: FILE.json becomes FILE.xml, any other name gets .xml added. */
export function xmlPathOf(output: string): string {
  return output.endsWith('.json') ? `${output.slice(0, -5)}.xml` : `${output}.xml`;
}

export async function calibrate(options: CalibrateOptions): Promise<MachineCalibration> {
  for (const mode of options.modes) {
    if (CALIBRATION_MODES[mode] === undefined) throw calibrateError(`--modes ${mode} is not a launch mode`, `use ${Object.keys(CALIBRATION_MODES).join(', ')} (comma-separated)`);
  }
  if (options.modes.length === 0) throw calibrateError('no launch mode to calibrate', 'give --modes threads,procs');
  if (options.modes.includes('hosts') && options.hostfile === undefined && options.sim === undefined) throw calibrateError('--modes hosts measures between two hosts, and no hosts were named', 'give --hostfile FILE (the hosts, as tsmpi run --hostfile reads them)');
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-calibrate-'));
  const started = performance.now();
  const bar = options.progress ? new cliProgress.SingleBar({ format: 'calibrating {mode} [{bar}] {value}/{total} sizes | {duration}s', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic) : undefined;
  const results = new Map<string, ProbeResult>();
  // A modelled machine's cores and declared speed (the probe's kernel takes no virtual time), else this one's.
  const modelled = options.sim !== undefined ? await loadPlatformFile(options.sim) : undefined;
  const modelledHost = modelled?.host(0);
  const cores = modelledHost?.cores ?? availableParallelism();
  // The hosts of the machine: the modelled platform's, or the hostfile's (one process per host line).
  let hostCount = 1;
  if (modelled !== undefined && options.modes.includes('hosts')) hostCount = modelled.hostCount;
  else if (modelled === undefined && options.hostfile !== undefined) hostCount = new Set((await readHostfile(options.hostfile, 'tsmpi calibrate')).map((h) => h.name)).size;
  if (options.modes.includes('hosts') && hostCount < 2) throw calibrateError(`--modes hosts needs two hosts; ${options.hostfile ?? options.sim} has ${hostCount}`, 'name at least two hosts');
  let wake: WakeResult | undefined;
  // A modelled machine gives the same figures every time: one run is enough there.
  const runs = options.runs ?? (options.quick || options.sim !== undefined ? 1 : 3);
  if (!(Number.isInteger(runs) && runs >= 1)) throw calibrateError(`--runs ${runs} is not a positive whole number`, 'give --runs 1 or more (3 by default)');
  const sweeps = new Map<string, ProbeResult[]>(options.modes.map((m) => [m, []]));
  try {
    // Run by run, every mode in turn: a slow spell on the machine hits one run of a mode, which the median outvotes.
    for (let run = 0; run < runs; run++) {
      for (const mode of options.modes) {
        const label = runs > 1 ? `${mode} (run ${run + 1} of ${runs})` : mode;
        let started = false;
        const step = (done: number, total: number): void => {
          if (bar === undefined) return;
          if (!started) {
            bar.start(total, 0, { mode: label });
            started = true;
          }
          bar.update(done, { mode: label });
        };
        if (bar === undefined) process.stderr.write(`tsmpi calibrate: measuring ${label} (${CALIBRATION_MODES[mode]!.describe})\n`);
        try {
          const sweep = await runSweep(mode, options, join(dir, `${mode}-${run}.json`), step);
          const link = mode === 'hosts' ? undefined : await runLink(mode, options, join(dir, `link-${mode}-${run}.json`));
          const sizedCold = mode === 'hosts' ? undefined : await runSizedCold(mode, options, dir, run);
          // A modelled machine's receivers do not sleep: nothing to measure there.
          const sleeping = CALIBRATION_MODES[mode]!.linkClass === 'intra-process' || options.sim !== undefined ? undefined : await runSleeping(mode, options, join(dir, `sleep-${mode}-${run}.json`));
          // Processes sharing the cores: only between processes of this host, where receivers sleep.
          const crowded = sleeping !== undefined && CALIBRATION_MODES[mode]!.linkClass === 'inter-process' ? await runCrowded(options, cores, dir, run) : undefined;
          sweeps.get(mode)!.push({ ...sweep, ...(link !== undefined ? { link } : {}), ...(sizedCold !== undefined ? { sizedCold } : {}), ...(sleeping !== undefined ? { sleeping } : {}), ...(crowded !== undefined && crowded.length > 0 ? { crowded } : {}) });
        } finally {
          if (started) bar!.stop();
        }
      }
    }
    for (const [mode, done] of sweeps) results.set(mode, combineProbes(done));
    if (options.modes.includes('threads')) {
      process.stderr.write(`tsmpi calibrate: measuring wake-ups (a sleeping rank; rings of ${RING_RANKS_PER_CORE.map((k) => k * cores).filter((n) => n <= RING_MAX_RANKS).join(' and ')} ranks on ${cores} cores${runs > 1 ? `; ${runs} runs` : ''})\n`);
      const wakes: WakeResult[] = [];
      for (let run = 0; run < runs; run++) wakes.push(await runWake(options, cores, dir));
      wake = combineWakes(wakes);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  let machine = machineFrom(results, (performance.now() - started) / 1000, modelledHost?.speed, wake, cores, hostCount);
  if (options.sim === undefined) {
    const net = await netOfSimulator(machine, results, wake, options, cores);
    machine = machineFrom(net.results, (performance.now() - started) / 1000, undefined, net.wake, cores, hostCount);
  }
  writeFileSync(options.output, `${JSON.stringify(machine, null, 2)}\n`);
  writeFileSync(xmlPathOf(options.output), simgridXml(machine));
  return machine;
}
