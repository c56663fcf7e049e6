// The ceiling of copy-in/copy-out: two worker threads, one SharedArrayBuffer ring of 64 KiB
// slots, a producer copying each 1 MiB message into it and a consumer copying it out, an atomic
// counter each way and nothing else (no frames, matching or waiting). tsmpi's shared-memory
// stream moves bytes the same way; Open MPI's large messages take one copy (CMA).
// Prints a JSON line as bench/ranks/p2p.ts stream does.   node bare-ring.mjs <bytes> [ringBytes]
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const SLOT = 64 * 1024;
const WINDOW = 64;
const WINDOWS = 20;

if (isMainThread) {
  const bytes = Number(process.argv[2] ?? 1 << 20);
  const ringBytes = Number(process.argv[3] ?? 1 << 20);
  const sab = new SharedArrayBuffer(ringBytes + 128);
  const run = (role) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { sab, role, bytes, ringBytes } });
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const [, ms] = await Promise.all([run('produce'), run('consume')]);
  console.log(JSON.stringify({ bench: 'stream', bytes, gbps: (bytes * WINDOW * WINDOWS) / (ms * 1e6) }));
} else {
  const { sab, role, bytes, ringBytes } = workerData;
  const counters = new Int32Array(sab, 0, 32); // [0]: slots written, [16]: slots read (own cache lines)
  const ring = Buffer.from(sab, 128, ringBytes);
  const slots = ringBytes / SLOT;
  const message = Buffer.alloc(bytes, role === 'produce' ? 7 : 0);
  const perMessage = Math.ceil(bytes / SLOT);
  // Warm-up pass, then the timed windows, as the p2p stream (its first two windows untimed).
  const total = perMessage * WINDOW * (WINDOWS + 2);
  let start = 0;
  for (let n = 0; n < total; n++) {
    if (n === perMessage * WINDOW * 2) start = performance.now();
    const at = (n % perMessage) * SLOT;
    const length = Math.min(SLOT, bytes - at);
    const slot = (n % slots) * SLOT;
    if (role === 'produce') {
      while (n - Atomics.load(counters, 16) >= slots);
      ring.set(message.subarray(at, at + length), slot);
      Atomics.store(counters, 0, n + 1);
    } else {
      while (Atomics.load(counters, 0) <= n);
      message.set(ring.subarray(slot, slot + length), at);
      Atomics.store(counters, 16, n + 1);
    }
  }
  parentPort.postMessage(performance.now() - start);
}
