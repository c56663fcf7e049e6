/**
 * Rank program of the startup benchmark: init and a barrier; rank 0 prints the milliseconds from
 * the launcher's first worker spawn (TSMPI_LAUNCH_TIME_MS) to the barrier's end.
 */
import { init } from 'tsmpi';

const comm = await init();
await comm.barrier();
if (comm.rank === 0) {
  const launched = Number(process.env.TSMPI_LAUNCH_TIME_MS);
  console.log(JSON.stringify({ bench: 'startup', ranks: comm.size, readyMs: performance.timeOrigin + performance.now() - launched }));
}
