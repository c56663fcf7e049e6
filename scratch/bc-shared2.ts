import { init, Op } from 'tsmpi';
const comm = await init();
const bytes = Number(process.argv[2] ?? 8);
const n = Number(process.argv[3] ?? 2000);
const buf = new Uint8Array(bytes);
for (let pass = 0; pass < 3; pass++) {
  await comm.barrier();
  let worst = 0, at = -1;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) { const a = performance.now(); await comm.bcastInto(buf, 0); const d = performance.now() - a; if (d > worst) { worst = d; at = i; } }
  const us = ((performance.now() - t0) / n) * 1000;
  console.log(`rank ${comm.rank} pass ${pass}: ${us.toFixed(2)} us per bcast, worst call ${worst.toFixed(1)} ms at ${at}`);
}
