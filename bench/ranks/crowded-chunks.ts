/**
 * Where fresh processes that share the cores lose time, real or simulated: a token passed round
 * every rank (`ring`, one rank busy at a time), or every rank trading a value with rank XOR 2^r in
 * each round r (`pairs`, every rank busy, as a small allreduce by recursive doubling; the count
 * of ranks a power of 2). Rank 0 prints each chunk's time per hop or per round in us, from the
 * processes' start (docs/simulator.md, "A ring and an exchange of crowded processes").
 *   tsmpi run|sim --procs -n 4 bench/ranks/crowded-chunks.ts ring|pairs [CHUNKS] [LAPS]
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
const pattern = process.argv[2] ?? 'pairs';
const chunks = Number(process.argv[3] ?? 14);
const laps = Number(process.argv[4] ?? 250);
if (pattern !== 'ring' && pattern !== 'pairs') throw new Error(`crowded-chunks: no pattern ${pattern} (ring, pairs)`);
if (pattern === 'pairs' && (comm.size & (comm.size - 1)) !== 0) throw new Error(`crowded-chunks: pairs needs a power of 2 ranks, not ${comm.size}`);

const mine = new Float64Array(1);
const theirs = new Float64Array(1);
const right = (comm.rank + 1) % comm.size;
const left = (comm.rank - 1 + comm.size) % comm.size;

async function ringLaps(n: number): Promise<number> {
  for (let lap = 0; lap < n; lap++) {
    if (comm.rank === 0) {
      await comm.send(mine, right);
      await comm.recvInto(theirs, left);
    } else {
      await comm.recvInto(theirs, left);
      await comm.send(mine, right);
    }
  }
  return n * comm.size;
}

async function pairRounds(n: number): Promise<number> {
  const rounds = Math.log2(comm.size);
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < rounds; r++) {
      const partner = comm.rank ^ (1 << r);
      const sent = comm.isend(mine, partner, 5);
      await comm.recvInto(theirs, partner, 5);
      await sent.wait();
    }
  }
  return n * rounds;
}

const perChunk: string[] = [];
for (let c = 0; c < chunks; c++) {
  await comm.barrier();
  const t0 = wtime();
  const steps = pattern === 'ring' ? await ringLaps(laps) : await pairRounds(laps);
  perChunk.push((((wtime() - t0) / steps) * 1e6).toFixed(1));
}
if (comm.rank === 0) console.log(`${pattern} us per ${pattern === 'ring' ? 'hop' : 'round'}: ${perChunk.join(' ')}`);
