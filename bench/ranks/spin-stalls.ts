/**
 * Where a waiting rank's compiles land: rank 1 computes for `ms` milliseconds, sends 8 bytes and
 * waits for rank 0's reply, `rounds` times; rank 0 waits for each message (polling in place for
 * its budget, then asleep) and replies at once. Rank 1 prints the rounds' time beyond their
 * compute in all, and each round that took over 0.3 ms more (`round:ms`): with the default spin
 * the stalls of V8 compiling rank 0's wait loop on its thread, against TSMPI_SPIN_US=0.
 *   tsmpi run|sim -n 2 bench/ranks/spin-stalls.ts [ms=1] [rounds=200]
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error(`spin-stalls runs on 2 ranks, not ${comm.size}`);
const seconds = Number(process.argv[2] ?? 1) / 1000;
const rounds = Number(process.argv[3] ?? 200);
const message = new Float64Array(1);
const times: number[] = [];
for (let r = 0; r < rounds; r++) {
  if (comm.rank === 1) {
    const t0 = wtime();
    // Declared under a simulator that computes that way; a real run spends it in the loop.
    await comm.compute(seconds);
    while (wtime() - t0 < seconds);
    await comm.send(message, 0, 1);
    await comm.recvInto(message, 0, 2);
    times.push(wtime() - t0);
  } else {
    await comm.recvInto(message, 1, 1);
    await comm.send(message, 1, 2);
  }
}
if (comm.rank === 1) {
  const excess = times.map((t) => (t - seconds) * 1e3);
  const stalls = excess.flatMap((ms, round) => (ms > 0.3 ? [`${round}:${ms.toFixed(1)}`] : []));
  console.log(`rounds beyond their compute: ${excess.reduce((a, b) => a + b, 0).toFixed(1)} ms in all; over 0.3 ms: ${stalls.join(' ') || 'none'}`);
}
