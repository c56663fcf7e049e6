/**
 * The programs of the prediction bench (bench/predict.ts), each timed by rank 0 with wtime()
 * between two barriers, so a real run and a simulated one report the same span (virtual under
 * `tsmpi sim`). Rank 0 prints `span SECONDS`.
 *   tsmpi run -n N bench/ranks/predict.ts ring|allreduce|alltoall
 * With `warm`, the loop runs twice more and rank 0 also prints `warm span SECONDS`, the third
 * pass: the same work once each rank's code is compiled (what the first pass pays beyond it is
 * the ranks' JIT warm-up). With `chunks`, the ring's 2000 laps are timed in 20 chunks of 100
 * instead, and rank 0 prints each chunk's time per hop in us (where the warm-up lies, real or
 * simulated: docs/simulator.md).
 *   tsmpi run -n N bench/ranks/predict.ts ring|allreduce|alltoall [warm]
 *   tsmpi run|sim -n N bench/ranks/predict.ts ring chunks
 * and the allreduce loop's 5,000 calls in 10 chunks of 500, each chunk's time per call in us:
 *   tsmpi run|sim -n N bench/ranks/predict.ts allreduce chunks
 * (The examples time themselves: the bench reads their own lines.)
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const kind = process.argv[2] ?? 'ring';

const right = (comm.rank + 1) % comm.size;
const left = (comm.rank - 1 + comm.size) % comm.size;
const token = new Float64Array(1);
async function ring(laps = 2000): Promise<void> {
  for (let lap = 0; lap < laps; lap++) {
    if (comm.rank === 0) {
      await comm.send(token, right);
      await comm.recvInto(token, left);
    } else {
      await comm.recvInto(token, left);
      await comm.send(token, right);
    }
  }
}

async function allreduce(calls = 5000): Promise<void> {
  const x = new Float64Array(1);
  for (let i = 0; i < calls; i++) {
    x[0] = i;
    await comm.allreduce(x, Op.sum);
  }
}

async function alltoall(): Promise<void> {
  const blocks = Array.from({ length: comm.size }, () => new Uint8Array(64 * 1024));
  for (let i = 0; i < 100; i++) await comm.alltoall(blocks);
}

async function pass(): Promise<number> {
  await comm.barrier();
  const t0 = wtime();
  if (kind === 'ring') await ring();
  else if (kind === 'allreduce') await allreduce();
  else if (kind === 'alltoall') await alltoall();
  else throw new Error(`predict: no program ${kind}`);
  await comm.barrier();
  return wtime() - t0;
}
if (kind === 'allreduce' && process.argv[3] === 'chunks') {
  await comm.barrier();
  const perCall: number[] = [];
  for (let chunk = 0; chunk < 10; chunk++) {
    const t0 = wtime();
    await allreduce(500);
    perCall.push(Math.round(((wtime() - t0) / 500) * 1e7) / 10);
  }
  if (comm.rank === 0) console.log(perCall.join(' '));
} else if (kind === 'ring' && process.argv[3] === 'chunks') {
  await comm.barrier();
  const hops: number[] = [];
  for (let chunk = 0; chunk < 20; chunk++) {
    const t0 = wtime();
    await ring(100);
    hops.push(Math.round(((wtime() - t0) / 100 / comm.size) * 1e7) / 10);
  }
  if (comm.rank === 0) console.log(hops.join(' '));
} else {
  const span = await pass();
  if (comm.rank === 0) console.log(`span ${span}`);
  if (process.argv[3] === 'warm') {
    await pass();
    const warm = await pass();
    if (comm.rank === 0) console.log(`warm span ${warm}`);
  }
}
