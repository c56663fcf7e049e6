/**
 * An exchange against a ping-pong, warm: 2 ranks trade 8 bytes at once (sendrecvInto), or run an
 * allreduce of one double, or pass them back and forth, call after call; rank by rank it prints
 * microseconds per call and the process's CPU (user, system) per call meanwhile. Between
 * processes an exchange took about a whole round trip where the model of a lone message makes it
 * one one-way time: docs/simulator.md ("the sender's work after a frame has left") reads it.
 * Works under `tsmpi sim` too (the time is virtual there; the CPU the simulator's).
 *   tsmpi run|sim -n 2 [--procs] bench/ranks/exchange-calls.ts [calls] sendrecv|allreduce|pingpong
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const calls = Number(process.argv[2] ?? 20000);
const kind = process.argv[3] ?? 'sendrecv';
if (comm.size !== 2) throw new Error('exchange-calls: run it on 2 ranks');
const other = 1 - comm.rank;
const mine = new Float64Array(1);
const theirs = new Float64Array(1);

async function call(): Promise<void> {
  if (kind === 'sendrecv') await comm.sendrecvInto(mine, other, theirs, other, 0, 0);
  else if (kind === 'allreduce') await comm.allreduce(mine, Op.sum);
  else if (kind === 'pingpong') {
    if (comm.rank === 0) {
      await comm.send(mine, 1);
      await comm.recvInto(theirs, 1);
    } else {
      await comm.recvInto(theirs, 0);
      await comm.send(mine, 0);
    }
  } else throw new Error(`exchange-calls: no kind ${kind} (sendrecv, allreduce, pingpong)`);
}

async function run(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await call();
}

// Fresh ranks run their first thousands of calls slower: 8000 untimed ones first.
await run(8000);
await comm.barrier();
const cpu0 = process.cpuUsage();
const t0 = wtime();
await run(calls);
const seconds = wtime() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(`rank ${comm.rank} ${kind}: ${((seconds / calls) * 1e6).toFixed(2)} us a call, CPU user ${(cpu.user / calls).toFixed(2)} system ${(cpu.system / calls).toFixed(2)} us a call`);
