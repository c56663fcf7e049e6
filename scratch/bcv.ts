import { init, Op } from 'tsmpi';
const comm = await init();
const small = { step: 12, name: 'config', flags: [true, false], scale: 0.5 };
const big = Float64Array.from({ length: 131072 }, (_, i) => i);
const bigObj = Array.from({ length: 5000 }, (_, i) => ({ i, s: `item ${i}` }));
for (const [name, v, n] of [['small object', small, 20000], ['1 MiB Float64Array', big, 300], ['5000 objects', bigObj, 300]] as const) {
  const run = async (k: number) => { for (let i = 0; i < k; i++) await comm.bcast(comm.rank === 0 ? v : undefined, 0); };
  for (let w = 0; w < 5; w++) { await comm.barrier(); await run(Math.ceil(n / 5)); }
  await comm.barrier();
  const t0 = performance.now();
  await run(n);
  const us = await comm.allreduce(((performance.now() - t0) / n) * 1000, Op.max);
  if (comm.rank === 0) console.log(`${comm.size} ranks bcast ${name}: ${us.toFixed(2)} us`);
}
