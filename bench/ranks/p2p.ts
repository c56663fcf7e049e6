/**
 * Rank program of the point-to-point benchmarks; the same schedule as bench/peers/p2p.c.
 *   tsmpi run -n 2 bench/ranks/p2p.ts pingpong|stream|rate|exchange <bytes>...
 * Rank 0 prints one JSON line per size. With BENCH_ALLOC_MEM=1 the buffers come from allocMem. The C peer needs no JIT warm-up and skips the untimed pass.
 */
import { Op, allocMem, init, waitAll, wtime, type Request } from 'tsmpi';

const comm = await init();
const mode = process.argv[2] ?? 'pingpong';
const sizes = process.argv.slice(3).map(Number);
// BENCH_ALLOC_MEM=1: the message buffers from allocMem (memory the process's rank threads share).
const bytesOf = (length: number): Uint8Array => (process.env.BENCH_ALLOC_MEM === '1' ? allocMem(Uint8Array, length) : new Uint8Array(length));
const buffer = bytesOf(Math.max(1, ...sizes)).fill(1);
const ack = new Uint8Array(4);
const WINDOW = 64;
// BENCH_MIN_TIMED_MS: the ping-pong's timed loop lasts at least this long (more round trips, the
// same for both ranks): a loop of a few ms may fit between two of the scheduler's turns and
// miss a busy neighbour (bench noisy), as a long program would not. The C peer reads it too.
const MIN_TIMED_SECONDS = Number(process.env.BENCH_MIN_TIMED_MS ?? 0) / 1000;

// The timed functions return their figure and the caller prints it: a branch on `report` inside
// the timed loop's function is first taken in the report pass, and its deoptimization slowed the
// first size timed after it by 2-3x (1 B one way 1.5 us against 0.6 us as the second size).

// The timed loops are functions of their own, warmed by the batches of the warm-up and then called
// once for the timed pass: a loop that awaits is never replaced by V8 while it runs, so a loop
// entered once runs in the tier its function had when entered (the interpreter, for a function
// called a few times). Measured on the collectives: a 2-rank bcast of one double 1.4-1.6 us per
// call in a timed loop of its own, 0.4-0.7 us through a function the warm-up had run.

/** `n` round trips of `view` between ranks 0 and 1. */
async function roundTrips(view: Uint8Array, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (comm.rank === 0) {
      await comm.send(view, 1, 1);
      await comm.recvInto(view, 1, 1);
    } else if (comm.rank === 1) {
      await comm.recvInto(view, 0, 1);
      await comm.send(view, 0, 1);
    }
  }
}

/** The warm-up: `step(count)` for `total` calls in all, in batches of `batch` (at least 1). */
async function warmUp(total: number, batch: number, step: (count: number) => Promise<void>): Promise<void> {
  const size = Math.max(1, Math.floor(batch));
  for (let done = 0; done < total; done += size) await step(Math.min(size, total - done));
}

/** One-way microseconds of a ping-pong of `bytes`, after a warm-up. */
async function pingpong(bytes: number): Promise<number> {
  const iters = bytes >= 1 << 20 ? 50 : 10_000;
  const view = buffer.subarray(0, bytes);
  // Small messages warm up for 3 times the timed count: they keep getting faster for their first
  // ~30,000 round trips while V8 compiles the path (measured: 1.1 us one way after 11,000, 0.5-0.8
  // us after 40,000). Larger ones are bound by copies, not by the JIT.
  const warm = bytes <= 1024 ? 3 * iters : Math.floor(iters / 10) + 1;
  await comm.barrier();
  await warmUp(warm, iters / 10, (count) => roundTrips(view, count));
  const trips = MIN_TIMED_SECONDS > 0 ? await tripsFor(view, iters) : iters;
  await comm.barrier();
  const t0 = wtime();
  await roundTrips(view, trips);
  return ((wtime() - t0) / trips / 2) * 1e6;
}

