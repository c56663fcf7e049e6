/**
 * The CPU a process spends per round trip of a warm ping-pong between two ranks, at sizes from
 * 16 B to 1 MiB (16 B again last, once the path is warm), beside the one-way time: between
 * processes, what the TCP path costs the processes beyond the calls' own send and receive
 * (docs/simulator.md, "Where the evening table's misses come from"). Each size: 1000 round trips
 * to warm up, then 1000 timed (200 of each at 256 KiB and up); the CPU is `process.cpuUsage`
 * (user and system) of each rank's process.
 *   tsmpi run -n 2 --procs bench/ranks/path-cpu.ts
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error(`path-cpu: run it on 2 ranks (-n 2), not ${comm.size}`);
const peer = 1 - comm.rank;
for (const bytes of [16, 1024, 16384, 65536, 262144, 1048576, 16]) {
  const buf = new Uint8Array(bytes);
  const trips = bytes >= 262144 ? 200 : 1000;
  const roundTrip = async (): Promise<void> => {
    if (comm.rank === 0) {
      await comm.send(buf, peer);
      await comm.recvInto(buf, peer);
    } else {
      await comm.recvInto(buf, peer);
      await comm.send(buf, peer);
    }
  };
  for (let i = 0; i < trips; i++) await roundTrip();
  await comm.barrier();
  const before = process.cpuUsage();
  const t0 = wtime();
  for (let i = 0; i < trips; i++) await roundTrip();
  const seconds = wtime() - t0;
  const used = process.cpuUsage(before);
  const cpu = await comm.gather((used.user + used.system) / trips, 0);
  if (comm.rank === 0) console.log(`${bytes} B: one-way ${((seconds / trips / 2) * 1e6).toFixed(1)} us, CPU per round trip ${cpu!.map((us) => us.toFixed(1)).join(' / ')} us (rank 0 / rank 1)`);
}
