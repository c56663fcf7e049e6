/**
 * A loop of bcast of values from rank 0 (a small object, a 1 MiB Float64Array, 5000 small
 * objects): microseconds per call, the slowest rank's. Run it with TSMPI_COLL_BCAST=shared and
 * =binomial to compare the broadcast slots with the tree.
 *   tsmpi run -n N bench/ranks/bcast-values.ts
 */
import { init, Op } from 'tsmpi';

const comm = await init();
const cases: [string, unknown, number][] = [
  ['small object', { step: 12, name: 'config', flags: [true, false], scale: 0.5 }, 20_000],
  ['1 MiB Float64Array', Float64Array.from({ length: 131_072 }, (_, i) => i), 300],
  ['5000 objects', Array.from({ length: 5000 }, (_, i) => ({ i, s: `item ${i}` })), 300],
];
/** `n` calls through one function, warmed by the same calls before the timed pass. */
async function calls(value: unknown, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await comm.bcast(comm.rank === 0 ? value : undefined, 0);
}
for (const [name, value, n] of cases) {
  for (let warm = 0; warm < 5; warm++) {
    await comm.barrier();
    await calls(value, Math.ceil(n / 5));
  }
  await comm.barrier();
  const t0 = performance.now();
  await calls(value, n);
  const us = await comm.allreduce(((performance.now() - t0) / n) * 1000, Op.max);
  if (comm.rank === 0) console.log(`${comm.size} ranks, bcast of ${name}: ${us.toFixed(2)} us per call`);
}
