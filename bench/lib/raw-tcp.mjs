// Baseline of the TCP benchmark: the same ping-pong and streaming schedules over a plain Node
// TCP connection on 127.0.0.1 between two processes (Nagle off), each side copying what it
// receives into a preallocated buffer, as an MPI receive would. Prints the JSON lines of
// bench/ranks/p2p.ts.   node raw-tcp.mjs pingpong|stream <bytes>...
import { fork } from 'node:child_process';
import { createServer, connect } from 'node:net';

const [mode, ...sizeArgs] = process.argv.slice(2);
const sizes = sizeArgs.map(Number);
const WINDOW = 64;

/** Reads exactly n bytes into `into` (or discards them), then resolves. */
function reader(socket) {
  let pending = null;
  const queue = [];
  let queued = 0;
  socket.on('data', (chunk) => {
    queue.push(chunk);
    queued += chunk.length;
    drain();
  });
  function drain() {
    while (pending && queued >= pending.need - pending.got) {
      take(pending.need - pending.got);
      const done = pending;
      pending = null;
      done.resolve();
    }
    if (pending && queued > 0) take(queued);
  }
  function take(n) {
    while (n > 0) {
      const head = queue[0];
      const k = Math.min(n, head.length);
      if (pending.into) head.copy(pending.into, pending.got % pending.into.length, 0, k);
      pending.got += k;
      n -= k;
      queued -= k;
      if (k === head.length) queue.shift();
      else queue[0] = head.subarray(k);
    }
  }
  return (need, into) => new Promise((resolve) => {
    pending = { need, got: 0, into, resolve };
    drain();
  });
}

if (process.argv[1] && process.env.RAW_TCP_ROLE === 'server') {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    const read = reader(socket);
    const buffer = Buffer.alloc(Math.max(...sizes, 4));
    (async () => {
      for (const report of [false, true]) {
        for (const bytes of sizes) {
          if (mode === 'pingpong') {
            const iters = bytes >= 1 << 20 ? 50 : 10_000;
            for (let pass = 0; pass < 2; pass++) {
              const n = pass === 0 ? Math.floor(iters / 10) + 1 : iters;
              for (let i = 0; i < n; i++) {
                await read(bytes, buffer);
                socket.write(buffer.subarray(0, bytes));
              }
            }
          } else {
            const windows = bytes >= 16 << 20 ? 5 : bytes >= 1 << 20 ? 20 : 200;
            for (let w = 0; w < windows + 2; w++) {
              await read(bytes * WINDOW, buffer);
              socket.write(Buffer.alloc(4));
            }
          }
        }
        void report;
      }
      socket.end();
      server.close();
    })();
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  const child = fork(process.argv[1], process.argv.slice(2), { env: { ...process.env, RAW_TCP_ROLE: 'server' } });
  const port = await new Promise((resolve) => child.once('message', resolve));
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.setNoDelay(true);
  const read = reader(socket);
  const buffer = Buffer.alloc(Math.max(...sizes, 4)).fill(1);
  for (const report of [false, true]) {
    for (const bytes of sizes) {
      if (mode === 'pingpong') {
        const iters = bytes >= 1 << 20 ? 50 : 10_000;
        let us = 0;
        for (let pass = 0; pass < 2; pass++) {
          const n = pass === 0 ? Math.floor(iters / 10) + 1 : iters;
          const t0 = performance.now();
          for (let i = 0; i < n; i++) {
            socket.write(buffer.subarray(0, bytes));
            await read(bytes, buffer);
          }
          us = ((performance.now() - t0) / n / 2) * 1000;
        }
        if (report) console.log(JSON.stringify({ bench: 'pingpong', bytes, oneWayUs: us, gbps: bytes / us / 1e3 }));
      } else {
        const windows = bytes >= 16 << 20 ? 5 : bytes >= 1 << 20 ? 20 : 200;
        let t0 = 0;
        for (let w = 0; w < windows + 2; w++) {
          if (w === 2) t0 = performance.now();
          for (let i = 0; i < WINDOW; i++) socket.write(buffer.subarray(0, bytes));
          await read(4, null);
        }
        const seconds = (performance.now() - t0) / 1000;
        if (report) console.log(JSON.stringify({ bench: 'stream', bytes, gbps: (bytes * WINDOW * windows) / seconds / 1e9 }));
      }
    }
  }
  socket.end();
}
