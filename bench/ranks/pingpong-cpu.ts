/**
 * Where a small message's time goes: a 16-byte ping-pong between 2 ranks, and the CPU time
 * (user + system, process.cpuUsage) the process spent per round trip meanwhile. With --procs
 * each rank is a process of its own, so its CPU per round trip is its share of the TCP path
 * (system calls, waking, the socket's JavaScript); in threads the figure is the whole process's.
 * docs/simulator.md reads it to explain the --procs rows of the predict bench. A list of sizes
 * (bytes, comma-separated) times each in turn, a tenth of the round trips from 256 KiB on.
 *   tsmpi run -n 2 [--procs] bench/ranks/pingpong-cpu.ts [round trips] [sizes]
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error(`pingpong-cpu runs on 2 ranks, not ${comm.size}`);
const peer = 1 - comm.rank;
const roundTrips = Number(process.argv[2] ?? 20_000);
const sizes = (process.argv[3] ?? '16').split(',').map(Number);
for (const bytes of sizes) {
  if (!Number.isInteger(bytes) || bytes < 0) throw new Error(`pingpong-cpu: sizes are byte counts, not ${process.argv[3]}`);
  const message = new Uint8Array(bytes);
  const trips = bytes >= 262144 ? Math.max(1, Math.floor(roundTrips / 10)) : roundTrips;
  for (const pass of ['warm-up', 'timed']) {
    await comm.barrier();
    const cpu0 = process.cpuUsage();
    const t0 = wtime();
    for (let i = 0; i < trips; i++) {
      if (comm.rank === 0) {
        await comm.send(message, peer);
        await comm.recvInto(message, peer);
      } else {
        await comm.recvInto(message, peer);
        await comm.send(message, peer);
      }
    }
    const wall = (wtime() - t0) / trips;
    const cpu = process.cpuUsage(cpu0);
    const size = sizes.length > 1 ? `${bytes} B: ` : '';
    if (pass === 'timed') console.log(`${size}rank ${comm.rank}: round trip ${(wall * 1e6).toFixed(1)} us, CPU per round trip ${((cpu.user + cpu.system) / trips).toFixed(1)} us (user ${(cpu.user / trips).toFixed(1)}, system ${(cpu.system / trips).toFixed(1)})`);
  }
}
