/**
 * Rank program of the collectives benchmark: microseconds per call (the slowest rank's time) of
 * barrier, bcast, allreduce (sum of doubles), allgather and alltoall, as bench/peers/coll.c: the
 * arrays are allocated once and results land in receive arrays, as the C program's buffers.
 *   tsmpi run -n N bench/ranks/collectives.ts <bytes>...
 */
import { Op, init } from 'tsmpi';

const comm = await init();
const sizes = process.argv.slice(2).map(Number);

async function timed(op: string, bytes: number): Promise<number> {
  const count = Math.max(1, Math.floor(bytes / 8));
  const per = Math.max(1, Math.floor(count / comm.size));
  const data = new Float64Array(count).fill(comm.rank);
  const part = new Float64Array(per).fill(comm.rank);
  const counts = Array.from({ length: comm.size }, () => part.length);
  const sendAll = new Float64Array(per * comm.size).fill(comm.rank);
  const reduced = new Float64Array(count);
  const gathered = new Float64Array(per * comm.size);
  const iters = bytes >= 1 << 20 ? 20 : bytes >= 64 << 10 ? 100 : 2000;
  let us = 0;
  for (let pass = 0; pass < 2; pass++) {
    const n = pass === 0 ? Math.floor(iters / 10) + 1 : iters;
    await comm.barrier();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      if (op === 'barrier') await comm.barrier();
      else if (op === 'bcast') await comm.bcastInto(data, 0);
      else if (op === 'allreduce') await comm.allreduce(data, Op.sum, reduced);
      else if (op === 'allgather') await comm.allgatherv(part, counts, gathered);
      else await comm.alltoallv(sendAll, counts, counts, gathered);
    }
    us = ((performance.now() - t0) / n) * 1000;
  }
  return comm.allreduce(us, Op.max);
}

// The schedule runs once untimed first, to let V8 compile the hot paths (see bench/ranks/p2p.ts).
for (const report of [false, true]) {
  for (const [index, bytes] of sizes.entries()) {
    for (const op of ['barrier', 'bcast', 'allreduce', 'allgather', 'alltoall']) {
      if (op === 'barrier' && index > 0) continue;
      const us = await timed(op, bytes);
      if (report && comm.rank === 0) console.log(JSON.stringify({ bench: 'collective', op, bytes: op === 'barrier' ? 0 : bytes, ranks: comm.size, us }));
    }
  }
}
