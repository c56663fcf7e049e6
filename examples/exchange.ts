/**
 * Batches of messages: a superstep with `comm.exchange`, then a histogram with `comm.conveyor`.
 *
 *   npx tsmpi run -n 4 examples/exchange.ts [items per rank]            (default 100000)
 *   npx tsmpi sim -n 4 --quiet examples/exchange.ts 20000
 *
 * exchange: every rank sends a Float64Array to rank+1 and rank+2 (mod P) and a small object to
 * rank-1, once with each planner. Each rank checks that it got exactly the messages its senders
 * made for it, grouped by source in rank order and in each sender's order.
 * conveyor: every rank pushes N keys from a seeded generator to the key's owner (key mod P); the
 * owners count them. Every rank can replay every rank's generator, so each owner checks its counts
 * against a local recomputation, and an allreduce checks the total and a checksum.
 */
import { init, Op, wtime, type Incoming, type Outgoing, type PlannerName } from 'tsmpi';

const comm = await init();
const start = wtime();
const { rank, size } = comm;
const ranks = `${size} rank${size === 1 ? '' : 's'}`;
const itemsPerRank = Number(process.argv[2] ?? 100_000);
if (!(Number.isInteger(itemsPerRank) && itemsPerRank >= 0)) throw new RangeError(`usage: exchange.ts [items per rank]; got ${process.argv[2]}`);

// ---- exchange: one superstep per planner ---------------------------------------------------

interface Note {
  from: number;
  to: number;
  text: string;
}
const VECTOR = 16;

/** The messages rank `r` sends in a superstep (every rank can compute every rank's list). */
function outgoing(r: number): Outgoing[] {
  const vector = (dest: number, tag: number): Float64Array => Float64Array.from({ length: VECTOR }, (_, k) => r * 1e6 + dest * 1e3 + tag * 100 + k);
  const right1 = (r + 1) % size;
  const right2 = (r + 2) % size;
  const left = (r - 1 + size) % size;
  return [
    { dest: right1, tag: 1, payload: vector(right1, 1) },
    { dest: right2, tag: 2, payload: vector(right2, 2) },
    { dest: left, tag: 3, payload: { from: r, to: left, text: `hello from ${r}` } satisfies Note },
  ];
}

/** What this rank must receive: each source's messages to it, sources in rank order. */
const expected: Incoming[] = [];
for (let s = 0; s < size; s++) for (const m of outgoing(s)) if (m.dest === rank) expected.push({ source: s, tag: m.tag, payload: m.payload });

function samePayload(a: unknown, b: unknown): boolean {
  if (a instanceof Float64Array && b instanceof Float64Array) return a.length === b.length && a.every((v, i) => v === b[i]);
  if (a instanceof Float64Array || b instanceof Float64Array) return false; // a vector must arrive as a vector
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Rank 0's time at the end of each phase (printed last: where a run's time went, real or simulated). */
const phases: string[] = [];
const phaseEnds = (name: string): void => {
  phases.push(`${name} ${((wtime() - start) * 1000).toFixed(1)}`);
};

const planners: PlannerName[] = ['direct', 'reorder', 'aggregate', 'pipelined', 'adaptive'];
let wrong = 0;
let received = 0;
for (const planner of planners) {
  const got = await comm.exchange(outgoing(rank), { planner });
  received += got.length;
  const ok = got.length === expected.length && got.every((m, i) => m.source === expected[i]!.source && m.tag === expected[i]!.tag && samePayload(m.payload, expected[i]!.payload));
  if (!ok) {
    wrong++;
    console.error(`rank ${rank}, planner ${planner}: got ${JSON.stringify(got.map((m) => [m.source, m.tag]))}, expected ${JSON.stringify(expected.map((m) => [m.source, m.tag]))}`);
  }
}
const [totalReceived, totalWrong] = [await comm.allreduce(received, Op.sum), await comm.allreduce(wrong, Op.sum)];
if (rank === 0) {
  const verdict = totalWrong === 0 && totalReceived === 3 * size * planners.length ? 'all delivered' : `${totalWrong} supersteps wrong`;
  console.log(`exchange: ${ranks}, ${totalReceived} messages in ${planners.length} supersteps (${planners.join(', ')}), ${verdict}`);
}

phaseEnds('supersteps');

// ---- conveyor: a distributed histogram -----------------------------------------------------

const KEYS = 1024;
/** mulberry32: a small seeded generator (the same stream on every rank, launch mode and run). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
const keysOf = (r: number): (() => number) => {
  const next = mulberry32(0x5eed + r);
  return () => next() % KEYS;
};
const owner = (key: number): number => key % size;

// This rank owns keys rank, rank + P, ...; counts[key] is used only for keys it owns.
const counts = new Uint32Array(KEYS);
const bySource = new Uint32Array(size);
// Small buffers and a small in-flight limit, so that even a short run shows push() returning false.
const conveyor = await comm.conveyor({
  bufferBytes: 4096,
  maxInFlight: 32 * 1024,
  onItem: (source, item) => {
    const key = item[0]! | (item[1]! << 8); // the bytes are valid only during this call
    counts[key]!++;
    bySource[source]!++;
  },
});
const item = new Uint8Array(2); // push copies the item, so one scratch buffer will do
const draw = keysOf(rank);
let stalls = 0;
for (let i = 0; i < itemsPerRank; i++) {
  const key = draw();
  item[0] = key & 0xff;
  item[1] = key >>> 8;
  if (!conveyor.push(owner(key), item)) {
    stalls++;
    await conveyor.advance(); // too much travelling: let sends complete and arrivals be counted
  }
}
phaseEnds('pushes');
await conveyor.close(); // collective: every item sent to this rank has been delivered
phaseEnds('close');

// Recompute what this rank should own by replaying every rank's stream.
const want = new Uint32Array(KEYS);
const wantBySource = new Uint32Array(size);
for (let s = 0; s < size; s++) {
  const replay = keysOf(s);
  for (let i = 0; i < itemsPerRank; i++) {
    const key = replay();
    if (owner(key) === rank) {
      want[key]!++;
      wantBySource[s]!++;
    }
  }
}
phaseEnds('replay');
let mismatches = 0;
let owned = 0;
let weighted = 0;
for (let key = 0; key < KEYS; key++) {
  if (counts[key] !== want[key]) mismatches++;
  owned += counts[key]!;
  weighted += (key + 1) * counts[key]!; // an integer below 2^53: exact in any order
}
for (let s = 0; s < size; s++) if (bySource[s] !== wantBySource[s]) mismatches++;
const [total, checksum, bad] = [await comm.allreduce(owned, Op.sum), await comm.allreduce(weighted, Op.sum), await comm.allreduce(mismatches, Op.sum)];
const allStalls = await comm.allreduce(stalls, Op.sum);
if (rank === 0) {
  const verdict = bad === 0 && total === size * itemsPerRank ? 'histogram ok' : `histogram WRONG (${bad} mismatches)`;
  console.log(`conveyor: ${ranks}, ${total} items, ${verdict} (checksum ${checksum})`);
  // How often push() said "full" depends on timing: not a deterministic line.
  console.log(`conveyor flow control: push() returned false ${allStalls} times`);
}
// Rank 0's span (virtual under tsmpi sim): what `npm run bench -- predict` compares.
if (rank === 0) {
  phaseEnds('checks');
  console.log(`exchange phases (rank 0, ms from the start to each one's end): ${phases.join(', ')}`);
  console.log(`exchange time: ${(wtime() - start).toFixed(3)} s`);
}
