/**
 * Does the simulator predict this machine? Calibrates it twice (`tsmpi calibrate`; CAL=FILE and
 * CAL2=FILE reuse calibrations), then for each program, rank count and launch mode runs it for
 * real (median of REPS) and under `tsmpi sim --platform` with the same launch flags on each
 * calibration (median of SIM_REPS), the three interleaved run by run, and prints the span each measured (wtime() between barriers,
 * or the example's own timing line) with the error in percent, and how far the two calibrations'
 * predictions differ.
 * The bench's own loops (ring, allreduce, alltoall) also run a third time in the same run: that
 * pass, once the ranks' code is compiled, is the `warm` column. Each real run is interleaved with
 * one whose ranks never spin (NO_SPIN=1, the default; see noSpin below): the `no spin` column.
 * Before each real run the machine's copy speed and its compute speed are probed (the `slow copy
 * runs` and `compute vs calibration` columns): both move from one minute to the next here.
 * Then the anchor (lib/anchor.ts):
 * SimGrid predicting Open MPI runs of the same programs' C twins here (ANCHOR=0 skips it).
 *
 *   npm run bench -- predict    (REPS=5, SIM_REPS=5, RANKS=2,4,8, MODES=threads,procs,
 *                                PROGRAMS=pi,heat,...)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorMissing, runAnchor, type AnchorRow } from './lib/anchor.ts';
import { kernelGflops, median, param, printTable, ringCopyGBps, spread, writeResults } from './lib/report.ts';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const root = fileURLToPath(new URL('../', import.meta.url));
const reps = param('REPS', 5, 'real runs per row (median)');
// A simulation measures the program's own computing as it runs: on a noisy machine it moves as a
// real run does (the same calibration's predictions differed by up to 40% one run each).
const simReps = param('SIM_REPS', 5, 'simulations per row and calibration (median)');
const anchor = param('ANCHOR', 1, 'also run the C twins under Open MPI and SimGrid (0: skip)');
// The simulator's ranks never spin, so the compiles V8 makes of a real rank's hot wait loop, on
// the rank's own thread, are not in a prediction (docs/simulator.md): real runs with every spin
// off, interleaved with the others, show how much of a row's miss they are where the ranks
// compute between few messages (heat, exchange, pool). Where messages set the pace (ring,
// allreduce) a rank that never spins pays a wake-up per message, which the calibrated model,
// measured with spinning ranks, does not: the column says nothing there.
const noSpin = param('NO_SPIN', 1, 'also time real runs with TSMPI_SPIN_US=0 TSMPI_YIELD_US=0 TSMPI_SOCKET_SPIN_US=0 (0: skip)');
const NO_SPIN_ENV = { TSMPI_SPIN_US: '0', TSMPI_YIELD_US: '0', TSMPI_SOCKET_SPIN_US: '0' };
const ranks = (process.env.RANKS ?? '2,4,8').split(',').map(Number);
const modes = (process.env.MODES ?? 'threads,procs').split(',');
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-predict-'));

/**
 * The machine's copy speed (report.ts, ringCopyGBps) beside each calibration made here and each
 * real run: copies between the two cores switch between two speeds, and a calibration made in one
 * predicts runs made in the other badly. Below SLOW_COPY_GBPS a run counts as made in the slow one.
 */
const SLOW_COPY_GBPS = 6;
const calibrationCopy: Record<string, { before: number | null; after: number | null }> = {};
/**
 * The machine's compute speed (report.ts, kernelGflops) as each calibration made here began, and
 * before each real run: a run that met the machine lending less CPU than its calibration did is
 * predicted short by that much. A run whose speed lies within KERNEL_STEADY of the calibration's
 * met the same machine.
 */
