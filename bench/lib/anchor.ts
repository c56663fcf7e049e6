/**
 * The prediction bench's anchor: how well SimGrid predicts real runs on this same machine. The C
 * twins of the bench's programs (bench/peers/predict.c) run under Open MPI (its defaults; as root
 * it needs --allow-run-as-root, and beyond the cores --oversubscribe) for the real time, and under
 * SimGrid (compiled with smpicc, `smpirun` with SimGrid's defaults otherwise) on two calibrated
 * platforms:
 * - the XML `tsmpi calibrate` wrote (what the issue names: tsmpi's figures);
 * - the XML of SMPI's own way, calibrating the library the programs run on: Open MPI's figures
 *   from the same sweep in C (bench/peers/calibrate.c), fitted and written by the same code.
 * All ranks run on one host, as the real run does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fitLinkClass } from '../../src/calibrate/fit.ts';
import { simgridXml } from '../../src/calibrate/simgrid-xml.ts';
import type { MachineCalibration, MeasuredSize, PollCosts } from '../../src/sim/platform/calibration.ts';
import { median } from './report.ts';

const peers = fileURLToPath(new URL('../peers/', import.meta.url));

export const ANCHOR_PROGRAMS = ['heat', 'ring', 'allreduce', 'alltoall'] as const;

export interface AnchorRow {
  program: string;
  ranks: number;
  real: number;
  realRuns: number[];
  /** SimGrid on the XML of tsmpi's calibration, and on the XML of Open MPI's. */
  onTsmpiXml: number;
  onOpenMpiXml: number;
  errorTsmpiXml: number;
  errorOpenMpiXml: number;
}

