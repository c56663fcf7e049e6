/**
 * Rank program of the collectives benchmark: microseconds per call (the slowest rank's time) of
 * barrier, bcast, allreduce (sum of doubles), allgather, alltoall and reduceScatterBlock (sum of
 * doubles), as bench/peers/coll.c: the
 * arrays are allocated once and results land in receive arrays, as the C program's buffers.
 *   tsmpi run -n N bench/ranks/collectives.ts <bytes>...
 * With BENCH_ALLOC_MEM=1 the arrays come from allocMem; BENCH_OPS=allreduce,bcast times only those.
 */
import { Op, allocMem, freeMem, init } from 'tsmpi';

const comm = await init();
const sizes = process.argv.slice(2).map(Number);
const MIN_TIMED_MS = Number(process.env.BENCH_MIN_TIMED_MS ?? 0);
// BENCH_ALLOC_MEM=1: every array from allocMem (memory the process's rank threads share).
const shared = process.env.BENCH_ALLOC_MEM === '1';
const made: Float64Array[] = [];
const doubles = (length: number): Float64Array => {
  if (!shared) return new Float64Array(length);
  const array = allocMem(Float64Array, length);
  made.push(array);
  return array;
};

/**
 * `n` calls in a row. The warm-up batches and the timed pass both run through here: a loop that
 * awaits is never replaced by V8 while it runs, so a timed loop of its own, first reached after the
 * warm-up, ran in the interpreter (a 2-rank bcast of one double 1.4-1.6 us per call in it, against
 * 0.4-0.7 us for the same calls through this function, warmed by the batches).
 */
async function runCalls(call: () => Promise<unknown>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await call();
}

async function timed(op: string, bytes: number): Promise<number> {
  const count = Math.max(1, Math.floor(bytes / 8));
  const per = Math.max(1, Math.floor(count / comm.size));
  const data = doubles(count).fill(comm.rank);
  const part = doubles(per).fill(comm.rank);
  const counts = Array.from({ length: comm.size }, () => part.length);
  const sendAll = doubles(per * comm.size).fill(comm.rank);
  const reduced = doubles(count);
  const gathered = doubles(per * comm.size);
  const reducedPart = doubles(per);
  // Calls are timed 20,000 times at 8 B, 1,000 at 64 KiB and 100 at 1 MiB, as by the C peer: over
  // a few ms, one collection, one late wake-up or one stall of the machine (it now and then stops
  // a thread for milliseconds) swung a figure several times over between runs.
  const most = bytes >= 1 << 20 ? 100 : bytes >= 64 << 10 ? 1000 : 20_000;
  // A plain function handing back the call's own promise: an async one would add a promise and
  // its await to every call, a cost of this harness and not of the collective.
  const call = (): Promise<unknown> => {
    if (op === 'barrier') return comm.barrier();
    if (op === 'bcast') return comm.bcastInto(data, 0);
    if (op === 'allreduce') return comm.allreduce(data, Op.sum, reduced);
    if (op === 'allgather') return comm.allgatherv(part, counts, gathered);
    if (op === 'reducescatter') return comm.reduceScatterBlock(sendAll, Op.sum, reducedPart);
    return comm.alltoallv(sendAll, counts, counts, gathered);
  };
  // Warm-up until V8 has compiled the call's path and the spin budgets have settled: a small
  // collective keeps getting faster for its first ~10,000 calls (measured: a 2-rank barrier 60 us
  // per call in its first 2,000, 2-3 us after 10,000), a 64 KiB bcast for its first few thousand.
  // Batches of a tenth of the timed count, until 2.5 times that count and 0.25 s, or 1.5 s; the
  // ranks agree on when to stop.
  const batch = Math.floor(most / 10) + 1;
  const warmStart = performance.now();
  let batchUs = 0;
  for (let done = 0, more = true; more; done += batch) {
    await comm.barrier();
    const b0 = performance.now();
    await runCalls(call, batch);
    batchUs = ((performance.now() - b0) / batch) * 1000;
    const warmed = performance.now() - warmStart;
    more = (await comm.allreduce((done + batch < 2.5 * most || warmed < 250) && warmed < 1500 ? 1 : 0, Op.min)) === 1;
  }
  // Fewer calls (down to a tenth) where the full count would take over a second: many ranks on
  // few cores. The ranks agree on the count from the slowest rank's last batch.
  const slowest = await comm.allreduce(batchUs, Op.max);
  // BENCH_MIN_TIMED_MS (bench noisy): at least that long, as p2p.ts's ping-pong and the C peers.
  const atLeast = Math.ceil((MIN_TIMED_MS * 1000) / Math.max(slowest, 1e-6));
  const iters = Math.max(batch, Math.min(most, Math.floor(1e6 / slowest)), atLeast);
  await comm.barrier();
  const t0 = performance.now();
  await runCalls(call, iters);
  const us = ((performance.now() - t0) / iters) * 1000;
  const slowestUs = await comm.allreduce(us, Op.max);
  for (const array of made.splice(0)) freeMem(array);
  return slowestUs;
}

// The schedule runs once untimed first, to let V8 compile the hot paths (see bench/ranks/p2p.ts),
// and each call warms up before it is timed (see timed).
for (const report of [false, true]) {
  for (const [index, bytes] of sizes.entries()) {
    for (const op of (process.env.BENCH_OPS ?? 'barrier,bcast,allreduce,allgather,alltoall,reducescatter').split(',')) {
      if (op === 'barrier' && index > 0) continue;
      const us = await timed(op, bytes);
      if (report && comm.rank === 0) console.log(JSON.stringify({ bench: 'collective', op, bytes: op === 'barrier' ? 0 : bytes, ranks: comm.size, us }));
    }
  }
}
