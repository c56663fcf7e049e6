// The floor of a small message between two JavaScript threads behind an async API: a ping-pong
// through one SharedArrayBuffer, each side copying the payload in, publishing a sequence number
// (its own cache line), spinning for the other's, copying it out, and awaiting once per send and
// once per receive as a program's `await comm.send(...)` / `await comm.recvInto(...)` do; no
// frames, matching, requests or waiting beyond the spin.
// Prints JSON lines as bench/ranks/p2p.ts pingpong does.   node bare-pingpong.mjs <bytes>...
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const ITERS = 10_000;
const WARM = 30_000;

if (isMainThread) {
  const sizes = process.argv.slice(2).map(Number);
  for (const bytes of sizes) {
    const sab = new SharedArrayBuffer(256 + 2 * Math.max(8, bytes));
    const run = (side) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: { sab, side, bytes } });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    const [ms] = await Promise.all([run(0), run(1)]);
    console.log(JSON.stringify({ bench: 'pingpong', bytes, oneWayUs: (ms * 1000) / ITERS / 2 }));
  }
} else {
  const { sab, side, bytes } = workerData;
  const seq = new Int32Array(sab, 0, 64); // [0]: side 0's count, [32]: side 1's (own cache lines)
  const box = [new Uint8Array(sab, 256, bytes), new Uint8Array(sab, 256 + Math.max(8, bytes), bytes)];
  const mine = side === 0 ? 0 : 32;
  const theirs = side === 0 ? 32 : 0;
  const payload = new Uint8Array(bytes).fill(side + 1);
  const into = new Uint8Array(bytes);
  const send = (i) => {
    box[side].set(payload);
    Atomics.store(seq, mine, i);
  };
  const receive = (i) => {
    while (Atomics.load(seq, theirs) < i);
    into.set(box[1 - side]);
  };
  async function loop(from, to) {
    for (let i = from; i < to; i++) {
      if (side === 0) {
        send(i);
        await 0;
        receive(i);
        await 0;
      } else {
        receive(i);
        await 0;
        send(i);
        await 0;
      }
    }
  }
  await loop(1, WARM + 1);
  const t0 = performance.now();
  await loop(WARM + 1, WARM + ITERS + 1);
  parentPort.postMessage(performance.now() - t0);
}