const KERNEL_STEADY = 0.05;
const calibrationKernel: Record<string, number | null> = {};
function calibration(given: string | undefined, name: string): string {
  if (given !== undefined) return given;
  const out = join(dir, name);
  calibrationKernel[name] = kernelGflops() ?? null;
  const before = ringCopyGBps() ?? null;
  const r = spawnSync(process.execPath, [cli, 'calibrate', '-o', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`tsmpi calibrate failed (${r.status})`);
  calibrationCopy[name] = { before, after: ringCopyGBps() ?? null };
  console.log(r.stdout.trim());
  console.log(`# ${name}: two bare threads copied through a ring at ${calibrationCopy[name].before?.toFixed(1) ?? '?'} GB/s before it, ${calibrationCopy[name].after?.toFixed(1) ?? '?'} after; the compute kernel ran at ${calibrationKernel[name]?.toFixed(2) ?? '?'} Gflop/s before it (bench/lib/kernel-speed.mjs)`);
  return out;
}
// Two calibrations of this machine: a prediction must not hang on which one was used.
const cal = calibration(process.env.CAL, 'machine.json');
const cal2 = calibration(process.env.CAL2, 'machine-again.json');

interface Program {
  name: string;
  args: string[];
  /** The span the program reports, from its output. */
  span(out: string): number;
  /** The same work timed again once the ranks' code is compiled (programs that can repeat it). */
  warm?(out: string): number;
}
const lastNumber = (re: RegExp) => (out: string): number => {
  const m = [...out.matchAll(re)].at(-1);
  return m === undefined ? Number.NaN : Number(m[1]);
};
const spanLine = lastNumber(/^span ([\d.eE+-]+)$/gm);
const warmLine = lastNumber(/^warm span ([\d.eE+-]+)$/gm);
const PROGRAMS: Program[] = [
  { name: 'pi', args: ['examples/pi.ts', '200000000'], span: lastNumber(/ranks in ([\d.]+) s/g) },
  { name: 'heat', args: ['examples/heat.ts'], span: lastNumber(/heat time: ([\d.]+) s/g) },
  { name: 'ring', args: ['bench/ranks/predict.ts', 'ring', 'warm'], span: spanLine, warm: warmLine },
  { name: 'allreduce', args: ['bench/ranks/predict.ts', 'allreduce', 'warm'], span: spanLine, warm: warmLine },
  { name: 'alltoall 64 KiB', args: ['bench/ranks/predict.ts', 'alltoall', 'warm'], span: spanLine, warm: warmLine },
  { name: 'pool', args: ['examples/pool.ts'], span: lastNumber(/pool time: ([\d.]+) s/g) },
  { name: 'exchange', args: ['examples/exchange.ts'], span: lastNumber(/exchange time: ([\d.]+) s/g) },
];
const only = process.env.PROGRAMS?.split(',');

interface Row {
  program: string;
  ranks: number;
  mode: string;
  real: number;
  realRuns: number[];
  predicted: number;
  /** Each simulation on the first calibration, and on the second: the median of each is the prediction. */
  simRuns: number[];
  simRunsAgain: number[];
  error: number;
  /** The prediction on the second calibration, and how far it is from the first's. */
  predictedAgain: number;
  calibrationSpread: number;
  /** The prediction lies between the fastest and the slowest real run: the row's miss is the machine's own spread. */
  insideRealRuns: boolean;
  /** The third pass of the same loop in the same run (compiled code), real (median) and predicted. */
  warm?: { real: number; realRuns: number[]; predicted: number; error: number };
  /** Real runs with every spin off (NO_SPIN=1): their median and the prediction's error against it. */
  noSpin?: { real: number; realRuns: number[]; error: number };
  /** The machine's copy speed (GB/s) right before each real run, in the order of `realRuns` (NaN: the probe failed). */
  realCopyGBps: number[];
  /** The machine's compute speed (Gflop/s, kernel-speed.mjs) right before each real run, in the order of `realRuns` (NaN: the probe failed). */
  realKernelGflops: number[];
}
const rows: Row[] = [];
const flagsOf = (mode: string): string[] => (mode === 'procs' ? ['--procs'] : []);
for (const p of PROGRAMS.filter((p) => only === undefined || only.includes(p.name))) {
  for (const n of ranks) {
    for (const mode of modes) {
      const realRuns: number[] = [];
      const realCopyGBps: number[] = [];
      const realKernelGflops: number[] = [];
      const warmRuns: number[] = [];
      const noSpinRuns: number[] = [];
      const simulated = (platform: string): string => {
        const s = spawnSync(process.execPath, [cli, 'sim', '--quiet', '--platform', platform, '-n', String(n), ...flagsOf(mode), ...p.args], { cwd: root, encoding: 'utf8' });
        if (s.status !== 0) throw new Error(`tsmpi sim ${p.args.join(' ')} failed:\n${s.stderr}`);
        return s.stdout;
      };
      const first: string[] = [];
      const again: string[] = [];
      // Interleaved (a real run, a simulation on each calibration, again): the machine's state
      // drifts over minutes, and a prediction must face the same machine as the runs it predicts.
      for (let i = 0; i < Math.max(reps, simReps); i++) {
        if (i < reps) {
          realCopyGBps.push(ringCopyGBps() ?? Number.NaN);
          realKernelGflops.push(kernelGflops() ?? Number.NaN);
          const r = spawnSync(process.execPath, [cli, 'run', '-n', String(n), ...flagsOf(mode), ...p.args], { cwd: root, encoding: 'utf8' });
          if (r.status !== 0) throw new Error(`tsmpi run ${p.args.join(' ')} failed:\n${r.stderr}`);
          realRuns.push(p.span(r.stdout));
          if (p.warm !== undefined) warmRuns.push(p.warm(r.stdout));
          if (noSpin) {
            const q = spawnSync(process.execPath, [cli, 'run', '-n', String(n), ...flagsOf(mode), ...p.args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...NO_SPIN_ENV } });
            if (q.status !== 0) throw new Error(`tsmpi run ${p.args.join(' ')} without spinning failed:\n${q.stderr}`);
            noSpinRuns.push(p.span(q.stdout));
          }
        }
        if (i < simReps) {
          first.push(simulated(cal));
          again.push(simulated(cal2));
        }
      }
      const real = median(realRuns);
      const simRuns = first.map((out) => p.span(out));
      const simRunsAgain = again.map((out) => p.span(out));
      const predicted = median(simRuns);
      const predictedAgain = median(simRunsAgain);
      let warm: Row['warm'];
      if (p.warm !== undefined) {
        const warmReal = median(warmRuns);
        const warmPredicted = median(first.map((out) => p.warm!(out)));
        warm = { real: warmReal, realRuns: warmRuns, predicted: warmPredicted, error: warmPredicted / warmReal - 1 };
      }
      const noSpinReal = noSpinRuns.length > 0 ? median(noSpinRuns) : undefined;
      const row: Row = {
        program: p.name,
        ranks: n,
        mode,
        real,
        realRuns,
        predicted,
        simRuns,
        simRunsAgain,
        error: predicted / real - 1,
        predictedAgain,
        calibrationSpread: Math.abs(predictedAgain / predicted - 1),
        insideRealRuns: predicted >= Math.min(...realRuns) && predicted <= Math.max(...realRuns),
        ...(warm !== undefined ? { warm } : {}),
        ...(noSpinReal !== undefined ? { noSpin: { real: noSpinReal, realRuns: noSpinRuns, error: predicted / noSpinReal - 1 } } : {}),
        realCopyGBps,
        realKernelGflops,
      };
      rows.push(row);
      console.log(`# ${p.name} -n ${n} ${mode}: real ${real.toFixed(4)} s ${spread(realRuns)}, predicted ${predicted.toFixed(4)} s (${(row.error * 100).toFixed(1)}%), on the second calibration ${predictedAgain.toFixed(4)} s`);
    }
  }
}
const abs = rows.map((r) => Math.abs(r.error)).sort((a, b) => a - b);
const between = rows.map((r) => r.calibrationSpread).sort((a, b) => a - b);
/** Real runs of the row made while the machine copied slowly (its probe below SLOW_COPY_GBPS). */
const slowRuns = (r: Row): number => r.realCopyGBps.filter((g) => g < SLOW_COPY_GBPS).length;
const pct = (x: number, sign = false): string => `${sign && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
/** Each real run's compute speed over the first calibration's (NaN where a probe failed or the calibration was given). */
const kernelRatios = (r: Row): number[] => r.realKernelGflops.map((g) => g / (calibrationKernel['machine.json'] ?? Number.NaN));
/** Every real run of the row met the machine computing within KERNEL_STEADY of its calibration. */
const kernelSteady = (r: Row): boolean => kernelRatios(r).every((k) => Math.abs(k - 1) <= KERNEL_STEADY);
const kernelRange = (r: Row): string => {
  const ks = kernelRatios(r).filter((k) => Number.isFinite(k));
  return ks.length === 0 ? '-' : `${Math.min(...ks).toFixed(2)}-${Math.max(...ks).toFixed(2)}x`;
};
printTable(
  `tsmpi sim --platform (calibrated here) against tsmpi run: the span each program measures; median |error| ${pct(median(abs))}, rows within 15%: ${abs.filter((e) => e <= 0.15).length}/${abs.length}, within 15% or inside their real runs' range: ${rows.filter((r) => Math.abs(r.error) <= 0.15 || r.insideRealRuns).length}/${rows.length}; two calibrations' predictions differ by ${pct(median(between))} (median), ${pct(between.at(-1) ?? 0)} (most)`,
  ['program', 'ranks', 'mode', 'real s', 'real runs s', 'predicted s', 'error', '2nd calibration s', 'differ', 'warm: real s', 'predicted s', 'error', 'real, no spin s', 'error', 'slow copy runs', 'compute vs calibration'],
  rows.map((r) => [
    r.program,
    r.ranks,
    r.mode,
    r.real.toFixed(4),
    `${Math.min(...r.realRuns).toFixed(3)}-${Math.max(...r.realRuns).toFixed(3)}`,
    r.predicted.toFixed(4),
    `${pct(r.error, true)}${r.insideRealRuns ? '' : ' (outside)'}`,
    r.predictedAgain.toFixed(4),
    pct(r.calibrationSpread),
    r.warm?.real.toFixed(4) ?? '-',
    r.warm?.predicted.toFixed(4) ?? '-',
    r.warm !== undefined ? pct(r.warm.error, true) : '-',
    r.noSpin?.real.toFixed(4) ?? '-',
    r.noSpin !== undefined ? pct(r.noSpin.error, true) : '-',
    `${slowRuns(r)}/${r.realRuns.length}`,
    kernelRange(r),
  ]),
);

// How far apart the two calibrations' predictions lie, beside how far apart the machine's own real
// runs of the same row lie (slowest / fastest - 1): a calibration samples the machine as a run does.
/** Slowest over fastest - 1 of a list of spans (0 for fewer than two). */
const rangeOf = (runs: number[]): number => (runs.length < 2 ? 0 : Math.max(...runs) / Math.min(...runs) - 1);
const realRange = (r: Row): number => rangeOf(r.realRuns);
console.log(
  `# calibrations within 5% of each other: ${rows.filter((r) => r.calibrationSpread < 0.05).length}/${rows.length} rows; within their real runs' own range: ${rows.filter((r) => r.calibrationSpread <= realRange(r)).length}/${rows.length} (the real runs' range: median ${pct(median(rows.map(realRange).sort((a, b) => a - b)))})`,
);
// A simulation measures the program's own compute as it runs, so one calibration's simulations of
// a row spread as runs do: the two calibrations' difference counts as theirs only beyond that.
const ownRange = (r: Row): number => Math.max(rangeOf(r.simRuns), rangeOf(r.simRunsAgain));
console.log(
  `# one calibration's own simulations of a row (slowest over fastest - 1, the larger of the two calibrations'): median ${pct(median(rows.map(ownRange)))}; rows whose two predictions differ by more than that: ${rows.filter((r) => r.calibrationSpread > ownRange(r)).length}/${rows.length}`,
);
// The rows whose real runs all found the machine in one copy state, against those that met both.
const steady = rows.filter((r) => slowRuns(r) === 0 || slowRuns(r) === r.realRuns.length);
const mixed = rows.filter((r) => !steady.includes(r));
const medianAbs = (list: Row[]): string => (list.length === 0 ? '-' : pct(median(list.map((r) => Math.abs(r.error)))));
console.log(
  `# the machine's copy speed before each real run (bench/lib/bare-ring.mjs; slow: under ${SLOW_COPY_GBPS} GB/s): ${rows.reduce((a, r) => a + slowRuns(r), 0)} of ${rows.reduce((a, r) => a + r.realRuns.length, 0)} runs slow; rows whose runs met one state: ${steady.length}, median |error| ${medianAbs(steady)}; rows that met both: ${mixed.length}, median |error| ${medianAbs(mixed)}`,
);
// The rows whose every real run met the machine computing as fast as at its calibration, against the others.
if (calibrationKernel['machine.json'] != null) {
  const same = rows.filter(kernelSteady);
  const moved = rows.filter((r) => !kernelSteady(r));
  console.log(
    `# the machine's compute speed before each real run against the first calibration's (bench/lib/kernel-speed.mjs, ${calibrationKernel['machine.json']!.toFixed(2)} Gflop/s): rows whose runs all lay within ${pct(KERNEL_STEADY)}: ${same.length}, median |error| ${medianAbs(same)}; rows with a run beyond: ${moved.length}, median |error| ${medianAbs(moved)}`,
  );
}
const warmRows = rows.filter((r) => r.warm !== undefined);
if (warmRows.length > 0) {
  const warmAbs = warmRows.map((r) => Math.abs(r.warm!.error));
  console.log(`# the same loops once compiled (third pass in the same run): median |error| ${pct(median(warmAbs))}, within 15%: ${warmAbs.filter((e) => e <= 0.15).length}/${warmAbs.length}; their first passes: median |error| ${pct(median(warmRows.map((r) => Math.abs(r.error))))}`);
}

