/**
 * The measurements of `tsmpi calibrate`, as a tsmpi program of two ranks (run by `tsmpi run` or,
 * against a modelled machine, by `tsmpi sim`): for each size, a ping-pong (half the round trip),
 * a stream (seconds per message of back-to-back sends, from two window lengths so the latency
 * cancels out), the CPU time of one send call and of the receive of a message that has already
 * arrived; then rank 0's compute speed on a JavaScript kernel, and the CPU time of a fruitless
 * test() and iprobe(). Before anything else, while the ranks are fresh, a ping-pong timed in
 * chunks: how much more a fresh rank's first messages cost (V8 compiles the runtime's code as it
 * runs). Times come from the rank's clock (wtime), so a simulated run measures virtual time.
 * Rank 0 writes the figures as JSON to argv[2] and reports progress on stdout as
 * `progress DONE TOTAL`; the file also holds how the path settled before the sweep (`settle`:
 * one-way seconds per batch of empty round trips) and each size's dropped first batch
 * (`figures[].firstBatch`).
 *
 * More experiments run alone (argv[3]): `wake`, a 16-byte ping-pong's one-way time (run with
 * --spin-us 0, every receive wakes a sleeping rank), `ring`, the time of one hop of a token
 * passed around all the ranks (run with more ranks than cores: what a hand-over costs when the
 * ranks share cores), `cold` (`cold-quick`), the fresh ranks' curve alone, `link` (3 ranks),
 * the first round trip of two warm ranks that never talked before, and `sleep` (`sleep-quick`),
 * between processes run with TSMPI_SOCKET_SPIN_US=0: the 16-byte ping-pong with every receiver
 * asleep in the kernel, and its CPU per round trip. `cold-BYTES` (`cold-BYTES-quick`), on fresh
 * ranks: the 16-byte curve, then a ping-pong of BYTES timed in the same chunks (the larger
 * payload's own warm-up, once the small one's path is warm).
 *
 *   tsmpi run -n 2 [--procs] dist/calibrate/probe.js OUT.json [full|quick]
 *   tsmpi run -n 2 --spin-us 0 dist/calibrate/probe.js OUT.json wake
 *   tsmpi run -n 8 dist/calibrate/probe.js OUT.json ring
 *   tsmpi run -n 3 [--procs] dist/calibrate/probe.js OUT.json link
 *   TSMPI_SOCKET_SPIN_US=0 tsmpi run -n 2 --procs dist/calibrate/probe.js OUT.json sleep
 *   tsmpi run -n 2 [--procs] dist/calibrate/probe.js OUT.json cold-65536
 */
import { writeFileSync } from 'node:fs';
import { init, Op, waitAll, wtime, type Request } from 'tsmpi';
import { medianOf as median } from './combine.js';
import { chainFlops } from './kernel-chain.js';

/** Payload sizes measured: both sides of the eager limit, up to 16 MiB. */
export const PROBE_SIZES = [0, 16, 64, 256, 1024, 4096, 16384, 32768, 65536, 131072, 262144, 1048576, 4194304, 16777216];

interface Figures {
  bytes: number;
  oneWay: number;
  /** The ping-pong's first timed batch, dropped from `oneWay` (kept in the probe's file to show the stall it held). */
  firstBatch: number;
  streamPeriod: number;
  send: number;
  recv: number;
  /** CPU seconds of an `isend` call that continues a burst (the link may hold its frame back). */
  burstSend: number;
}

/**
 * Round trips per timed chunk of the fresh ranks' ping-pong: the very first alone (a rank's first
 * contact compiles the whole path and opens its connections: ~11 ms between processes here, where
 * a warm round trip takes ~0.2 ms), then doubling chunks, then `tail` chunks of 100 to find the
 * warm figure. A program that sends a few messages pays the first ones, not an average of 100.
 */
export function coldChunks(tail: number): number[] {
  return [1, 1, 2, 4, 8, 16, 32, 64, ...Array.from({ length: tail }, () => 100)];
}

/**
 * Chunks of 100 round trips after the doubling ones. The warm figure is the mean of the last
 * third, so the curve must run until the path is warm: between processes the round trip kept
 * falling for 2000-3000 round trips (bench/ranks/tcp-drift.ts), and with 24 chunks the last
 * third was still warming up.
 */
