/**
 * pi as the midpoint integral of 4 / (1 + x^2) over [0, 1] (the example of
 * the task-pool paper, docs/techniques.md §4).
 *
 *   npx tsmpi run -n 4 examples/pi.ts [intervals]                 static cyclic split + reduce
 *   npx tsmpi run -n 4 examples/pi.ts --pool [intervals] [tasks]  task pool: `tasks` subtasks of
 *                                                                 intervals / tasks each
 *
 * With --pool, rank 0 is the master (it computes too) and the job prints how many subtasks each
 * rank ran: on a shared machine the ranks slowed by other people's jobs run fewer. TSMPI_POOL=stealing
 * runs the same pool with work stealing instead.
 */
import { init, Op, TaskPool, wtime } from 'tsmpi';

const comm = await init();
const pool = process.argv.includes('--pool');
const numbers = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const intervals = Number(numbers[0] ?? 50_000_000);
const start = wtime();
const h = 1 / intervals;

/** The midpoint sum over intervals [lo, hi), times the width. */
function partialSum(lo: number, hi: number, step = 1): number {
  let sum = 0;
  for (let i = lo; i < hi; i += step) {
    const x = h * (i + 0.5);
    sum += 4 / (1 + x * x);
  }
  return sum * h;
}

let pi: number | undefined;
if (!pool) {
  pi = await comm.reduce(partialSum(comm.rank, intervals, comm.size), Op.sum, 0);
} else {
  const tasks = Number(numbers[1] ?? 64 * comm.size);
  const npart = Math.ceil(intervals / tasks);
  const taskPool = await TaskPool.open(comm, { slice: (lo: number) => partialSum(lo, Math.min(lo + npart, intervals)) });
  if (taskPool.isMaster) {
    const starts = Array.from({ length: Math.ceil(intervals / npart) }, (_, k) => k * npart);
    const parts = await taskPool.map('slice', starts);
    pi = parts.reduce((a, b) => a + b, 0);
  }
  const stats = await taskPool.close();
  if (taskPool.isMaster) {
    const counts = stats.tasksByRank.map((n, r) => `rank ${r}: ${n ?? 'lost'}`).join(', ');
    console.log(`tasks per rank (${stats.mode}): ${counts}`);
  }
}

if (comm.rank === 0) {
  const elapsed = wtime() - start;
  console.log(`pi is approximately ${pi!.toFixed(16)}, error ${Math.abs(pi! - Math.PI).toExponential(3)}`);
  console.log(`${intervals} intervals on ${comm.size} ranks in ${elapsed.toFixed(3)} s`);
}
