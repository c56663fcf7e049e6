/**
 * Whether the predict bench's alltoall of 64 KiB blocks is bound by the cores: three passes of
 * 100 calls, each pass's time per call, the CPU (user + system) each rank's process spent per
 * call (the mean over the ranks) and how many cores the ranks kept busy. With --procs each rank
 * is a process, so its CPU is its share of the TCP path; in threads the figure is the whole
 * process's, divided among its ranks. docs/simulator.md reads it for the alltoall rows.
 *   tsmpi run -n N [--procs] bench/ranks/alltoall-cpu.ts
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const blocks = Array.from({ length: comm.size }, () => new Uint8Array(64 * 1024));
for (let pass = 0; pass < 3; pass++) {
  await comm.barrier();
  const cpu0 = process.cpuUsage();
  const t0 = wtime();
  for (let i = 0; i < 100; i++) await comm.alltoall(blocks);
  const seconds = wtime() - t0;
  const used = process.cpuUsage(cpu0);
  const total = await comm.allreduce((used.user + used.system) / 1e6, Op.sum);
  if (comm.rank === 0) console.log(`pass ${pass}: ${((seconds / 100) * 1e3).toFixed(2)} ms a call, ${((total / comm.size / 100) * 1e3).toFixed(2)} ms of CPU per rank a call, ${(total / seconds).toFixed(2)} cores busy`);
}
