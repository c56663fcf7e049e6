/**
 * A token around every rank from the first lap: 20 chunks of 100 laps, each chunk's time per hop
 * in us (the predict bench's ring, timed in parts). Under `tsmpi sim` the chunks show where the
 * simulated warm-up lies beside the real one (docs/simulator.md).
 *   tsmpi run|sim -n N [--procs] bench/ranks/ring-chunks.ts
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
const right = (comm.rank + 1) % comm.size;
const left = (comm.rank - 1 + comm.size) % comm.size;
const token = new Float64Array(1);
await comm.barrier();
const hops: number[] = [];
for (let chunk = 0; chunk < 20; chunk++) {
  const t0 = wtime();
  for (let lap = 0; lap < 100; lap++) {
    if (comm.rank === 0) {
      await comm.send(token, right);
      await comm.recvInto(token, left);
    } else {
      await comm.recvInto(token, left);
      await comm.send(token, right);
    }
  }
  hops.push(Math.round(((wtime() - t0) / 100 / comm.size) * 1e7) / 10);
}
if (comm.rank === 0) console.log(hops.join(' '));
