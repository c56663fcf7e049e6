/**
 * The collectives of a replayed trace, decomposed into point-to-point messages exactly as
 * SimGrid 3.32's default selector does during a replay (`--collectives simgrid`), so that a
 * trace replays with SimGrid's timing and not with tsmpi's own algorithms:
 *
 * | collective | SimGrid's choice in a replay |
 * |---|---|
 * | barrier | ompi basic linear: ranks > 0 send 0 B to rank 0 then receive from it; rank 0 receives from all, then sends to all |
 * | bcast | binomial tree, a blocking receive from the parent, then blocking sends to the children, largest subtree first |
 * | reduce | flat and non-blocking: every other rank sends its whole buffer to the root |
 * | allreduce | that reduce to rank 0, then the binomial bcast from rank 0 |
 * | alltoall | Open MPI's decision on ranks and bytes per pair: basic linear, pairwise (powers of two only) or Bruck |
 * | alltoallv, gather(v), scatter(v), allgather(v) | non-blocking linear: every message posted at once, in increasing rank order |
 * | reducescatter | equal blocks: reduce of the whole vector to rank 0, then scatterv; unequal: MPICH's recursive halving (up to 524288 elements in all) or pairwise exchange |
 *
 * Reductions and local copies cost no time in SimGrid's replay; the reduction flops of a trace
 * line are computed by the replayer after the collective. Payloads are views of the replayer's
 * phantom buffers: nothing is allocated per message. Blocking sends return as the protocol
 * settings say: `tsmpi sim --replay` sets SMPI's (every transfer waits for its receive; sends
 * below 65536 B are detached and return at once, TSMPI_DETACH_LIMIT).
 */
import type { Communicator } from '../../comm/communicator.js';
import type { CollectiveCall } from '../../comm/collectives/call.js';
import { waitAll, type Request } from '../../comm/request.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { simgridAlltoallAlgorithm } from '../../comm/collectives/select.js';
import type { Action } from './actions.js';
import type { PhantomPayload } from './replayer.js';

type Bytes = (n: number) => Uint8Array;

/** MPICH's reduce_scatter takes the pairwise exchange above this many elements in all. */
const MPICH_PAIRWISE_ABOVE = 524288;

/**
 * MPICH's recursive-halving ("rdb") reduce_scatter: at distance mask = 1, 2, 4, ... a rank
 * exchanges with rank XOR mask every block outside its current subtree; when the rank count is
 * not a power of two, the ranks whose partner did not exist get the result from one that has it.
 */
async function recursiveHalvingReduceScatter(call: CollectiveCall, blocks: readonly number[], view: Bytes, sink: Bytes): Promise<void> {
  const { rank, size } = call;
  // Bytes of blocks [0, a) and [b, size).
  const prefix = [0];
  for (const b of blocks) prefix.push(prefix[prefix.length - 1]! + b);
  const outside = (a: number, b: number): number => prefix[Math.min(a, size)]! + (b < size ? prefix[size]! - prefix[b]! : 0);
  for (let mask = 1, i = 0; mask < size; mask <<= 1, i++) {
    const dst = rank ^ mask;
    const dstRoot = (dst >> i) << i;
    const myRoot = (rank >> i) << i;
    const sendBytes = outside(myRoot, myRoot + mask);
    const recvBytes = outside(dstRoot, dstRoot + mask);
    if (dst < size) await call.sendrecvBytes(view(sendBytes), dst, sink(recvBytes), dst);
    if (dstRoot + mask > size) {
      const done = size - myRoot - mask;
      for (let t = mask >> 1, k = i; t > 0; t >>= 1, k--) {
        const peer = rank ^ t;
        const root = (rank >> k) << k;
        if (peer > rank && rank < root + done && peer >= root + done) await call.send(view(recvBytes), peer).wait();
        else if (peer < rank && peer < root + done && rank >= root + done) await call.recvInto(sink(recvBytes), peer).wait();
      }
    }
  }
}

async function barrier(call: CollectiveCall, view: Bytes, sink: Bytes): Promise<void> {
  const { rank, size } = call;
  if (size === 1) return;
  if (rank > 0) {
    await call.send(view(0), 0).wait();
    await call.recvInto(sink(0), 0).wait();
    return;
  }
  const receives: Request<unknown>[] = [];
  for (let r = 1; r < size; r++) receives.push(call.recvInto(sink(0), r));
  await waitAll(receives);
  const sends: Request<unknown>[] = [];
  for (let r = 1; r < size; r++) sends.push(call.send(view(0), r));
  await waitAll(sends);
}

