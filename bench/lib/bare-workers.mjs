// Baseline of the startup benchmark: spawn N bare worker threads, each importing a small ES module
// and posting 'ready'. Prints {"readyMs": first spawn -> N-th ready}.
import { Worker } from 'node:worker_threads';

const n = Number(process.argv[2] ?? 8);
const source = "import { parentPort } from 'node:worker_threads'; parentPort.postMessage('ready');";
const url = `data:text/javascript,${encodeURIComponent(source)}`;
const t0 = performance.now();
let ready = 0;
const workers = [];
for (let i = 0; i < n; i++) {
  const worker = new Worker(new URL(url));
  workers.push(worker);
  worker.on('message', () => {
    if (++ready === n) {
      console.log(JSON.stringify({ readyMs: performance.now() - t0 }));
      for (const w of workers) void w.terminate();
    }
  });
}
