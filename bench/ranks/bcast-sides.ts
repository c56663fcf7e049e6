/**
 * Each side of a 2-rank bcast of one double, timed alone: the root's calls while the leaf is busy
 * elsewhere (its messages wait in the link), and the leaf's calls once the root's messages are all
 * in the link (the root sends 4000 in well under the leaf's 10 ms of computing). A bcast loop
 * runs at the pace of its slower side; this says which one.
 *   tsmpi run -n 2 bench/ranks/bcast-sides.ts
 * Rank 0 prints `root us/call MEDIAN`, rank 1 `leaf us/call MEDIAN` (medians of 20 rounds of
 * 4000 calls, after 40 rounds of warm-up).
 */
import { init } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error('bcast-sides: run it on 2 ranks');
const one = new Float64Array(1);
const CALLS = 4000;
const rootTimes: number[] = [];
/**
 * The calls of one side. A loop of awaits at the top level runs interpreted (V8 does not replace
 * a loop that awaits while it runs): in a function the warm-up rounds compile, the root's figure
 * went from 0.38-0.61 to 0.30-0.46 us (three runs each).
 */
async function calls(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await comm.bcastInto(one, 0);
}
const leafTimes: number[] = [];

for (let round = 0; round < 60; round++) {
  await comm.barrier();
  if (comm.rank === 0) {
    // The leaf computes meanwhile: the root's calls meet no reader.
    const t0 = performance.now();
    await calls(CALLS);
    if (round >= 40) rootTimes.push(((performance.now() - t0) / CALLS) * 1000);
  } else {
    const until = performance.now() + 3;
    while (performance.now() < until);
    await calls(CALLS);
  }
  await comm.barrier();
  // The root sends everything first; the leaf, computing meanwhile (no tsmpi call, which would
  // take the messages out of the link as unexpected ones), then takes them from the link.
  if (comm.rank === 0) {
    await calls(CALLS);
  } else {
    const until = performance.now() + 10;
    while (performance.now() < until);
    const t0 = performance.now();
    await calls(CALLS);
    if (round >= 40) leafTimes.push(((performance.now() - t0) / CALLS) * 1000);
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(comm.rank === 0 ? `root us/call ${median(rootTimes).toFixed(3)}` : `leaf us/call ${median(leafTimes).toFixed(3)}`);