async function binomialBcast(call: CollectiveCall, bytes: number, root: number, view: Bytes, sink: Bytes): Promise<void> {
  const { rank, size } = call;
  const relative = (rank - root + size) % size;
  let mask = 1;
  while (mask < size) {
    if (relative & mask) {
      await call.recvInto(sink(bytes), (rank - mask + size) % size).wait();
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (relative + mask < size) await call.send(view(bytes), (rank + mask) % size).wait();
    mask >>= 1;
  }
}

/** SimGrid's flat reduce: every other rank sends its whole buffer to the root (a gather of equal blocks). */
function flatReduce(call: CollectiveCall, bytes: number, root: number, view: Bytes, sink: Bytes): Promise<void> {
  return linearGather(call, bytes, () => bytes, root, view, sink);
}

async function alltoall(call: CollectiveCall, sendBytes: number, recvBytes: number, view: Bytes, sink: Bytes): Promise<void> {
  const { rank, size } = call;
  if (size === 1) return;
  const algorithm = simgridAlltoallAlgorithm(size, sendBytes);
  if (algorithm === 'basic-linear') {
    const requests: Request<unknown>[] = [];
    for (let i = (rank + 1) % size; i !== rank; i = (i + 1) % size) requests.push(call.recvInto(sink(recvBytes), i));
    for (let i = (rank - 1 + size) % size; i !== rank; i = (i - 1 + size) % size) requests.push(call.send(view(sendBytes), i));
    await waitAll(requests);
    return;
  }
  if (algorithm === 'pairwise') {
    if ((size & (size - 1)) !== 0) {
      throw new TsmpiError(ErrorCode.Arg, `alltoall of ${sendBytes} bytes per pair on ${size} ranks: SimGrid 3.32 picks its pairwise algorithm here, which needs a power-of-two number of ranks (SimGrid's replay aborts too)`, {
        rank,
        operation: 'tsmpi sim --replay',
        hint: 'replay with --collectives tsmpi, or on a power-of-two number of ranks',
      });
    }
    for (let i = 1; i < size; i++) {
      const peer = rank ^ i;
      await call.sendrecvBytes(view(sendBytes), peer, sink(recvBytes), peer);
    }
    return;
  }
  // Bruck: log2(n) rounds; round k sends the blocks whose index has bit k set.
  for (let pof2 = 1; pof2 < size; pof2 *= 2) {
    let blocks = 0;
    for (let b = 1; b < size; b++) if (b & pof2) blocks++;
    await call.sendrecvBytes(view(blocks * sendBytes), (rank + pof2) % size, sink(blocks * recvBytes), (rank - pof2 + size) % size);
  }
}

/** Receives from every other rank, then sends to every other rank, all in flight at once. */
async function linearExchange(call: CollectiveCall, sendTo: (r: number) => number, receiveFrom: (r: number) => number, view: Bytes, sink: Bytes, interleaved: boolean): Promise<void> {
  const { rank, size } = call;
  const requests: Request<unknown>[] = [];
  if (interleaved) {
    // allgather(v): a send then a receive per peer, in increasing rank order.
    for (let r = 0; r < size; r++) {
      if (r === rank) continue;
      requests.push(call.send(view(sendTo(r)), r));
      requests.push(call.recvInto(sink(receiveFrom(r)), r));
    }
  } else {
    for (let r = 0; r < size; r++) if (r !== rank) requests.push(call.recvInto(sink(receiveFrom(r)), r));
    for (let r = 0; r < size; r++) if (r !== rank) requests.push(call.send(view(sendTo(r)), r));
  }
  await waitAll(requests);
}

async function linearGather(call: CollectiveCall, sendBytes: number, receiveFrom: (r: number) => number, root: number, view: Bytes, sink: Bytes): Promise<void> {
  const { rank, size } = call;
  if (rank !== root) {
    await call.send(view(sendBytes), root).wait();
    return;
  }
  const receives: Request<unknown>[] = [];
  for (let r = 0; r < size; r++) if (r !== root) receives.push(call.recvInto(sink(receiveFrom(r)), r));
  await waitAll(receives);
}

async function linearScatter(call: CollectiveCall, sendTo: (r: number) => number, recvBytes: number, root: number, view: Bytes, sink: Bytes): Promise<void> {
  const { rank, size } = call;
  if (rank !== root) {
    await call.recvInto(sink(recvBytes), root).wait();
    return;
  }
  const sends: Request<unknown>[] = [];
  for (let r = 0; r < size; r++) if (r !== root) sends.push(call.send(view(sendTo(r)), r));
  await waitAll(sends);
}

/**
 * Runs one collective action of a trace as SimGrid 3.32's default selector decomposes it.
 * Returns false for an action that is not a collective.
 */
export async function replaySimgridCollective(comm: Communicator, action: Action, payload: PhantomPayload): Promise<boolean> {
  const view: Bytes = (n) => payload.view(n);
  const sink: Bytes = (n) => payload.sinkOf(n);
  const size = comm.size;
  switch (action.op) {
    case 'barrier':
      await barrier(comm.collectiveCall('barrier'), view, sink);
      return true;
    case 'bcast':
      if (size > 1) await binomialBcast(comm.collectiveCall('bcast'), action.bytes, action.root, view, sink);
      return true;
    case 'reduce':
      if (size > 1) await flatReduce(comm.collectiveCall('reduce'), action.bytes, action.root, view, sink);
      return true;
    case 'allreduce':
      if (size > 1) {
        await flatReduce(comm.collectiveCall('reduce'), action.bytes, 0, view, sink);
        await binomialBcast(comm.collectiveCall('bcast'), action.bytes, 0, view, sink);
      }
      return true;
    case 'alltoall':
      await alltoall(comm.collectiveCall('alltoall'), action.sendBytes, action.recvBytes, view, sink);
      return true;
    case 'alltoallv':
      if (size > 1) await linearExchange(comm.collectiveCall('alltoallv'), (r) => action.sendBytes[r]!, (r) => action.recvBytes[r]!, view, sink, false);
      return true;
    case 'allgather':
      if (size > 1) await linearExchange(comm.collectiveCall('allgather'), () => action.sendBytes, () => action.recvBytes, view, sink, true);
      return true;
    case 'allgatherv':
      if (size > 1) await linearExchange(comm.collectiveCall('allgatherv'), () => action.sendBytes, (r) => action.recvBytes[r]!, view, sink, true);
      return true;
    case 'gather':
      if (size > 1) await linearGather(comm.collectiveCall('gather'), action.sendBytes, () => action.recvBytes, action.root, view, sink);
      return true;
    case 'gatherv':
      if (size > 1) await linearGather(comm.collectiveCall('gatherv'), action.sendBytes, (r) => action.recvBytes[r]!, action.root, view, sink);
      return true;
    case 'scatter':
      if (size > 1) await linearScatter(comm.collectiveCall('scatter'), () => action.sendBytes, action.recvBytes, action.root, view, sink);
      return true;
    case 'scatterv':
      if (size > 1) await linearScatter(comm.collectiveCall('scatterv'), (r) => action.sendBytes[r]!, action.recvBytes, action.root, view, sink);
      return true;
    case 'reducescatter': {
      if (size === 1) return true;
      const blocks = action.recvBytes;
      if (blocks.every((b) => b === blocks[0])) {
        let total = 0;
        for (const b of blocks) total += b;
        await flatReduce(comm.collectiveCall('reduce'), total, 0, view, sink);
        await linearScatter(comm.collectiveCall('scatterv'), (r) => blocks[r]!, blocks[comm.rank]!, 0, view, sink);
        return true;
      }
      const call = comm.collectiveCall('reducescatter');
      const rank = comm.rank;
      let total = 0;
      for (const b of blocks) total += b;
      if (total / (action.elementBytes ?? 1) <= MPICH_PAIRWISE_ABOVE) {
        await recursiveHalvingReduceScatter(call, blocks, view, sink);
        return true;
      }
      // MPICH's pairwise exchange: step i sends the block of rank + i and receives this rank's from rank - i.
      for (let i = 1; i < size; i++) {
        const dst = (rank + i) % size;
        await call.sendrecvBytes(view(blocks[dst]!), dst, sink(blocks[rank]!), (rank - i + size) % size);
      }
      return true;
    }
    default:
      return false;
  }
}