const COLD_TAIL_CHUNKS = 48;

/** How long rank 0 lets its peer settle into its first receive before the first contact. */
const FIRST_CONTACT_DELAY_MS = 100;

const comm = await init();
const out = process.argv[2];
const experiment = process.argv[3] ?? 'full';
const EXPERIMENTS = ['full', 'quick', 'wake', 'ring', 'crowded', 'crowded-quick', 'cold', 'cold-quick', 'link', 'sleep', 'sleep-quick'];
/** `cold-BYTES` and `cold-BYTES-quick`: a sized fresh curve. */
const sizedCold = /^cold-(\d+)(-quick)?$/.exec(experiment);
if (!EXPERIMENTS.includes(experiment) && sizedCold === null) throw new Error(`the calibration probe has no experiment ${experiment} (${EXPERIMENTS.join(', ')}, cold-BYTES)`);
if (experiment === 'link' ? comm.size !== 3 : experiment !== 'ring' && !experiment.startsWith('crowded') && comm.size !== 2) throw new Error(`the calibration probe's ${experiment} experiment runs on ${experiment === 'link' ? 3 : 2} ranks, not ${comm.size}`);
const quick = experiment === 'quick' || experiment === 'cold-quick' || experiment === 'sleep-quick' || experiment === 'crowded-quick' || sizedCold?.[2] !== undefined;
const peer = 1 - comm.rank;
const batches = quick ? 5 : 9;
/** Seconds a timed batch lasts at least: long enough for the clock and the noise of a shared machine. */
const BATCH_SECONDS = quick ? 0.01 : 0.02;
/** Batches of small round trips that let the path settle after the sweep's warm-up of large ones. */
const SETTLE_BATCHES = 8;
const big = new Uint8Array(PROBE_SIZES.at(-1)!);
const sink = new Uint8Array(PROBE_SIZES.at(-1)!);
const ack = new Uint8Array(0);
/** Tags of the timed burst's sends (overheads): above the standard sends' 10-41. */
const BURST_TAG = 100;

/**
 * Times that add up in a program (a message's one-way time, a stream's period, a hand-over) are
 * means over the batches: the pauses a run meets now and then (garbage collection, compiler and
 * other threads taking the core) are part of what a program pays on average. CPU costs of one
 * call are medians (a pause there is already in the times).
 */
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Rank 0's choice, told to rank 1: both must run the same number of repetitions. */
async function agree(value: number): Promise<number> {
  const box = new Float64Array([value]);
  await comm.bcastInto(box, 0);
  return box[0]!;
}

async function pingPongBatch(data: Uint8Array, into: Uint8Array, reps: number): Promise<number> {
  await comm.barrier();
  return pingPongTimed(data, into, reps);
}

/** The one-way time of `reps` round trips from here, without a barrier first. */
async function pingPongTimed(data: Uint8Array, into: Uint8Array, reps: number): Promise<number> {
  return (await roundTripsBetween(0, 1, reps, data, into)) / 2;
}

/** Seconds per round trip of `trips` round trips between ranks a and b (a sends first); others return at once. */
async function roundTripsBetween(a: number, b: number, trips: number, data: Uint8Array = big.subarray(0, 16), into: Uint8Array = sink.subarray(0, 16)): Promise<number> {
  const t0 = wtime();
  for (let i = 0; i < trips; i++) {
    if (comm.rank === a) {
      await comm.send(data, b, 1);
      await comm.recvInto(into, b, 1);
    } else if (comm.rank === b) {
      await comm.recvInto(into, a, 1);
      await comm.send(data, a, 1);
    }
  }
  return (wtime() - t0) / trips;
}

