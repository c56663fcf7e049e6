// Baseline of bench/ranks/crowded-chunks.ts pairs: 4 plain Node processes trade 8 bytes with rank
// XOR 2^r in each round r over loopback TCP (Nagle off), from their start, no tsmpi; rank 0
// prints each chunk of 250 iterations in us per round. What fresh processes sharing the cores
// cost in Node and the kernel alone.   node bench/lib/raw-pairs.mjs [CHUNKS]
import { fork } from 'node:child_process';
import { connect, createServer } from 'node:net';

const RANKS = 4;
const ROUNDS = 2;
const LAPS = 250;
const chunks = Number(process.argv[2] ?? 14);

if (process.env.RAW_PAIRS_RANK === undefined) {
  const children = Array.from({ length: RANKS }, (_, r) => fork(process.argv[1], process.argv.slice(2), { env: { ...process.env, RAW_PAIRS_RANK: String(r) } }));
  const ports = await Promise.all(children.map((c) => new Promise((resolve) => c.once('message', resolve))));
  for (const c of children) c.send(ports);
  await Promise.all(children.map((c) => new Promise((resolve) => c.once('exit', resolve))));
} else {
  const rank = Number(process.env.RAW_PAIRS_RANK);
  // Messages that arrived from each peer and not yet taken, and who waits for the next one.
  const inbox = Array.from({ length: RANKS }, () => ({ count: 0, waiter: null }));
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let from = -1;
    socket.on('data', (bytes) => {
      let at = 0;
      if (from < 0) from = bytes[at++];
      const box = inbox[from];
      box.count += (bytes.length - at) / 8;
      if (box.waiter !== null && box.count > 0) {
        box.count--;
        const wake = box.waiter;
        box.waiter = null;
        wake();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send(server.address().port);
  const ports = await new Promise((resolve) => process.once('message', resolve));
  const out = [];
  for (let r = 0; r < RANKS; r++) {
    if (r === rank) continue;
    const socket = connect(ports[r], '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.from([rank]));
    out[r] = socket;
  }
  const receive = (from) =>
    new Promise((resolve) => {
      const box = inbox[from];
      if (box.count > 0) {
        box.count--;
        resolve();
      } else box.waiter = resolve;
    });
  const message = Buffer.alloc(8);
  const iteration = async () => {
    for (let r = 0; r < ROUNDS; r++) {
      const partner = rank ^ (1 << r);
      out[partner].write(message);
      await receive(partner);
    }
  };
  const perChunk = [];
  for (let c = 0; c < chunks; c++) {
    await iteration(); // lines the ranks up, as a barrier would
    const t0 = performance.now();
    for (let i = 0; i < LAPS; i++) await iteration();
    perChunk.push((((performance.now() - t0) * 1000) / (LAPS * ROUNDS)).toFixed(1));
  }
  if (rank === 0) console.log(`raw pairs us per round: ${perChunk.join(' ')}`);
  await iteration();
  for (const socket of out) socket?.end();
  server.close();
}
