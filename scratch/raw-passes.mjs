import { fork } from 'node:child_process';
import { createServer, connect } from 'node:net';
const bytes = Number(process.argv[2] ?? 65536), per = 200, passes = 12;
function reader(socket) {
  let pending = null; const queue = []; let queued = 0;
  socket.on('data', (c) => { queue.push(c); queued += c.length; drain(); });
  function drain() {
    while (pending && queued >= pending.need - pending.got) { take(pending.need - pending.got); const d = pending; pending = null; d.resolve(); }
    if (pending && queued > 0) take(queued);
  }
  function take(n) { while (n > 0) { const h = queue[0]; const k = Math.min(n, h.length); h.copy(pending.into, pending.got, 0, k); pending.got += k; n -= k; queued -= k; if (k === h.length) queue.shift(); else queue[0] = h.subarray(k); } }
  return (need, into) => new Promise((r) => { pending = { need, got: 0, into, resolve: r }; drain(); });
}
const buf = Buffer.alloc(bytes), into = Buffer.alloc(bytes);
if (process.env.ROLE === 'server') {
  createServer((s) => { s.setNoDelay(true); const read = reader(s); (async () => { for (let i = 0; i < per * passes; i++) { await read(bytes, into); s.write(buf); } })(); }).listen(0, '127.0.0.1', function () { process.send(this.address().port); });
} else {
  const child = fork(process.argv[1], process.argv.slice(2), { env: { ...process.env, ROLE: 'server' } });
  child.on('message', (port) => {
    const s = connect(port, '127.0.0.1', async () => {
      s.setNoDelay(true); const read = reader(s); const figs = [];
      for (let p = 0; p < passes; p++) { const t0 = performance.now(); for (let i = 0; i < per; i++) { s.write(buf); await read(bytes, into); } figs.push(((performance.now() - t0) * 1000 / per / 2).toFixed(1)); }
      console.log('raw pingpong', bytes, figs.join(' ')); s.destroy(); child.kill();
    });
  });
}
