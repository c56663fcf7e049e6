/**
 * A program's own loops of small collectives, as it would write them: N calls of each op in OPS
 * to warm up, a barrier, then N timed calls; rank 0 prints `op us` (microseconds per call, the
 * slowest rank's). Unlike bench/ranks/collectives.ts it does not warm up until the ranks' code
 * is compiled, so with small N it shows a program's first seconds too.
 *   N=10000 LEN=1 OPS=barrier,allreduce,allgather,reducescatter tsmpi run -n 8 bench/ranks/collective-loops.ts
 * LEN: elements per block (doubles). OPS from barrier, allreduce, allgather (allgatherv with
 * counts), alltoall (alltoallv with counts), reducescatter (reduceScatterBlock), bcast (bcastInto).
 */
import { Op, init } from 'tsmpi';

const comm = await init();
const n = Number(process.env.N ?? 20000);
const len = Number(process.env.LEN ?? 1);
const part = new Float64Array(len).fill(comm.rank);
const counts = Array.from({ length: comm.size }, () => len);
const out = new Float64Array(comm.size * len);
const sendAll = new Float64Array(comm.size * len).fill(comm.rank);
const reduced = new Float64Array(len);
const ops: Record<string, () => Promise<unknown>> = {
  barrier: () => comm.barrier(),
  allgather: () => comm.allgatherv(part, counts, out),
  allreduce: () => comm.allreduce(part, Op.sum, reduced),
  alltoall: () => comm.alltoallv(sendAll, counts, counts, out),
  reducescatter: () => comm.reduceScatterBlock(sendAll, Op.sum, reduced),
  bcast: () => comm.bcastInto(part, 0),
};

// One function for the warm-up and the timed loop: V8 replaces no loop that awaits while it runs.
async function loop(call: () => Promise<unknown>, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) await call();
}

for (const name of (process.env.OPS ?? 'barrier,allgather,allreduce').split(',')) {
  const call = ops[name];
  if (call === undefined) throw new Error(`unknown op ${name} (OPS takes ${Object.keys(ops).join(', ')})`);
  await loop(call, n);
  await comm.barrier();
  const t0 = performance.now();
  await loop(call, n);
  const us = ((performance.now() - t0) / n) * 1000;
  const slowest = await comm.allreduce(us, Op.max);
  if (comm.rank === 0) console.log(name, slowest.toFixed(2));
}