function run(cmd: string, args: readonly string[], what: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${what}: ${cmd} ${args.join(' ')} failed (status ${r.status}):\n${`${r.stdout}${r.stderr}`.slice(-3000)}`);
  return r.stdout;
}

const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** Why the anchor cannot run here, or undefined when it can. */
export function anchorMissing(): string | undefined {
  const missing = ['mpicc', 'mpirun', 'smpicc', 'smpirun'].filter((t) => !has(t));
  return missing.length === 0 ? undefined : `${missing.join(', ')} not installed (apt-get install openmpi-bin libopenmpi-dev libsimgrid-dev simgrid)`;
}

function compile(compiler: string, source: string, binary: string): string {
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) run(compiler, ['-O2', '-o', binary, source, '-lm'], `compiling ${source}`);
  return binary;
}

const spanOf = (out: string): number => {
  const m = /^span ([\d.eE+-]+)$/m.exec(out);
  if (m === null) throw new Error(`no span line in:\n${out.slice(-2000)}`);
  return Number(m[1]);
};

/** Open MPI's eager limit on shared memory (vader's, a fragment including its header), from ompi_info. */
function openMpiEagerLimit(): number {
  const r = spawnSync('ompi_info', ['--param', 'btl', 'vader', '--level', '9'], { encoding: 'utf8' });
  const m = /btl_vader_eager_limit" \(current value: "(\d+)"/.exec(r.stdout ?? '');
  // Messages whose fragment (payload and a match header) fits the limit go eagerly.
  return (m !== null ? Number(m[1]) : 4096) - 64;
}

/**
 * SMPI's calibration of Open MPI on this machine: the C sweep on 2 ranks, fitted as tsmpi's own
 * figures, on the hosts of tsmpi's calibration (cores and compute speed), written as SimGrid XML.
 */
export function calibrateOpenMpi(tsmpiCalibration: MachineCalibration, dir: string): { xml: string; machine: MachineCalibration } {
  const binary = compile('mpicc', join(peers, 'calibrate.c'), join(dir, 'calibrate-openmpi'));
  const lines = run('mpirun', ['--allow-run-as-root', '-n', '2', binary], 'Open MPI calibration sweep')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as MeasuredSize | { polls: PollCosts });
  const figures = lines.filter((l): l is MeasuredSize => 'bytes' in l);
  const polls = lines.find((l): l is { polls: PollCosts } => 'polls' in l)?.polls;
  const fitted = fitLinkClass(figures, openMpiEagerLimit(), 'Open MPI on shared memory');
  // The hosts of tsmpi's calibration; its wake-up figures are tsmpi's, not Open MPI's.
  const { wake: _wake, ...hosts } = tsmpiCalibration;
  const machine: MachineCalibration = {
    ...hosts,
    hosts: { ...tsmpiCalibration.hosts, count: 1 },
    machine: { ...tsmpiCalibration.machine, date: new Date().toISOString() },
    classes: { 'intra-process': { ...fitted, ...(polls !== undefined ? { polls } : {}) } },
  };
  const xml = join(dir, 'openmpi-calibrated.xml');
  writeFileSync(xml, simgridXml(machine));
  writeFileSync(join(dir, 'openmpi-calibrated.json'), `${JSON.stringify(machine, null, 2)}\n`);
  return { xml, machine };
}

/** Runs the anchor: each program at each rank count, for real (median of `reps`) and under SimGrid on both XMLs. */
export function runAnchor(options: { calibration: string; ranks: readonly number[]; reps: number; dir: string; log: (line: string) => void }): { rows: AnchorRow[]; openMpiXml: string; tsmpiXml: string } {
  const { dir, log } = options;
  mkdirSync(dir, { recursive: true });
  const tsmpiCalibration = JSON.parse(readFileSync(options.calibration, 'utf8')) as MachineCalibration;
  // Written again from the JSON: a reused calibration may predate the XML's current settings. The
  // anchor runs on this one host (a cluster's calibration too).
  const tsmpiXml = join(dir, 'tsmpi-calibrated.xml');
  writeFileSync(tsmpiXml, simgridXml({ ...tsmpiCalibration, hosts: { ...tsmpiCalibration.hosts, count: 1 } }));
  const { xml: openMpiXml } = calibrateOpenMpi(tsmpiCalibration, dir);
  log(`# Open MPI calibrated on shared memory (bench/peers/calibrate.c): ${openMpiXml}`);
  const real = compile('mpicc', join(peers, 'predict.c'), join(dir, 'predict-openmpi'));
  const simulated = compile('smpicc', join(peers, 'predict.c'), join(dir, 'predict-smpi'));
  const rows: AnchorRow[] = [];
  for (const program of ANCHOR_PROGRAMS) {
    for (const n of options.ranks) {
      const realRuns: number[] = [];
      for (let i = 0; i < options.reps; i++) realRuns.push(spanOf(run('mpirun', ['--allow-run-as-root', '--oversubscribe', '-n', String(n), real, program], `Open MPI ${program} -n ${n}`)));
      const hostfile = join(dir, `hosts-${n}`);
      writeFileSync(hostfile, `${Array.from({ length: n }, () => `${tsmpiCalibration.hosts.prefix ?? 'node-'}0`).join('\n')}\n`);
      const predict = (xml: string): number => spanOf(run('smpirun', ['-np', String(n), '-platform', xml, '-hostfile', hostfile, simulated, program], `SimGrid ${program} -n ${n}`));
      const r = median(realRuns);
      const onTsmpiXml = predict(tsmpiXml);
      const onOpenMpiXml = predict(openMpiXml);
      const row = { program, ranks: n, real: r, realRuns, onTsmpiXml, onOpenMpiXml, errorTsmpiXml: onTsmpiXml / r - 1, errorOpenMpiXml: onOpenMpiXml / r - 1 };
      rows.push(row);
      log(`# anchor ${program} -n ${n}: Open MPI ${r.toExponential(3)} s, SimGrid on Open MPI's calibration ${onOpenMpiXml.toExponential(3)} s (${(row.errorOpenMpiXml * 100).toFixed(1)}%), on tsmpi's ${onTsmpiXml.toExponential(3)} s (${(row.errorTsmpiXml * 100).toFixed(1)}%)`);
    }
  }
  return { rows, openMpiXml, tsmpiXml };
}
