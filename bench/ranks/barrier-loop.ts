/**
 * Rank program of the barrier benchmark: WARM barriers, then COUNT timed ones; rank 0 prints the
 * slowest rank's microseconds per barrier.
 */
import { finalize, init } from 'tsmpi';

const comm = await init();
const count = Number(process.argv[2] ?? 2000);
const warm = Number(process.argv[3] ?? 500);
for (let i = 0; i < warm; i++) await comm.barrier();
const started = performance.now();
for (let i = 0; i < count; i++) await comm.barrier();
const us = ((performance.now() - started) * 1000) / count;
const all = (await comm.gather(us, 0)) as number[] | undefined;
if (comm.rank === 0) console.log(JSON.stringify({ bench: 'barrier', ranks: comm.size, us: Math.max(...all!) }));
await finalize();
