import { init } from 'tsmpi';
const comm = await init();
const buf = new Uint8Array(8);
for (let pass = 0; pass < 5; pass++) {
  await comm.barrier();
  const iters = 20000;
  const t0 = performance.now();
  for (let i = 0; i < iters; i++) {
    if (comm.rank === 0) { await comm.send(buf, 1); await comm.recvInto(buf, 1); }
    else { await comm.recvInto(buf, 0); await comm.send(buf, 0); }
  }
  const dt = (performance.now() - t0) / iters / 2 * 1000;
  if (comm.rank === 0) console.log('8 bytes one-way', dt.toFixed(3), 'us');
}
