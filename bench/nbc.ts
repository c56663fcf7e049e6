/**
 * Nonblocking collectives: how much of a 1 MiB iallreduce (sum of doubles) hides behind
 * computation, as osu_iallreduce measures it, against the blocking allreduce and the same
 * computation run back to back in the same job.
 *   npm run bench -- nbc [--procs]        REPS=5 RANKS=4 BYTES=1048576 ITERS=30 PROBES=64
 *
 * Per job (bench/ranks/nbc.ts), the slowest rank's mean time per iteration of: the allreduce
 * alone (t_comm), a busy loop calibrated to last about t_comm alone (t_compute), the two back to
 * back, and iallreduce + the busy loop + wait (t_total) three ways: test() between PROBES chunks
 * of the loop, no test() at all (osu_iallreduce's default), and test() + `await comm.sleep(0)`
 * between chunks (what TCP needs: socket data arrives only while a rank awaits).
 * Overlap % = 100 * max(0, 1 - (t_total - t_compute) / t_comm) (OSU's formula): 100 when the
 * collective costs nothing on top of the computation, 0 when it costs as much as done alone.
 */
import { availableParallelism, loadavg } from 'node:os';
import { tsmpiRun, type Record } from './lib/jobs.ts';
import { median, param, printTable, spread, writeResults } from './lib/report.ts';
import { sizeLabel } from './lib/compare.ts';

const reps = param('REPS', 5, 'repetitions (one job each)');
const ranks = param('RANKS', 4, 'ranks (the machine has 2 cores: 4 oversubscribes them)');
const bytes = param('BYTES', 1 << 20, 'bytes reduced (a Float64Array, Op.sum)');
const iterations = param('ITERS', 30, 'timed iterations per figure, each after an untimed barrier');
const probes = param('PROBES', 64, 'chunks of the busy loop, with test() between them');
const procs = process.argv.includes('--procs');
const transport = procs ? 'processes (--procs, TCP)' : 'worker threads (shared memory)';
console.log(`# ${procs ? '--procs' : 'no --procs'}: ranks are ${transport}`);
console.log(`# load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${availableParallelism()} cores (other work skews every figure)`);

const variants = [
  { key: 'test', label: `test() between ${probes} chunks` },
  { key: 'none', label: 'no test(), wait at the end' },
  { key: 'yield', label: `test() + await sleep(0) between ${probes} chunks` },
] as const;

/** OSU's overlap: the share of t_comm that the computation hid. */
const overlap = (total: number, compute: number, comm: number): number => 100 * Math.max(0, 1 - (total - compute) / comm);

const started = performance.now();
const runs: Record[] = [];
for (let rep = 0; rep < reps; rep++) {
  const records = tsmpiRun(ranks, 'bench/ranks/nbc.ts', [bytes, iterations, probes], {}, procs ? ['--procs'] : []);
  const run = records.find((r) => r.bench === 'nbc');
  if (run === undefined) throw new Error('bench/ranks/nbc.ts printed no result');
  runs.push(run);
  process.stdout.write(`# rep ${rep + 1}/${reps} done\n`);
}

const series = (f: (r: Record) => number): number[] => runs.map(f);
const n = (r: Record, key: string): number => r[key] as number;
const comm = series((r) => n(r, 'commMs'));
const compute = series((r) => n(r, 'computeMs'));
const sum = series((r) => n(r, 'commMs') + n(r, 'computeMs'));
const serial = series((r) => n(r, 'serialMs'));
const what = `${sizeLabel(bytes)} allreduce on ${ranks} ${transport}`;

printTable(
  `${what}: ms per iteration, slowest rank (median [min-max] of ${reps} jobs, ${iterations} iterations each)`,
  ['figure', 'ms (ratio)'],
  [
    ['t_comm: allreduce alone', spread(comm)],
    ['t_compute: busy loop alone', spread(compute)],
    ['t_compute / t_comm (the loop is calibrated to about 1)', spread(series((r) => n(r, 'computeMs') / n(r, 'commMs')))],
    ['t_comm + t_compute', spread(sum)],
    ['back to back: allreduce, then the busy loop (baseline)', spread(serial)],
  ],
);

const rows = variants.map((v) => {
  const total = series((r) => n(r, `${v.key}Ms`));
  return {
    ...v,
    total,
    overlap: runs.map((r) => overlap(n(r, `${v.key}Ms`), n(r, 'computeMs'), n(r, 'commMs'))),
    ratio: runs.map((r) => n(r, `${v.key}Ms`) / n(r, 'serialMs')),
    ratioToSum: runs.map((r) => n(r, `${v.key}Ms`) / (n(r, 'commMs') + n(r, 'computeMs'))),
  };
});
printTable(
  `${what}: iallreduce, the busy loop, wait (t_total) against back to back (lower ratio is better; overlap: higher is better)`,
  ['iallreduce + busy loop', 't_total ms', 'overlap %', 't_total / back to back', 't_total / (t_comm + t_compute)'],
  rows.map((row) => [row.label, spread(row.total), spread(row.overlap), `${spread(row.ratio)}x`, `${spread(row.ratioToSum)}x`]),
);
const testCalls = series((r) => n(r, 'testCallMs'));
const testShare = series((r) => (100 * n(r, 'testCallMs')) / n(r, 'commMs'));
const testWait = series((r) => n(r, 'testWaitMs'));
const pending = series((r) => n(r, 'pendingTests'));
const pendingYield = series((r) => n(r, 'pendingYieldTests'));
console.log(
  `\n# test() between chunks, per iteration (slowest rank): ${spread(testCalls)} ms inside test() (${spread(testShare)} % of t_comm: ` +
    `the collective's own work, done on the rank's thread), ${spread(testWait)} ms in the final wait, ` +
    `${spread(pending)} of ${probes - 1} test() calls found the iallreduce unfinished (with await sleep(0): ${spread(pendingYield)})`,
);
console.log(`# ${((performance.now() - started) / 1000).toFixed(1)} s`);

writeResults(`nbc-${procs ? 'procs' : 'threads'}`, {
  title: `Overlap of a ${what} with computation (osu_iallreduce)`,
  unit: 'ms',
  ranks,
  bytes,
  iterations,
  probes,
  transport,
  reps,
  figures: {
    commMs: { median: median(comm), values: comm },
    computeMs: { median: median(compute), values: compute },
    commPlusComputeMs: { median: median(sum), values: sum },
    backToBackMs: { median: median(serial), values: serial },
    testCallMs: { median: median(testCalls), values: testCalls },
    testCallPercentOfComm: { median: median(testShare), values: testShare },
    testWaitMs: { median: median(testWait), values: testWait },
    pendingTests: { median: median(pending), values: pending },
    pendingYieldTests: { median: median(pendingYield), values: pendingYield },
  },
  variants: rows.map((row) => ({
    key: row.key,
    label: row.label,
    totalMs: { median: median(row.total), values: row.total },
    overlapPercent: { median: median(row.overlap), values: row.overlap },
    ratioToBackToBack: { median: median(row.ratio), values: row.ratio },
    ratioToCommPlusCompute: { median: median(row.ratioToSum), values: row.ratioToSum },
  })),
  raw: runs,
});
