/**
 * pi as the midpoint integral of 4 / (1 + x^2) over [0, 1], split cyclically over the ranks and
 * combined with a reduce (the baseline of task-pool-nonexclusive.paper.txt).
 *
 *   npx tsmpi run -n 4 examples/pi.ts [intervals]
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const intervals = Number(process.argv[2] ?? 50_000_000);
const start = wtime();

const h = 1 / intervals;
let local = 0;
for (let i = comm.rank; i < intervals; i += comm.size) {
  const x = h * (i + 0.5);
  local += 4 / (1 + x * x);
}
const pi = await comm.reduce(local * h, Op.sum, 0);

if (comm.rank === 0) {
  const elapsed = wtime() - start;
  console.log(`pi is approximately ${pi!.toFixed(16)}, error ${Math.abs(pi! - Math.PI).toExponential(3)}`);
  console.log(`${intervals} intervals on ${comm.size} ranks in ${elapsed.toFixed(3)} s`);
}