/** At least `iters` round trips, and as many as last MIN_TIMED_SECONDS at the warm rate (both ranks agree). */
async function tripsFor(view: Uint8Array, iters: number): Promise<number> {
  const probe = Math.max(1, Math.floor(iters / 10));
  const t0 = wtime();
  await roundTrips(view, probe);
  const perTrip = Math.max(1e-9, (wtime() - t0) / probe);
  return comm.allreduce(Math.max(iters, Math.ceil(MIN_TIMED_SECONDS / perTrip)), Op.max);
}

/** `n` windows of WINDOW sends of `view` from rank 0 to rank 1, each acknowledged. */
async function windows(view: Uint8Array, n: number, tag: number): Promise<void> {
  const requests: Request<unknown>[] = new Array(WINDOW);
  for (let w = 0; w < n; w++) {
    if (comm.rank === 0) {
      for (let i = 0; i < WINDOW; i++) requests[i] = comm.isend(view, 1, tag);
      await waitAll(requests);
      await comm.recvInto(ack, 1, tag + 1);
    } else if (comm.rank === 1) {
      for (let i = 0; i < WINDOW; i++) requests[i] = comm.irecvInto(view, 0, tag);
      await waitAll(requests);
      await comm.send(ack, 0, tag + 1);
    }
  }
}

/** Seconds of `count` windows of `bytes`, after `warm` windows. */
async function windowed(bytes: number, count: number, warm: number, tag: number): Promise<number> {
  const view = buffer.subarray(0, bytes);
  await comm.barrier();
  await warmUp(warm, warm / 10, (n) => windows(view, n, tag));
  await comm.barrier();
  const t0 = wtime();
  await windows(view, count, tag);
  return wtime() - t0;
}

/** GB/s of windows of `bytes`. */
async function stream(bytes: number): Promise<number> {
  const windows = bytes >= 16 << 20 ? 5 : bytes >= 1 << 20 ? 20 : 200;
  const seconds = await windowed(bytes, windows, 2, 2);
  return (bytes * WINDOW * windows) / seconds / 1e9;
}

/** Messages per second in windows of `bytes`. */
async function rate(bytes: number): Promise<number> {
  const windows = 20_000;
  const seconds = await windowed(bytes, windows, 2000, 4);
  return (WINDOW * windows) / seconds;
}

/** `n` exchanges of `view` into `into` with the other rank. */
async function exchanges(view: Uint8Array, into: Uint8Array, n: number): Promise<void> {
  const peer = 1 - comm.rank;
  for (let i = 0; i < n; i++) {
    const send = comm.isend(view, peer, 6);
    await comm.recvInto(into, peer, 6);
    await send.wait();
  }
}

/**
 * Both ranks start a send to the other, receive the other's message, then wait for the send: the
 * peer's message often arrives before its receive is posted, and waits as an unexpected message.
 */
async function exchange(bytes: number): Promise<number> {
  const iters = bytes >= 64 << 10 ? 2000 : 20_000;
  const view = buffer.subarray(0, bytes);
  const into = bytesOf(Math.max(1, bytes));
  const warm = bytes <= 1024 ? iters : Math.floor(iters / 10) + 1;
  await comm.barrier();
  await warmUp(warm, iters / 10, (n) => exchanges(view, into, n));
  await comm.barrier();
  const t0 = wtime();
  await exchanges(view, into, iters);
  return ((wtime() - t0) / iters) * 1e6;
}

// The whole schedule runs once untimed first: V8 compiles the hot paths in background threads,
// which two spinning ranks on two cores slow down (8-byte latency is ~20x worse while cold).
for (const report of [false, true]) {
  for (const bytes of sizes) {
    let record: object;
    if (mode === 'pingpong') {
      const us = await pingpong(bytes);
      record = { bench: 'pingpong', bytes, oneWayUs: us, gbps: bytes / us / 1e3 };
    } else if (mode === 'stream') record = { bench: 'stream', bytes, gbps: await stream(bytes) };
    else if (mode === 'exchange') record = { bench: 'exchange', bytes, us: await exchange(bytes) };
    else record = { bench: 'rate', bytes, msgsPerSec: await rate(bytes) };
    if (report && comm.rank === 0) console.log(JSON.stringify(record));
  }
}
