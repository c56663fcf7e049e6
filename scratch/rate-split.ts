import { init, waitAll, type Request } from 'tsmpi';
const comm = await init();
const WINDOW = 64;
const view = new Uint8Array(8);
const ack = new Uint8Array(4);
const t = [0, 0, 0];
async function windows(n: number, timed: boolean): Promise<void> {
  const requests: Request<unknown>[] = new Array(WINDOW);
  for (let w = 0; w < n; w++) {
    const a = performance.now();
    if (comm.rank === 0) {
      for (let i = 0; i < WINDOW; i++) requests[i] = comm.isend(view, 1, 4);
      const b = performance.now();
      await waitAll(requests);
      const c = performance.now();
      await comm.recvInto(ack, 1, 5);
      if (timed) { t[0] += b - a; t[1] += c - b; t[2] += performance.now() - c; }
    } else {
      for (let i = 0; i < WINDOW; i++) requests[i] = comm.irecvInto(view, 0, 4);
      const b = performance.now();
      await waitAll(requests);
      const c = performance.now();
      await comm.send(ack, 0, 5);
      if (timed) { t[0] += b - a; t[1] += c - b; t[2] += performance.now() - c; }
    }
  }
}
for (let i = 0; i < 20; i++) await windows(200, false);
await comm.barrier();
const t0 = performance.now();
await windows(20000, true);
const total = performance.now() - t0;
const per = (x: number) => ((x / 20000 / WINDOW) * 1e6).toFixed(1);
console.log(`rank ${comm.rank}: ns/msg total ${per(total)} | ${comm.rank === 0 ? 'isends' : 'irecvs'} ${per(t[0]!)} waitAll ${per(t[1]!)} ack ${per(t[2]!)}`);
