/**
 * The first pass of the predict bench's alltoall (100 calls, 64 KiB blocks) call by call, on 2
 * ranks: rank 0 prints each call that took either rank over 2 ms, with when each rank entered and
 * left it (ms from rank 0's first call; both ranks read one monotonic clock when they are threads
 * of one process). A call a rank leaves late while the other left it long before is a stall of
 * the late rank alone: run under `node --trace-opt` to see which compile it was.
 *   node [--trace-opt] dist/cli/main.js run -n 2 bench/ranks/alltoall-stalls.ts
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error(`alltoall-stalls runs on 2 ranks, not ${comm.size}`);
const CALLS = 100;
const blocks = Array.from({ length: comm.size }, () => new Uint8Array(64 * 1024));
await comm.barrier();
const times = new Float64Array(2 * CALLS); // entered, then left, call by call
for (let i = 0; i < CALLS; i++) {
  times[2 * i] = wtime();
  await comm.alltoall(blocks);
  times[2 * i + 1] = wtime();
}
const peer = 1 - comm.rank;
const theirs = await comm.sendrecv<Float64Array>(times, peer, peer);
if (comm.rank === 0) {
  const origin = times[0]!;
  const ms = (t: number): string => ((t - origin) * 1e3).toFixed(2);
  for (let i = 0; i < CALLS; i++) {
    const mine = times[2 * i + 1]! - times[2 * i]!;
    const other = theirs[2 * i + 1]! - theirs[2 * i]!;
    if (Math.max(mine, other) > 0.002) console.log(`call ${i}: rank 0 in ${ms(times[2 * i]!)} out ${ms(times[2 * i + 1]!)} | rank 1 in ${ms(theirs[2 * i]!)} out ${ms(theirs[2 * i + 1]!)}`);
  }
}