async function pingPong(bytes: number): Promise<{ oneWay: number; firstBatch: number }> {
  const data = big.subarray(0, bytes);
  const into = sink.subarray(0, bytes);
  // Untimed batches warm the path up (compiled code, ring pages) and size the timed ones from the
  // fastest of five, so that stalls (a rank descheduled, a collection) cannot shrink the timed
  // batches to a few round trips, each then at the mercy of the next stall.
  // (From 1 MiB a round trip lasts milliseconds: one per sizing batch, or they cost seconds.)
  const sizing = bytes >= 1 << 20 ? 1 : 5;
  await pingPongBatch(data, into, Math.min(3, sizing));
  let each = Infinity;
  for (let k = 0; k < 5; k++) each = Math.min(each, await pingPongBatch(data, into, sizing));
  const reps = await agree(Math.max(3, Math.min(5000, Math.ceil(BATCH_SECONDS / Math.max(2 * each, 1e-7)))));
  // The first batch of a new size is dropped (kept apart in the file): it held a stall the
  // batches after it do not meet (0 B between threads 6.9-8.0 us one way against 1.24-1.32 after
  // it; 16 B between processes 55-59 against 39-40).
  const firstBatch = await pingPongBatch(data, into, reps);
  const times: number[] = [];
  for (let b = 0; b < batches; b++) times.push(await pingPongBatch(data, into, reps));
  return { oneWay: mean(times), firstBatch };
}

/**
 * Seconds to stream `window` messages of `bytes` and have them acknowledged. Here and in
 * {@link overheads} the sends are `irsend`s (standard sends in tsmpi): an `isend` is a burst's,
 * which a link may hold back and write with the next ones at the rank's next poll
 * (publish-batch.ts), so its call costs less and the write lands outside the span timed. Most
 * frames are not a burst's (blocking sends, collectives); a burst's send is timed apart
 * (overheads: `burstSend`).
 */
async function streamOnce(bytes: number, window: number): Promise<number> {
  const data = big.subarray(0, bytes);
  const into = sink.subarray(0, bytes);
  await comm.barrier();
  const t0 = wtime();
  const requests: Request<unknown>[] = [];
  if (comm.rank === 0) {
    for (let i = 0; i < window; i++) requests.push(comm.irsend(data, peer, 2));
    await waitAll(requests);
    await comm.recvInto(ack, peer, 3);
  } else {
    for (let i = 0; i < window; i++) requests.push(comm.irecvInto(into, peer, 2));
    await waitAll(requests);
    await comm.send(ack, peer, 3);
  }
  return wtime() - t0;
}

async function streamPeriod(bytes: number): Promise<number> {
  const short = Math.max(2, Math.min(32, Math.floor((8 << 20) / Math.max(bytes, 65536))));
  const periods: number[] = [];
  await streamOnce(bytes, short);
  // From 4 MiB a batch streams 6 such messages (tens of milliseconds): five batches do.
  for (let b = 0; b < (bytes >= 4 << 20 ? Math.min(5, batches) : batches); b++) {
    const t1 = await streamOnce(bytes, short);
    const t2 = await streamOnce(bytes, 2 * short);
    periods.push(Math.max(0, (t2 - t1) / short));
  }
  return mean(periods);
}

/**
 * CPU seconds of one nonblocking send call, and of receiving a message that has arrived (eager
 * sizes); then of an `isend` that continues a burst: the first of a burst goes at once, those after
 * it may be held back by the link and written together at the rank's next poll (publish-batch.ts),
 * so each call costs less and their write is paid once, outside the calls timed.
 */
