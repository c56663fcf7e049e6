import { init } from 'tsmpi';
const comm = await init();
const bytes = Number(process.argv[2] ?? 8);
const n = Number(process.argv[3] ?? 2000);
const buf = new Uint8Array(bytes);
for (let pass = 0; pass < 3; pass++) {
  await comm.barrier();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await comm.bcastInto(buf, 0);
  const us = ((performance.now() - t0) / n) * 1000;
  const worst = await comm.allreduce(us, (await import('tsmpi')).Op.max);
  if (comm.rank === 0) console.log(`pass ${pass}: ${worst.toFixed(2)} us per bcast of ${bytes} B`);
}
