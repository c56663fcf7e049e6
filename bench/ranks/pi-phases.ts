/**
 * The pi example's two phases on every rank: when its share of the midpoint sum was done and
 * when the reduce that follows returned, in ms from the first rank's start (each rank's clock is
 * the machine's monotonic one, wtime()). Under `tsmpi sim` the same lines show how the simulator
 * shares the cores among the ranks' compute and what the reduce's first contacts cost
 * (docs/simulator.md, "Later that night").
 *   tsmpi run [--procs] -n N bench/ranks/pi-phases.ts [intervals]
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const intervals = Number(process.argv[2] ?? 200_000_000);
const h = 1 / intervals;
const start = wtime();
let sum = 0;
for (let i = comm.rank; i < intervals; i += comm.size) {
  const x = h * (i + 0.5);
  sum += 4 / (1 + x * x);
}
const computed = wtime();
const pi = await comm.reduce(sum * h, Op.sum, 0);
const reduced = wtime();
const phases = await comm.gather([start, computed, reduced], 0);
if (comm.rank === 0) {
  const t0 = Math.min(...phases!.map((p) => p[0]!));
  const ms = (t: number): string => ((t - t0) * 1e3).toFixed(0);
  console.log(`pi ${pi!.toFixed(6)}; per rank, ms from the first start: started / computed / reduced`);
  console.log(phases!.map((p, r) => `rank ${r}: ${ms(p[0]!)} / ${ms(p[1]!)} / ${ms(p[2]!)}`).join('\n'));
}
