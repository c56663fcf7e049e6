/**
 * Ranks that compute unevenly between allreduces: rank 0 does the most work each round, the
 * others less, so most ranks wait in every round while some still compute. With more ranks than
 * cores it prices how a waiting rank shares the CPU with the computing ones (yielding, sleeping).
 *   tsmpi run -n 4 bench/ranks/uneven-compute.ts        prints {"ranks":4,"seconds":...}
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
/** `n` steps of dependent floating-point work (the result is used, so V8 keeps the loop). */
const burn = (n: number): number => {
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(x + i);
  return x;
};
const out = new Float64Array(1);
const t0 = wtime();
let s = 0;
for (let round = 0; round < 200; round++) {
  s += burn(comm.rank === 0 ? 2_000_000 : 500_000 + (comm.rank % 3) * 300_000) * 1e-12;
  await comm.allreduce(new Float64Array([s]), Op.sum, out);
}
if (comm.rank === 0) console.log(JSON.stringify({ ranks: comm.size, seconds: wtime() - t0 }));
