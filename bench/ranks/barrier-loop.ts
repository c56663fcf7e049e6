/**
 * Rank program of the barrier benchmark: WARM barriers, then COUNT timed ones; rank 0 prints the
 * slowest rank's microseconds per barrier.
 */
import { finalize, init } from 'tsmpi';

const comm = await init();
const count = Number(process.argv[2] ?? 2000);
const warm = Number(process.argv[3] ?? 500);
// One function for the warm-up and the timed barriers: a loop at the top of a module runs in the
// interpreter (V8 never replaces a loop that awaits while it runs), which a timed figure should not
// carry (bench/ranks/collectives.ts).
async function barriers(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await comm.barrier();
}
for (let done = 0; done < warm; done += 100) await barriers(Math.min(100, warm - done));
const started = performance.now();
await barriers(count);
const us = ((performance.now() - started) * 1000) / count;
const all = (await comm.gather(us, 0)) as number[] | undefined;
if (comm.rank === 0) console.log(JSON.stringify({ bench: 'barrier', ranks: comm.size, us: Math.max(...all!) }));
await finalize();
