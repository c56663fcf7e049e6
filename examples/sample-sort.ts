/**
 * A parallel sample sort: every rank sorts its own seeded keys, picks regular samples, and the
 * gathered samples choose P - 1 splitters; each rank then cuts its sorted keys at the splitters
 * and one `alltoallv` sends every slice to the rank that owns its range; each rank merges what it
 * got. The sorted whole is the concatenation over ranks, in rank order, with nothing lost: the
 * program checks it (each rank sorted, each boundary in order, the count and the key sum kept).
 *
 *   tsmpi run -n 4 examples/sample-sort.ts [keys-per-rank]
 */
import { Op, init } from 'tsmpi';

const comm = await init();
const { rank, size } = comm;
const n = Number(process.argv[2] ?? 200_000);

// Seeded keys (xorshift), so every launch mode sorts the same numbers.
let state = (0x2545f491 ^ Math.imul(rank + 1, 0x9e3779b1)) >>> 0;
const keys = new Float64Array(n);
for (let i = 0; i < n; i++) {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  keys[i] = (state >>> 0) % 1_000_000_007;
}
const t0 = performance.now();
keys.sort();

// Regular samples: size - 1 from each rank, gathered everywhere; every size-th of them splits.
const samples = new Float64Array(size - 1);
for (let i = 1; i < size; i++) samples[i - 1] = keys[Math.floor((i * n) / size)] ?? 0;
const all = (await comm.allgatherv(samples)).data.sort();
const splitters = Array.from({ length: size - 1 }, (_, i) => all[(i + 1) * (size - 1) - 1] ?? 0);

// Cut the sorted keys at the splitters: slice d goes to rank d.
const sendCounts: number[] = [];
let from = 0;
for (let d = 0; d < size; d++) {
  let to = from;
  if (d === size - 1) to = n;
  else while (to < n && keys[to]! <= splitters[d]!) to++;
  sendCounts.push(to - from);
  from = to;
}
const mine = (await comm.alltoallv(keys, sendCounts)).data.sort();
const seconds = (performance.now() - t0) / 1000;

// Checks: this rank's keys in order; the last key here at most the first of the next rank; the
// count and the sum of keys over all ranks as before the sort.
for (let i = 1; i < mine.length; i++) if (mine[i - 1]! > mine[i]!) throw new Error(`rank ${rank}: keys out of order at ${i}`);
const right = rank + 1 < size ? rank + 1 : undefined;
const left = rank > 0 ? rank - 1 : undefined;
const sendLast = right === undefined ? undefined : comm.isend(mine.length > 0 ? mine[mine.length - 1]! : -Infinity, right, 1);
if (left !== undefined) {
  const leftLast = await comm.recv<number>(left, 1);
  if (mine.length > 0 && leftLast > mine[0]!) throw new Error(`rank ${rank}: ${leftLast} on rank ${left} sorts after ${mine[0]}`);
}
await sendLast?.wait();
const sum = (a: Float64Array): number => a.reduce((x, y) => x + y, 0);
const [countBefore, countAfter, sumBefore, sumAfter] = await comm.allreduce(Float64Array.of(n, mine.length, sum(keys), sum(mine)), Op.sum);
const sizes = await comm.gather(mine.length, 0);
if (rank === 0) {
  if (countAfter !== countBefore || sumAfter !== sumBefore) throw new Error(`keys lost: ${countAfter} of ${countBefore}, sum ${sumAfter} of ${sumBefore}`);
  console.log(`sorted ${countAfter} keys on ${size} rank${size === 1 ? '' : 's'}: in order, none lost (key sum ${sumAfter})`);
  console.log(`keys per rank ${sizes!.join(' ')} in ${seconds.toFixed(3)} s`);
}
