/**
 * Passes of a loop of bcastInto from rank 0, each timed, with the slowest call of the pass: a
 * stall (a lost wake-up sleeps out the 1 s sleep limit) shows as one call of about a second.
 *   tsmpi run -n N bench/ranks/bcast-passes.ts [BYTES] [CALLS] [PASSES]
 * Each rank prints its microseconds per call and its slowest call, per pass.
 */
import { init } from 'tsmpi';

const comm = await init();
const bytes = Number(process.argv[2] ?? 8);
const calls = Number(process.argv[3] ?? 3000);
const passes = Number(process.argv[4] ?? 3);
const buffer = new Uint8Array(bytes);
for (let pass = 0; pass < passes; pass++) {
  await comm.barrier();
  let slowest = 0;
  let at = -1;
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    const c0 = performance.now();
    await comm.bcastInto(buffer, 0);
    const took = performance.now() - c0;
    if (took > slowest) {
      slowest = took;
      at = i;
    }
  }
  const us = ((performance.now() - t0) / calls) * 1000;
  console.log(`rank ${comm.rank} pass ${pass}: ${us.toFixed(2)} us per bcastInto of ${bytes} B, slowest call ${slowest.toFixed(1)} ms (call ${at})`);
}