// The anchor: SimGrid predicting Open MPI runs of the same programs on this machine.
let anchorRows: AnchorRow[] = [];
const missing = anchor ? anchorMissing() : 'ANCHOR=0';
if (missing !== undefined) console.log(`# anchor skipped: ${missing}`);
else {
  const result = runAnchor({ calibration: cal, ranks, reps, dir: join(dir, 'anchor'), log: (line) => console.log(line) });
  anchorRows = result.rows;
  const absOf = (pick: (r: AnchorRow) => number): number => median(anchorRows.map((r) => Math.abs(pick(r))));
  const within = (pick: (r: AnchorRow) => number): number => anchorRows.filter((r) => Math.abs(pick(r)) <= 0.15).length;
  printTable(
    `The anchor: C twins under Open MPI (real, median of ${reps}) predicted by SimGrid (smpirun, its defaults) on Open MPI's calibration (median |error| ${pct(absOf((r) => r.errorOpenMpiXml))}, within 15%: ${within((r) => r.errorOpenMpiXml)}/${anchorRows.length}) and on tsmpi's (${pct(absOf((r) => r.errorTsmpiXml))}, ${within((r) => r.errorTsmpiXml)}/${anchorRows.length})`,
    ['program', 'ranks', 'Open MPI s', 'SimGrid, Open MPI cal. s', 'error', 'SimGrid, tsmpi cal. s', 'error'],
    anchorRows.map((r) => [r.program, r.ranks, r.real.toExponential(3), r.onOpenMpiXml.toExponential(3), pct(r.errorOpenMpiXml, true), r.onTsmpiXml.toExponential(3), pct(r.errorTsmpiXml, true)]),
  );
}
console.log(`wrote ${writeResults('predict', { calibration: cal, calibrationAgain: cal2, calibrationCopyGBps: calibrationCopy, calibrationKernelGflops: calibrationKernel, reps, simReps, rows, medianAbsError: median(abs), medianCalibrationSpread: median(between), maxCalibrationSpread: between.at(-1) ?? 0, anchor: anchorRows })}`);
