/**
 * Rank program of the init benchmark: init, a ring exchange and an allreduce among the members,
 * then one JSON line with what this rank holds: links, reserved rings, heap, process RSS and how
 * long init took from the launch.
 */
import { getHeapStatistics } from 'node:v8';
import { Op, communicationState, init } from 'tsmpi';

const launched = Number(process.env.TSMPI_LAUNCH_TIME_MS);
const comm = await init();
const initMs = performance.timeOrigin + performance.now() - launched;
if (comm.member) {
  const right = (comm.rank + 1) % comm.size;
  const left = (comm.rank - 1 + comm.size) % comm.size;
  await comm.sendrecv(comm.rank, right, left);
  await comm.allreduce(1, Op.sum);
}
const state = communicationState();
console.log(
  JSON.stringify({
    resource: Number(process.env.TSMPI_RESOURCE_ID),
    member: state.member,
    links: state.links,
    arenaBytes: state.arenaBytes,
    listening: state.listening,
    heapBytes: getHeapStatistics().used_heap_size,
    rssBytes: process.memoryUsage().rss,
    pid: process.pid,
    initMs,
  }),
);
