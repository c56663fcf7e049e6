// Two Node processes on bare loopback sockets exchange blocks (each writes one, then waits for
// the other's), 40 chunks of 100 exchanges: each chunk's mean time per exchange in us. The
// bare-socket twin of bench/ranks/exchange-warmup.ts.
//   node bench/lib/raw-exchange.mjs [BYTES]
import { fork } from 'node:child_process';
import net from 'node:net';

const bytes = Number(process.argv[2] ?? 65536);
const EXCHANGES = 4000;

function exchange(socket, report) {
  socket.setNoDelay(true);
  const block = Buffer.alloc(bytes);
  const chunks = [];
  let done = 0;
  let pending = 0;
  let chunkStart = process.hrtime.bigint();
  socket.on('data', (data) => {
    pending += data.length;
    while (pending >= bytes) {
      pending -= bytes;
      if (++done % 100 === 0) {
        const now = process.hrtime.bigint();
        chunks.push((Number(now - chunkStart) / 1e5).toFixed(0));
        chunkStart = now;
      }
      if (done === EXCHANGES) {
        report?.(chunks);
        socket.end();
        return;
      }
      socket.write(block);
    }
  });
  socket.write(block);
}

if (process.argv[3] === 'peer') {
  const socket = net.connect(Number(process.argv[4]), '127.0.0.1', () => exchange(socket));
} else {
  const server = net.createServer((socket) => {
    server.close();
    exchange(socket, (chunks) => console.log(`${bytes} B blocks, bare Node sockets: us per exchange, chunks of 100: ${chunks.join(' ')}`));
  });
  server.listen(0, '127.0.0.1', () => fork(new URL(import.meta.url).pathname, [String(bytes), 'peer', String(server.address().port)]));
}
