/**
 * Where a small allreduce's time goes when threads share cores: an allreduce of one double in a
 * loop, and the CPU time (user + system, process.cpuUsage) of the whole process per allreduce,
 * and per rank. In threads mode every rank is a thread of this process, so the figure covers
 * them all: with more ranks than cores and every round asleep, it is what waking costs beside the
 * calls. docs/simulator.md reads it for the wake-up's CPU part.
 *   tsmpi run -n 8 bench/ranks/allreduce-cpu.ts [allreduces]
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const x = new Float64Array(1);
const count = Number(process.argv[2] ?? 5000);
for (const pass of ['warm-up', 'timed']) {
  await comm.barrier();
  const cpu0 = process.cpuUsage();
  const t0 = wtime();
  for (let i = 0; i < count; i++) {
    x[0] = i;
    await comm.allreduce(x, Op.sum);
  }
  await comm.barrier();
  const wall = (wtime() - t0) / count;
  const cpu = process.cpuUsage(cpu0);
  const each = (cpu.user + cpu.system) / count;
  if (pass === 'timed' && comm.rank === 0) console.log(`${comm.size} ranks: ${(wall * 1e6).toFixed(0)} us per allreduce; process CPU ${each.toFixed(0)} us per allreduce (user ${(cpu.user / count).toFixed(0)}, system ${(cpu.system / count).toFixed(0)}), ${(each / comm.size).toFixed(1)} us per rank`);
}
