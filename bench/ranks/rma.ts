/**
 * Rank program of the one-sided latency benchmark; the schedule of bench/peers/rma.c: rank 0
 * holds a shared lock on rank 1's window and times put + flush, then get + flush, per size; rank 1
 * waits in a barrier (its progress serves the window). The schedule runs once untimed first, to
 * let V8 compile the hot paths (a put of 8 B read 4.5 us on its first, cold pass, 0.1 us after).
 *   tsmpi run -n 2 bench/ranks/rma.ts <bytes>...
 */
import { Win, init } from 'tsmpi';

const comm = await init();
const sizes = process.argv.slice(2).map(Number);
const most = Math.max(1, ...sizes);
const local = new Uint8Array(most).fill(1);
const win = await Win.allocate(comm, most);
/** Microseconds per `op` of `bytes` followed by a flush, on rank 0 (a lock held throughout). */
async function timed(op: 'put' | 'get', bytes: number): Promise<number> {
  const iters = bytes >= 1 << 20 ? 50 : bytes >= 64 << 10 ? 1000 : 10000;
  const view = local.subarray(0, bytes);
  await win.lock(1, 'shared');
  let t0 = 0;
  for (let i = 0; i < iters + Math.floor(iters / 10); i++) {
    if (i === Math.floor(iters / 10)) t0 = performance.now();
    if (op === 'put') win.put(view, 1, 0);
    else win.get(view, 1, 0);
    await win.flush(1);
  }
  const us = ((performance.now() - t0) / iters) * 1000;
  await win.unlock(1);
  return us;
}

// The timed loop returns its figure and the caller prints it: a branch on `report` beside a timed
// loop is first taken in the report pass, and its deoptimization slows what is timed next (see
// bench/ranks/p2p.ts).
for (const report of [false, true]) {
  for (const bytes of sizes) {
    for (const op of ['put', 'get'] as const) {
      await comm.barrier();
      if (comm.rank === 0) {
        const us = await timed(op, bytes);
        if (report) console.log(JSON.stringify({ bench: op, bytes, us }));
      }
      await comm.barrier();
    }
  }
}
await win.free();