async function overheads(bytes: number): Promise<{ send: number; recv: number; burstSend: number }> {
  const data = big.subarray(0, bytes);
  const into = sink.subarray(0, bytes);
  // Few enough that they fit the shared-memory ring at once (no waiting for room).
  const count = Math.max(1, Math.min(32, Math.floor((256 << 10) / (bytes + 64))));
  const sends: number[] = [];
  const recvs: number[] = [];
  const bursts: number[] = [];
  for (let b = -1; b < batches; b++) {
    await comm.barrier();
    if (comm.rank === 0) {
      const requests: Request<unknown>[] = [];
      const t0 = wtime();
      for (let i = 0; i < count; i++) requests.push(comm.irsend(data, peer, 10 + i));
      const t1 = wtime();
      await waitAll(requests);
      if (b >= 0) sends.push((t1 - t0) / count);
      // Bursts are timed where several sends fit at once (the eager sizes the fit takes them from).
      if (count < 2) continue;
      requests.length = 0;
      requests.push(comm.isend(data, peer, BURST_TAG));
      const t2 = wtime();
      for (let i = 1; i < count; i++) requests.push(comm.isend(data, peer, BURST_TAG + i));
      const t3 = wtime();
      await waitAll(requests);
      if (b >= 0) bursts.push((t3 - t2) / (count - 1));
    } else {
      // Once the last is here, every earlier one is (a pair's messages arrive in order).
      await comm.probe(peer, 10 + count - 1);
      const t0 = wtime();
      for (let i = 0; i < count; i++) await comm.recvInto(into, peer, 10 + i);
      if (b >= 0) recvs.push((wtime() - t0) / count);
      if (count >= 2) for (let i = 0; i < count; i++) await comm.recvInto(into, peer, BURST_TAG + i);
    }
  }
  // Rank 1 tells rank 0 its figure.
  if (comm.rank === 1) {
    await comm.send(new Float64Array([median(recvs)]), peer, 4);
    return { send: 0, recv: 0, burstSend: 0 };
  }
  const recv = await comm.recv<Float64Array>(peer, 4);
  const send = median(sends);
  return { send, recv: recv[0]!, burstSend: bursts.length > 0 ? median(bursts) : send };
}

/** Flop/s of the calibration's compute kernel (kernel-chain.ts), the median of 5 runs of ~20 ms. */
function computeSpeed(): number {
  const speeds = chainFlops(wtime, 4_000_000, 5);
  // Under `tsmpi sim --compute declared` the kernel takes no virtual time: no figure (0).
  return speeds.length === 0 ? 0 : median(speeds);
}

/**
 * Seconds per round trip of a 16-byte ping-pong, chunk by chunk, from the ranks' first message,
 * and each chunk's end as the count of frames the rank sent (as many as it received; a 2-rank
 * barrier before each chunk but the first adds one). The first round trip follows no barrier: that would make
 * the first contact itself. Rank 0 waits first, so its peer is already in its receive.
 */
async function coldCurve(tail: number): Promise<{ cold: number[]; coldFrames: number[] }> {
  const data = big.subarray(0, 16);
  const into = sink.subarray(0, 16);
  const cold: number[] = [];
  const coldFrames: number[] = [];
  let frames = 0;
  for (const [k, trips] of coldChunks(tail).entries()) {
    if (k === 0) {
      if (comm.rank === 0) await new Promise((resolve) => setTimeout(resolve, FIRST_CONTACT_DELAY_MS));
      cold.push(2 * (await pingPongTimed(data, into, trips)));
    } else {
      cold.push(2 * (await pingPongBatch(data, into, trips)));
      frames += 1;
    }
    frames += trips;
    coldFrames.push(frames);
  }
  return { cold, coldFrames };
}

/**
 * Chunks of 100 round trips after the doubling ones, for a sized curve: between threads a 64 KiB
 * ping-pong kept slowing down now and then, as the functions of its path turned hot one by one,
 * for 2000-2500 round trips after the 16-byte curve (30-100 us against 12 warm).
 */
const SIZED_COLD_TAIL_CHUNKS = 36;

/**
 * The `cold-BYTES` experiment, on fresh ranks: the 16-byte curve first (that path warm, as a
 * program's small messages make it), then a ping-pong of `bytes` timed in the same chunks
 * ({@link coldChunks}), and each chunk's end as the count of frames of that size a rank sent
 * (as many as it received; the barriers' frames are small).
 */
async function sizedColdExperiment(bytes: number): Promise<void> {
  await coldCurve(quick ? 8 : COLD_TAIL_CHUNKS);
  const data = big.subarray(0, bytes);
  const into = sink.subarray(0, bytes);
  const cold: number[] = [];
  const coldFrames: number[] = [];
  let frames = 0;
  for (const trips of coldChunks(quick ? 12 : SIZED_COLD_TAIL_CHUNKS)) {
    cold.push(2 * (await pingPongBatch(data, into, trips)));
    frames += trips;
    coldFrames.push(frames);
  }
  if (comm.rank === 0 && out !== undefined) writeFileSync(out, `${JSON.stringify({ bytes, cold, coldFrames })}\n`);
}

