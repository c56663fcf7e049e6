/**
 * Rank program of the jit benchmark: a Jacobi step on a 128 x 256 block (the heat example's block
 * on 2 ranks), timed step by step from the rank's first; every rank computes at once. Rank 0
 * prints the milliseconds of steps 1, 2, 3 and 20 as one JSON line.
 *   tsmpi run -n N bench/ranks/first-steps.ts
 */
import { init } from 'tsmpi';

const comm = await init();
const rows = 128;
const cols = 256;
const W = cols + 2;
let from = new Float64Array((rows + 2) * W).fill(1);
let to = new Float64Array((rows + 2) * W);

function step(a: Float64Array, b: Float64Array): number {
  let most = 0;
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= cols; j++) {
      const k = i * W + j;
      const v = 0.25 * (a[k - W]! + a[k + W]! + a[k - 1]! + a[k + 1]!);
      most = Math.max(most, Math.abs(v - a[k]!));
      b[k] = v;
    }
  }
  return most;
}

await comm.barrier();
const ms: number[] = [];
let check = 0;
for (let s = 0; s < 20; s++) {
  const t0 = performance.now();
  check += step(from, to);
  ms.push(performance.now() - t0);
  [from, to] = [to, from];
}
await comm.barrier();
if (comm.rank === 0) console.log(JSON.stringify({ bench: 'first-steps', step1: ms[0], step2: ms[1], step3: ms[2], step20: ms[19], check }));
