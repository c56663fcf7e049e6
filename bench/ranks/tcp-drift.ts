/**
 * How a small message's one-way time between two processes moves while they talk: 30 chunks of
 * 200 round trips of 16 bytes, each chunk's mean one-way time in us, with a 50 ms pause (rank 0
 * computing, then a barrier) after the 15th, shown as `|`. On a VM whose idle cores are woken by
 * the host, the same ping-pong runs in two states minutes, or chunks, apart: what a calibration's
 * small-size figures and a latency-bound run each catch of them (docs/simulator.md).
 *   tsmpi run -n 2 --procs bench/ranks/tcp-drift.ts
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error(`tcp-drift: run it on 2 ranks (-n 2), not ${comm.size}`);
const buf = new Uint8Array(16);
const peer = 1 - comm.rank;
const chunks: string[] = [];
for (let chunk = 0; chunk < 30; chunk++) {
  const t0 = wtime();
  for (let i = 0; i < 200; i++) {
    if (comm.rank === 0) {
      await comm.send(buf, peer);
      await comm.recvInto(buf, peer);
    } else {
      await comm.recvInto(buf, peer);
      await comm.send(buf, peer);
    }
  }
  chunks.push(((wtime() - t0) / 400 * 1e6).toFixed(0));
  if (chunk === 14) {
    const t = wtime();
    while (wtime() - t < 0.05);
    await comm.barrier();
    chunks.push('|');
  }
}
if (comm.rank === 0) console.log(`one-way us per chunk of 200 round trips: ${chunks.join(' ')}`);