/** CPU seconds of a test() of a receive nothing matches yet, and of a fruitless iprobe (rank 0's). */
async function pollCosts(): Promise<{ test: number; iprobe: number }> {
  const calls = quick ? 2000 : 20000;
  const one = new Uint8Array(1);
  await comm.barrier();
  if (comm.rank === 1) {
    await comm.recvInto(one, peer, 5);
    await comm.send(one, peer, 6);
    return { test: 0, iprobe: 0 };
  }
  const pending = comm.irecvInto(one, peer, 6);
  const tests: number[] = [];
  const probes: number[] = [];
  let seen = 0;
  for (let b = -1; b < batches; b++) {
    let t0 = wtime();
    for (let i = 0; i < calls; i++) if (pending.test()) seen++;
    if (b >= 0) tests.push((wtime() - t0) / calls);
    t0 = wtime();
    for (let i = 0; i < calls; i++) if (comm.iprobe(peer, 7) !== undefined) seen++;
    if (b >= 0) probes.push((wtime() - t0) / calls);
  }
  if (seen !== 0) throw new Error('a poll found a message nobody sent');
  await comm.send(one, peer, 5);
  await pending.wait();
  return { test: median(tests), iprobe: median(probes) };
}

/** One-way time of a 16-byte ping-pong, warmed up (the `wake` experiment). */
async function wakeExperiment(): Promise<void> {
  // Every receive here wakes a sleeping rank (--spin-us 0): warm up, then the median of batches.
  const data = big.subarray(0, 16);
  const into = sink.subarray(0, 16);
  await pingPongBatch(data, into, 3000);
  const times: number[] = [];
  for (let b = 0; b < 9; b++) times.push(await pingPongBatch(data, into, 400));
  if (comm.rank === 0 && out !== undefined) writeFileSync(out, `${JSON.stringify({ oneWay: mean(times) })}\n`);
}

/**
 * The `sleep` experiment (two processes, run with TSMPI_SOCKET_SPIN_US=0): the 16-byte ping-pong
 * with every receiver asleep in the kernel, and the CPU the processes spend per round trip then.
 */
async function sleepExperiment(): Promise<void> {
  const data = big.subarray(0, 16);
  const into = sink.subarray(0, 16);
  // A long warm-up: around the 2500th round trip two fresh processes often share a core for a
  // while, where a wake-up costs a fraction of one on an idle core (docs/simulator.md, the
  // machine's two states); the steady state is apart.
  await pingPongBatch(data, into, quick ? 2000 : 5000);
  const times: number[] = [];
  for (let b = 0; b < 9; b++) times.push(await pingPongBatch(data, into, quick ? 150 : 400));
  const cpuPerRoundTrip = await pathCpu();
  if (comm.rank === 0 && out !== undefined) writeFileSync(out, `${JSON.stringify({ oneWay: mean(times), cpuPerRoundTrip })}\n`);
}

/**
 * Each batch of the ring experiments: at most `laps` laps, and none begun after `seconds`; the
 * last batch is timed. The bound in time keeps a slow spell from stretching the calibration: a
 * token goes round 8 processes on 2 cores several times slower than round 8 threads, and on a
 * busy host 3 times slower again (203-251 us per hop against 73-80, the ring of 8 processes then
 * 12-19 s of a run). The processes' rings keep the shorter form they had.
 */
const RING_FORMS: Readonly<Record<string, readonly { laps: number; seconds: number }[]>> = {
  ring: [
    { laps: 2000, seconds: 2 },
    { laps: 2000, seconds: 2 },
    { laps: 2000, seconds: 2 },
    { laps: 2000, seconds: 2 },
  ],
  crowded: [
    { laps: 3000, seconds: 2.5 },
    { laps: 1500, seconds: 1.5 },
  ],
  'crowded-quick': [
    { laps: 1000, seconds: 0.8 },
    { laps: 500, seconds: 0.5 },
  ],
};

