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
import { CALIBRATION_FORMAT, CALIBRATION_VERSION, type LinkClassCalibration, type MachineCalibration, type MeasuredSize } from '../sim/platform/calibration.js';
import type { LinkClass } from '../sim/network/model.js';
import { loadPlatformFile } from '../sim/platform/load.js';
import { fitLinkClass } from './fit.js';
import { simgridXml } from './simgrid-xml.js';

/** A launch mode and the link class its two ranks measure. */
export const CALIBRATION_MODES: Readonly<Record<string, { linkClass: LinkClass; flags: readonly string[]; describe: string }>> = {
  threads: { linkClass: 'intra-process', flags: [], describe: 'shared memory between worker threads of a process' },
  procs: { linkClass: 'inter-process', flags: ['--procs'], describe: 'TCP between two processes of this machine' },
};

export interface CalibrateOptions {
  output: string;
  modes: readonly string[];
  /** Calibrate a modelled machine (tsmpi sim --platform FILE) instead of this one. */
  sim?: string;
  quick: boolean;
  /** Draw a progress bar (else a line per mode). */
  progress: boolean;
}

interface ProbeResult {
  figures: MeasuredSize[];
  speed: number;
  eagerLimit: number;
  tcpEagerLimit: number;
}

function calibrateError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { operation: 'tsmpi calibrate', hint });
}

const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const PROBE = fileURLToPath(new URL('./probe.js', import.meta.url));

/** Runs the probe in one mode; `onStep` hears of each size done. */
function runProbe(mode: string, options: CalibrateOptions, out: string, onStep: (done: number, total: number) => void): Promise<ProbeResult> {
  const { flags } = CALIBRATION_MODES[mode]!;
  // Under the simulator the probe declares nothing: only the modelled costs move its clock (the
  // simulator's own JavaScript between calls is not the modelled machine's).
  const args = options.sim !== undefined ? [CLI, 'sim', '--quiet', '--compute', 'declared', '--platform', options.sim, '-n', '2', ...flags, PROBE, out] : [CLI, 'run', '-n', '2', ...flags, PROBE, out];
  if (options.quick) args.push('quick');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
        reject(calibrateError(`the ${mode} probe (${options.sim !== undefined ? 'tsmpi sim' : 'tsmpi run'} -n 2 ${flags.join(' ')}) ${signal !== null ? `was killed by ${signal}` : `exited with code ${code}`}:\n${stderr.trim()}`, 'the probe needs two ranks in that mode: check that `tsmpi run -n 2` works here'));
        return;
      }
      try {
        resolve(readProbe(out, mode));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** Reads and checks a probe's output file. */
export function readProbe(path: string, mode: string): ProbeResult {
  let value: ProbeResult;
  try {
    value = JSON.parse(readFileSync(path, 'utf8')) as ProbeResult;
  } catch (cause) {
    throw new TsmpiError(ErrorCode.Config, `the ${mode} probe wrote no readable figures (${(cause as Error).message})`, { operation: 'tsmpi calibrate', hint: 'run the calibration again; if it fails again, run the probe by hand to see its output', cause });
  }
  if (!Array.isArray(value.figures) || typeof value.speed !== 'number') throw calibrateError(`the ${mode} probe's output ${path} has no figures`, 'run the calibration again');
  return value;
}

/** Fits the figures of each mode into a calibrated machine (`speed`: flop/s when not measured). */
export function machineFrom(results: ReadonlyMap<string, ProbeResult>, seconds: number, speedGiven?: number): MachineCalibration {
  const classes: Partial<Record<LinkClass, LinkClassCalibration>> = {};
  let speed = 0;
  for (const [mode, result] of results) {
    const { linkClass } = CALIBRATION_MODES[mode]!;
    const eager = linkClass === 'intra-process' ? result.eagerLimit : result.tcpEagerLimit;
    try {
      classes[linkClass] = fitLinkClass(result.figures, eager, `${mode} (${linkClass})`);
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
    hosts: { count: 1, cores: availableParallelism(), speed },
    compute: { kernel: 'x = x * a + b, 2 flops per step', fitError: 0 },
    classes,
  };
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
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-calibrate-'));
  const started = performance.now();
  const bar = options.progress ? new cliProgress.SingleBar({ format: 'calibrating {mode} [{bar}] {value}/{total} sizes | {duration}s', hideCursor: true, clearOnComplete: false }, cliProgress.Presets.shades_classic) : undefined;
  const results = new Map<string, ProbeResult>();
  try {
    for (const mode of options.modes) {
      let started = false;
      const step = (done: number, total: number): void => {
        if (bar === undefined) return;
        if (!started) {
          bar.start(total, 0, { mode });
          started = true;
        }
        bar.update(done, { mode });
      };
      if (bar === undefined) process.stderr.write(`tsmpi calibrate: measuring ${mode} (${CALIBRATION_MODES[mode]!.describe})\n`);
      try {
        results.set(mode, await runProbe(mode, options, join(dir, `${mode}.json`), step));
      } finally {
        if (started) bar!.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // A modelled machine computes at its own declared speed (the probe's kernel takes no virtual time).
  const modelled = options.sim !== undefined ? (await loadPlatformFile(options.sim)).host(0).speed : undefined;
  const machine = machineFrom(results, (performance.now() - started) / 1000, modelled);
  writeFileSync(options.output, `${JSON.stringify(machine, null, 2)}\n`);
  writeFileSync(xmlPathOf(options.output), simgridXml(machine));
  return machine;
}
