/**
 * Passes of a 2-rank exchange (isend, recvInto, wait) or ping-pong, each pass timed with wtime(),
 * so that a real run and `tsmpi sim` report the same thing: how the per-message time settles.
 *   tsmpi run|sim -n 2 [--procs] bench/ranks/exchange-passes.ts exchange|pingpong [BYTES] [PER_PASS] [PASSES]
 * Rank 0 prints microseconds per exchange (or per one-way message) for each pass.
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
const mode = process.argv[2] ?? 'exchange';
const bytes = Number(process.argv[3] ?? 65536);
const perPass = Number(process.argv[4] ?? 200);
const passes = Number(process.argv[5] ?? 3);
const out = new Uint8Array(bytes);
const into = new Uint8Array(bytes);
const peer = 1 - comm.rank;
const figures: string[] = [];
for (let pass = 0; pass < passes; pass++) {
  await comm.barrier();
  const t0 = wtime();
  for (let i = 0; i < perPass; i++) {
    if (mode === 'exchange') {
      const send = comm.isend(out, peer, 1);
      await comm.recvInto(into, peer, 1);
      await send.wait();
    } else if (comm.rank === 0) {
      await comm.send(out, 1, 1);
      await comm.recvInto(into, 1, 1);
    } else {
      await comm.recvInto(into, 0, 1);
      await comm.send(out, 0, 1);
    }
  }
  figures.push(((((wtime() - t0) / perPass) * 1e6) / (mode === 'exchange' ? 1 : 2)).toFixed(1));
}
if (comm.rank === 0) console.log(`${mode} ${bytes} B, us per ${mode === 'exchange' ? 'exchange' : 'one-way message'} by pass: ${figures.join(' ')}`);