/**
 * Seconds per hop of a token passed around every rank, warm: batches of laps ({@link RING_FORMS}),
 * a barrier before each, the last one timed. Warm means the JIT is done, so that what the
 * calibration keeps beyond the simulated ring is the hand-off alone (the simulator compiles each
 * rank's code itself): 4 rank threads on 2 cores took 45, 36, 11, 6 and 4 us per hop in five
 * batches of 2000 laps, 8 took 76, 39, 12, 11 and 9, where the 7 batches of 150 laps after 3000
 * that this took before read 36-70 us. Long batches: each
 * begins with every rank released by a barrier at once, queued for the cores together, which
 * short ones over-weigh (processes: 150-lap batches of 4 on 2 cores read 35-123 us per hop, a
 * 1050-lap one 42). Rank 0 alone decides when a batch ends, by the token's value (1 on its last
 * lap), so every rank stops after the same lap without another message.
 */
async function ringExperiment(): Promise<void> {
  const right = (comm.rank + 1) % comm.size;
  const left = (comm.rank - 1 + comm.size) % comm.size;
  const token = new Float64Array(1);
  const lap = async ({ laps, seconds }: { laps: number; seconds: number }): Promise<{ hop: number; laps: number }> => {
    await comm.barrier();
    const t0 = wtime();
    let done = 0;
    if (comm.rank === 0) {
      for (let last = false; !last; ) {
        done++;
        last = done >= laps || wtime() - t0 >= seconds;
        token[0] = last ? 1 : 0;
        await comm.send(token, right);
        await comm.recvInto(token, left);
      }
    } else {
      for (let last = false; !last; ) {
        await comm.recvInto(token, left);
        last = token[0] === 1;
        done++;
        await comm.send(token, right);
      }
    }
    return { hop: (wtime() - t0) / done / comm.size, laps: done };
  };
  // Every batch's hop and laps go into the file too (`batches`, `laps`), to see the warm-up.
  const batches: number[] = [];
  const laps: number[] = [];
  for (const form of RING_FORMS[experiment]!) {
    const batch = await lap(form);
    batches.push(batch.hop);
    laps.push(batch.laps);
  }
  if (comm.rank === 0 && out !== undefined) writeFileSync(out, `${JSON.stringify({ hop: batches.at(-1), ranks: comm.size, batches, laps })}\n`);
}

/**
 * CPU seconds (user + system) a process spends per round trip of a warm 16-byte ping-pong, the
 * mean of the two ranks'. Between processes this is the TCP path's work (system calls, waking,
 * the socket's JavaScript), which the one-way time holds besides the calls' own costs; in threads
 * the process is shared and calibrate does not use the figure.
 */
async function pathCpu(): Promise<number> {
  const data = big.subarray(0, 16);
  const into = sink.subarray(0, 16);
  const trips = quick ? 2000 : 5000;
  await pingPongBatch(data, into, 200);
  await comm.barrier();
  const before = process.cpuUsage();
  await pingPongBatch(data, into, trips);
  const used = process.cpuUsage(before);
  const mine = (used.user + used.system) / 1e6 / trips;
  return (await comm.allreduce(mine, Op.sum)) / comm.size;
}

/**
 * Seconds per call of a warm 16-byte exchange: ranks 0 and 1 each send to the other and receive
 * from it at once (sendrecv), call after call, as a 2-rank collective's step does. What it takes
 * beyond the calls' own costs is work a lone message never waits for (calibrate: afterSend).
 */
async function exchangeTime(): Promise<number> {
  const data = big.subarray(0, 16);
  const into = sink.subarray(0, 16);
  const peer = comm.rank === 0 ? 1 : comm.rank === 1 ? 0 : -1;
  const calls = quick ? 1000 : 3000;
  const run = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) if (peer >= 0) await comm.sendrecvInto(data, peer, into, peer, 2, 2);
  };
  // sendrecv's own path is new to the ranks here: it runs its first thousands of calls slower
  // (measured between processes: 35 us a call after 300, 20 once warm).
  await run(quick ? 1000 : 5000);
  await comm.barrier();
  const t0 = wtime();
  await run(calls);
  return (wtime() - t0) / calls;
}

