// ring.ts: pass a token around the ring, then sum a vector over every rank (the README example).
import { init, Op, ANY_SOURCE } from 'tsmpi';

const comm = await init();
const right = (comm.rank + 1) % comm.size;
const left = (comm.rank - 1 + comm.size) % comm.size;

if (comm.rank === 0) await comm.send({ hops: 0 }, right);      // any value: encoded
const token = await comm.recv<{ hops: number }>(left);          // awaits the message
if (comm.rank !== 0) await comm.send({ hops: token.hops + 1 }, right);

const request = comm.irecv(ANY_SOURCE, 7);                      // non-blocking
await comm.send(new Float64Array([comm.rank]), comm.rank, 7);   // typed arrays: raw bytes
console.log(comm.rank, await request.wait(), request.status);

const sum = await comm.allreduce(new Float64Array(1000).fill(comm.rank), Op.sum);
if (comm.rank === 0) console.log(`hops ${token.hops}, sum[0] = ${sum[0]}`);
