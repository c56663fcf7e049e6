/**
 * Rank program of the nonblocking-collective benchmark: how much of an iallreduce hides behind
 * computation, measured as osu_iallreduce does.
 *   tsmpi run -n N bench/ranks/nbc.ts <bytes> <iterations> <probes>
 *
 * Each figure is the mean over `iterations` of one iteration's time, each iteration started
 * after a barrier (which is not timed), the slowest rank's; the iterations of the figures take
 * turns:
 *   comm      a blocking allreduce (sum of doubles) alone
 *   compute   a busy loop calibrated to last about as long as `comm`, alone
 *   serial    the allreduce, then the busy loop (the back-to-back baseline)
 *   test      iallreduce, the busy loop in `probes` chunks with test() between them, wait
 *   none      iallreduce, the busy loop in one piece, wait (osu_iallreduce's default: no probes)
 *   yield     as test, with `await comm.sleep(0)` after each test() (over TCP socket data
 *             arrives only while a rank awaits)
 * and, for `test`, the ms spent inside test() and in the final wait per iteration, and for `test`
 * and `yield` how many test() calls found the collective unfinished. Rank 0 prints one JSON line with all of them.
 */
import { Op, init, type Request } from 'tsmpi';

const comm = await init();
const [bytes = 1 << 20, iterations = 50, probes = 64] = process.argv.slice(2).map(Number);
const data = new Float64Array(Math.max(1, Math.floor(bytes / 8))).fill(comm.rank + 1);

// The busy loop: chains of dependent multiply-adds V8 cannot drop (the result is kept). The
// result goes to a typed array after every unit: kept in a module variable instead, V8 compiled
// the loop 3.5x slower once it was inlined into the async chunk loop, which skewed every figure.
const sink = new Float64Array(1).fill(1);
function spin(units: number): void {
  for (let u = 0; u < units; u++) {
    let x = sink[0]!;
    for (let i = 0; i < 256; i++) x = x * 0.999999 + 1e-6;
    sink[0] = x;
  }
}

/** The busy loop in `chunks` pieces, `between` after each but the last. */
async function computeInChunks(units: number, chunks: number, between: () => void | Promise<void>): Promise<void> {
  let done = 0;
  for (let c = 1; c <= chunks; c++) {
    const upTo = Math.round((units * c) / chunks);
    spin(upTo - done);
    done = upTo;
    if (c < chunks) await between();
  }
}

/** ms of one call of `body` on this rank, started after an untimed barrier. */
async function timeOnce(body: () => Promise<void>): Promise<number> {
  await comm.barrier();
  const t0 = performance.now();
  await body();
  return performance.now() - t0;
}

/**
 * `n` rounds of every figure in turn (interleaved, so that a change in the machine's load falls on
 * all of them alike); the mean ms per iteration of each, the slowest rank's.
 */
async function rounds(n: number, names: readonly string[], units: number): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    for (const name of names) totals[name] = (totals[name] ?? 0) + (await timeOnce(() => variants[name]!(units)));
  }
  const slowest = await comm.allreduce(Float64Array.from(Object.values(totals), (t) => t / n), Op.max);
  return Object.fromEntries(Object.keys(totals).map((name, k) => [name, slowest[k]!]));
}

/** Units of the busy loop per ms on this rank, measured while every rank spins (as they will). */
async function calibrate(): Promise<number> {
  await comm.barrier();
  let units = 16;
  for (;;) {
    const t0 = performance.now();
    spin(units);
    const ms = performance.now() - t0;
    if (ms >= 50) return units / ms;
    units *= 2;
  }
}

// What the test() calls of the `test` figure cost, and how many (of `test`, of `yield`) found the
// collective unfinished.
let testMs = 0;
let waitMs = 0;
let polls = 0;
let yieldPolls = 0;
const variants: Record<string, (units: number) => Promise<void>> = {
  comm: async () => void (await comm.allreduce(data, Op.sum)),
  compute: async (units) => spin(units),
  serial: async (units) => {
    await comm.allreduce(data, Op.sum);
    spin(units);
  },
  test: async (units) => {
    const request: Request<Float64Array> = comm.iallreduce(data, Op.sum);
    // No await between chunks: on shared memory test() alone moves the reduction on.
    await computeInChunks(units, probes, () => {
      const t0 = performance.now();
      if (!request.test()) polls++;
      testMs += performance.now() - t0;
    });
    const t0 = performance.now();
    await request.wait();
    waitMs += performance.now() - t0;
  },
  none: async (units) => {
    const request = comm.iallreduce(data, Op.sum);
    spin(units);
    await request.wait();
  },
  yield: async (units) => {
    const request = comm.iallreduce(data, Op.sum);
    await computeInChunks(units, probes, async () => {
      if (!request.test()) yieldPolls++;
      await comm.sleep(0);
    });
    await request.wait();
  },
};

const names = ['comm', 'compute', 'serial', 'test', 'none', 'yield'] as const;
// Once untimed at a quarter of the iterations, to let V8 compile the hot paths (see bench/ranks/p2p.ts).
const check = await comm.allreduce(data, Op.sum);
if (check[0] !== (comm.size * (comm.size + 1)) / 2) throw new Error(`allreduce gave ${check[0]}`);
await rounds(Math.max(1, iterations >> 2), names, Math.round(await calibrate())); // about 1 ms of compute

// Every rank computes for about the slowest rank's allreduce time, as osu_iallreduce does: the
// median, as the first calls after the warm-up still run long.
const commTimes: number[] = [];
for (let i = 0; i < Math.max(3, iterations >> 1); i++) commTimes.push(await timeOnce(() => variants.comm!(0)));
commTimes.sort((a, b) => a - b);
const commEstimate = await comm.allreduce(commTimes[commTimes.length >> 1]!, Op.max);
const units = Math.max(1, Math.round((await calibrate()) * commEstimate));
testMs = 0;
waitMs = 0;
polls = 0;
yieldPolls = 0;
const figures = await rounds(iterations, names, units);
const result: Record<string, number | string> = { bench: 'nbc', ranks: comm.size, bytes: data.byteLength, iterations, probes, units, commEstimateMs: commEstimate };
for (const name of names) result[`${name}Ms`] = figures[name]!;
result.testCallMs = (await comm.allreduce(testMs, Op.max)) / iterations;
result.testWaitMs = (await comm.allreduce(waitMs, Op.max)) / iterations;
result.pendingTests = (await comm.allreduce(polls, Op.max)) / iterations;
result.pendingYieldTests = (await comm.allreduce(yieldPolls, Op.max)) / iterations;
if (!Number.isFinite(sink[0])) throw new Error('the busy loop diverged');
if (comm.rank === 0) console.log(JSON.stringify(result));