/** The sweep of sizes, the fresh ranks' curve, poll costs and compute speed (`full`, `quick`). */
async function sweep(): Promise<void> {
  // First, while the ranks are fresh: what their first messages cost.
  const { cold, coldFrames } = await coldCurve(quick ? 8 : COLD_TAIL_CHUNKS);
  // The whole path warms up first (compiled code, the peers' wake-ups), or the first size pays
  // it; largest first, since small messages right after large ones run slow for a few dozen
  // round trips (measured: 0.4-0.9 ms one-way after a 1 MiB ping-pong, against 3 us).
  for (const bytes of [1 << 20, 65536, 1024, 0]) await pingPongBatch(big.subarray(0, bytes), sink.subarray(0, bytes), bytes > 65536 ? 5 : 200);
  // Then small messages until they settle: after the large ones the first thousands of round trips
  // still run slow (`settle`, batch by batch: between threads 59-67 us one way, then 14-22, then
  // 1.6-1.8; between processes 105 us, then 27-76), which the smallest sizes, measured first, took
  // as their figure (0 B between threads read 4.9 us where it settles at 0.7-0.8).
  const settle: number[] = [];
  for (let b = 0; b < SETTLE_BATCHES; b++) settle.push(await pingPongBatch(big.subarray(0, 0), sink.subarray(0, 0), quick ? 200 : 500));
  const figures: Figures[] = [];
  const total = PROBE_SIZES.length + 1;
  for (const [i, bytes] of PROBE_SIZES.entries()) {
    const { oneWay, firstBatch } = await pingPong(bytes);
    const period = await streamPeriod(bytes);
    const { send, recv, burstSend } = await overheads(bytes);
    figures.push({ bytes, oneWay, firstBatch, streamPeriod: period, send, recv, burstSend });
    if (comm.rank === 0) console.log(`progress ${i + 1} ${total}`);
  }
  const polls = await pollCosts();
  const cpuPerRoundTrip = await pathCpu();
  const exchange = await exchangeTime();
  const speed = comm.rank === 0 ? computeSpeed() : 0;
  if (comm.rank === 0) {
    console.log(`progress ${total} ${total}`);
    const settings = comm.settings;
    const result = { figures, speed, eagerLimit: settings.eagerLimit, tcpEagerLimit: settings.tcpEagerLimit, cold, coldFrames, polls, cpuPerRoundTrip, exchange, settle };
    if (out !== undefined) writeFileSync(out, `${JSON.stringify(result)}\n`);
  }
}

/**
 * The `link` experiment (3 ranks): what a new link costs. Ranks 0 and 1 warm up together, then
 * ranks 1 and 2; then ranks 0 and 2, warm but never linked, time their first round trip (a link
 * opened each way) and then warm ones. No barrier runs before: it would link them first.
 */
async function linkExperiment(): Promise<void> {
  const warmUp = quick ? 400 : 800;
  await roundTripsBetween(0, 1, warmUp);
  await roundTripsBetween(1, 2, warmUp);
  const go = big.subarray(0, 1);
  if (comm.rank === 1) {
    await comm.send(go, 0, 2);
    await comm.send(go, 2, 2);
  } else await comm.recvInto(sink.subarray(0, 1), 1, 2);
  if (comm.rank === 0) await new Promise((resolve) => setTimeout(resolve, FIRST_CONTACT_DELAY_MS));
  const first = await roundTripsBetween(0, 2, 1);
  const warm = await roundTripsBetween(0, 2, quick ? 100 : 300);
  if (comm.rank === 0 && out !== undefined) writeFileSync(out, `${JSON.stringify({ first, warm })}\n`);
}

/** The fresh ranks' curve alone (the `cold` experiment: calibrate runs it under the simulator too). */
async function coldExperiment(): Promise<void> {
  const curve = await coldCurve(quick ? 8 : COLD_TAIL_CHUNKS);
  if (comm.rank === 0 && out !== undefined) writeFileSync(out, `${JSON.stringify(curve)}\n`);
}

if (experiment === 'wake') await wakeExperiment();
else if (experiment === 'sleep' || experiment === 'sleep-quick') await sleepExperiment();
else if (experiment === 'cold' || experiment === 'cold-quick') await coldExperiment();
else if (sizedCold !== null) await sizedColdExperiment(Number(sizedCold[1]));
else if (experiment === 'ring' || experiment.startsWith('crowded')) await ringExperiment();
else if (experiment === 'link') await linkExperiment();
else await sweep();
await comm.barrier();
