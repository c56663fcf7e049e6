import { init, Op } from 'tsmpi';
const comm = await init();
const v = new Float64Array(1).fill(comm.rank), into = new Float64Array(1);
const peer = 1 - comm.rank;
const rb = new Float64Array(1);
const ops: Record<string, () => Promise<unknown>> = {
  barrier: () => comm.barrier(),
  allreduce: () => comm.allreduce(v, Op.sum, into),
  allreduceNoInto: () => comm.allreduce(v, Op.sum),
  allreduceNum: () => comm.allreduce(comm.rank, Op.sum),
  exchange: () => { const s = comm.isend(v, peer, 1); return comm.recvInto(rb, peer, 1).then(() => s.wait()); },
  allgather: () => comm.allgatherv(v, [1, 1], new Float64Array(2)),
};
async function run(f: () => Promise<unknown>, n: number) { for (let i = 0; i < n; i++) await f(); }
for (const [name, f] of Object.entries(ops)) {
  for (let w = 0; w < 10; w++) { await comm.barrier(); await run(f, 5000); }
  await comm.barrier();
  const t0 = performance.now();
  await run(f, 20000);
  const us = ((performance.now() - t0) / 20000) * 1000;
  if (comm.rank === 0) console.log(`${name.padEnd(16)} ${us.toFixed(3)} us`);
}
