/**
 * Rank program of the send-modes benchmark; the schedule of bench/peers/modes.c. Part 1, on 2
 * ranks: one-way latency (half a ping-pong) of a standard send, a synchronous one, a buffered one
 * (through an attached buffer), a ready one (its receive posted first, with a barrier per round
 * in both programs), and a standard send received by a matched probe
 * (mprobe + recv), per size. Part 2, on every rank: microseconds per communicator creation and
 * free (dup, idup + wait, split, create, createGroup, splitType SHARED). The schedule runs once
 * untimed first, so V8 has compiled the hot paths before anything is timed.
 *   tsmpi run -n N bench/ranks/modes.ts <bytes>...
 */
import { BSEND_OVERHEAD, COMM_TYPE_SHARED, attachBuffer, detachBuffer, init, type Communicator } from 'tsmpi';

const comm = await init();
const sizes = process.argv.slice(2).map(Number);
const most = Math.max(1, ...sizes);
const out = new Uint8Array(most).fill(7);
const into = new Uint8Array(most);
const MODES = ['send', 'ssend', 'bsend', 'rsend', 'mprobe'] as const;
type Mode = (typeof MODES)[number];
attachBuffer(2 * (most + BSEND_OVERHEAD));

function send(mode: Mode, data: Uint8Array, to: number): Promise<void> {
  if (mode === 'ssend') return comm.ssend(data, to, 0);
  if (mode === 'bsend') return comm.bsend(data, to, 0);
  if (mode === 'rsend') return comm.rsend(data, to, 0);
  return comm.send(data, to, 0);
}

async function receive(mode: Mode, buffer: Uint8Array, from: number): Promise<void> {
  if (mode === 'mprobe') await (await comm.mprobe(from, 0)).recvInto(buffer);
  else await comm.recvInto(buffer, from, 0);
}

const creations: Record<string, (c: Communicator) => Promise<Communicator | undefined>> = {
  dup: (c) => c.dup(),
  idup: (c) => c.idup().wait(),
  split: (c) => c.split(0, c.rank),
  create: (c) => c.create(c.group),
  createGroup: (c) => c.createGroup(c.group),
  splitType: (c) => c.splitType(COMM_TYPE_SHARED),
};

/** One-way microseconds of `mode` at `bytes` (2 ranks). */
async function latency(mode: Mode, bytes: number): Promise<number> {
  const iters = bytes >= 64 << 10 ? 500 : 20_000;
  const data = out.subarray(0, bytes);
  const buffer = into.subarray(0, bytes);
  const peer = 1 - comm.rank;
  let t0 = 0;
  // A tenth of the rounds untimed first, right before (as the pingpong bench does).
  const warm = Math.floor(iters / 10);
  await comm.barrier();
  for (let i = -warm; i < iters; i++) {
    if (i === 0) t0 = performance.now();
    if (mode === 'rsend') {
      // The ready mode: the receive is posted before the peer's send can start (a barrier
      // per round, in both programs).
      const pre = comm.irecvInto(buffer, peer, 0);
      await comm.barrier();
      if (comm.rank === 0) {
        await send(mode, data, peer);
        await pre.wait();
      } else {
        await pre.wait();
        await send(mode, data, peer);
      }
    } else if (comm.rank === 0) {
      await send(mode, data, peer);
      await receive(mode, buffer, peer);
    } else {
      await receive(mode, buffer, peer);
      await send(mode, data, peer);
    }
  }
  return ((performance.now() - t0) / iters / 2) * 1000;
}

// The timed loops return their figures and the callers print them: a branch on `report` beside a
// timed loop is first taken in the report pass, and its deoptimization slows what is timed next
// (see bench/ranks/p2p.ts).
async function latencies(report: boolean): Promise<void> {
  if (comm.size !== 2) return;
  for (const bytes of sizes) {
    for (const mode of MODES) {
      const us = await latency(mode, bytes);
      if (report && comm.rank === 0) console.log(JSON.stringify({ bench: mode, bytes, us }));
    }
  }
}

/** Microseconds per creation and free with `make`. */
async function creationTime(make: (c: Communicator) => Promise<Communicator | undefined>): Promise<number> {
  const iters = 200;
  await comm.barrier();
  const t0 = performance.now();
  for (let i = 0; i < iters; i++) (await make(comm))?.free();
  return ((performance.now() - t0) / iters) * 1000;
}

async function creationTimes(report: boolean): Promise<void> {
  for (const [name, make] of Object.entries(creations)) {
    const us = await creationTime(make);
    if (report && comm.rank === 0) console.log(JSON.stringify({ bench: name, us }));
  }
}

// Untimed: creations, then latencies; timed: latencies, then creations. The timed latencies so
// follow latencies, not the creations' garbage (a collection of it inside a 10 ms loop of small
// messages doubled their figure).
await creationTimes(false);
await latencies(false);
await latencies(true);
await creationTimes(true);
await detachBuffer();
