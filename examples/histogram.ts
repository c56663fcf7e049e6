/**
 * A shared histogram with one-sided accumulate: every rank draws samples and adds its counts
 * straight into rank 0's window (Op.sum accumulates are atomic per element), with no receive
 * posted anywhere; one fence makes them all visible. Then every rank reads the totals back
 * with get.
 *
 *   tsmpi run -n 4 examples/histogram.ts [samples-per-rank] [bins]
 */
import { Op, Win, init } from 'tsmpi';

const comm = await init();
const samples = Number(process.argv[2] ?? 100_000);
const bins = Number(process.argv[3] ?? 10);

// A small seeded generator, so every run (and every launch mode) counts the same samples.
let state = 0x9e3779b9 ^ (comm.rank * 0x85ebca6b);
const random = (): number => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 0x100000000;
};

const counts = new Float64Array(bins);
for (let i = 0; i < samples; i++) {
  // The mean of three uniforms: a bell-shaped distribution on [0, 1).
  const x = (random() + random() + random()) / 3;
  counts[Math.min(bins - 1, Math.floor(x * bins))]! += 1;
}

const win = await Win.allocate(comm, comm.rank === 0 ? bins * 8 : 0);
await win.fence();
win.accumulate(counts, 0, 0, Op.sum);
await win.fence();
const totals = new Float64Array(bins);
win.get(totals, 0, 0);
await win.fence();
await win.free();

const all = totals.reduce((a, b) => a + b, 0);
if (all !== samples * comm.size) throw new Error(`rank ${comm.rank}: the histogram holds ${all} samples, expected ${samples * comm.size}`);
if (comm.rank === 0) {
  const widest = Math.max(...totals);
  for (let b = 0; b < bins; b++) {
    const bar = '#'.repeat(Math.round((totals[b]! / widest) * 40));
    console.log(`[${(b / bins).toFixed(1)}, ${((b + 1) / bins).toFixed(1)}) ${String(totals[b]).padStart(8)} ${bar}`);
  }
  console.log(`${all} samples from ${comm.size} ranks`);
}
