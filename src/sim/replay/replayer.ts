/**
 * Replays a trace (or a generated workload) as a tsmpi program: each rank walks its action list
 * and performs every action on its own communicator, so a replayed trace exercises the runtime's
 * matching, eager and rendezvous protocols and collective algorithms exactly as a program would.
 *
 * Payloads are views of one zero-filled buffer shared by every rank (a trace has sizes, not data);
 * they travel as raw bytes. Compute and sleep are declared (the replayer's own JavaScript costs no
 * virtual time). Requests of isend/irecv are kept per rank in issue order; `wait src dst tag`
 * completes the oldest outstanding one with that triple, as SimGrid's replayer does.
 */
import type { Communicator } from '../../comm/communicator.js';
import { ANY_SOURCE as COMM_ANY_SOURCE, ANY_TAG as COMM_ANY_TAG } from '../../comm/communicator.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { Op } from '../../comm/ops.js';
import { waitAll, type Request } from '../../comm/request.js';
import { markNeverRead, markUnchanging } from '../../transport/copy-bytes.js';
import { ANY_SOURCE, ANY_TAG, COLLECTIVE_OPS, rootOf, type Action } from './actions.js';
import { replaySimgridCollective } from './simgrid-collectives.js';

interface Outstanding {
  src: number;
  dst: number;
  tag: number;
  request: Request<unknown>;
}

/**
 * Bytes to send from and to receive into, shared by all ranks: a trace has sizes, not data. The
 * send side is never written, so the simulated links need not copy it (markUnchanging); receives
 * of a known size land in a sink whose contents nobody reads, so nothing is copied there either
 * (markNeverRead).
 */
export class PhantomPayload {
  private source = new Uint8Array(0);
  private sink = new Uint8Array(0);

  /** A view of `bytes` bytes to send (zeros, never written). */
  view(bytes: number): Uint8Array {
    const n = Math.max(0, Math.floor(bytes));
    if (n > this.source.length) {
      this.source = new Uint8Array(Math.max(n, this.source.length * 2));
      markUnchanging(this.source.buffer);
    }
    return this.source.subarray(0, n);
  }

  /** A view of `bytes` bytes to receive into (its contents are garbage). */
  sinkOf(bytes: number): Uint8Array {
    const n = Math.max(0, Math.floor(bytes));
    if (n > this.sink.length) {
      this.sink = new Uint8Array(Math.max(n, this.sink.length * 2));
      markNeverRead(this.sink.buffer);
    }
    return this.sink.subarray(0, n);
  }
}

function sumBytes(list: readonly number[]): number {
  let total = 0;
  for (const b of list) total += b;
  return total;
}

function replayError(rank: number, index: number, action: Action, message: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, `action ${index + 1} of rank ${rank} (${action.op}): ${message}`, {
    rank,
    operation: 'tsmpi sim --replay',
    hint: 'the trace does not match a world of this size or misses a request: check it with the same -n it was recorded with',
  });
}

/**
 * Whose collective algorithms a replay runs: SimGrid 3.32's default selector's, decomposed into
 * point-to-point messages (simgrid-collectives.ts), or the runtime's own (`tsmpi`).
 */
export type ReplayCollectives = 'simgrid' | 'tsmpi';

/** Runs `actions` as rank `comm.rank` of the trace. */
export async function replayRank(comm: Communicator, actions: readonly Action[], payload: PhantomPayload, collectives: ReplayCollectives = 'tsmpi'): Promise<void> {
  const rank = comm.rank;
  const size = comm.size;
  const pending: Outstanding[] = [];
  const peer = (r: number, i: number, a: Action): number => {
    if (!Number.isInteger(r) || r < 0 || r >= size) throw replayError(rank, i, a, `rank ${r} is not in a world of ${size}`);
    return r;
  };
  const take = (src: number, dst: number, tag: number): Outstanding | undefined => {
    const at = pending.findIndex((p) => p.src === src && p.dst === dst && p.tag === tag);
    return at < 0 ? undefined : pending.splice(at, 1)[0];
  };
  for (let i = 0; i < actions.length; i++) {
    const a = actions[i]!;
    if (collectives === 'simgrid' && COLLECTIVE_OPS.has(a.op)) {
      const root = rootOf(a);
      if (root !== undefined) peer(root, i, a);
      await replaySimgridCollective(comm, a, payload);
      // SimGrid computes a reduction's flops after the collective, on every rank.
      if (a.op === 'reduce' || a.op === 'allreduce' || a.op === 'reducescatter') await comm.computeFlops(a.flops);
      continue;
    }
    switch (a.op) {
      case 'init':
      case 'finalize':
      case 'comm_size':
      case 'comm_split':
      case 'comm_dup':
      case 'location':
        break;
      case 'compute':
        await comm.computeFlops(a.flops);
        break;
      case 'sleep':
        await comm.compute(a.seconds);
        break;
      case 'send':
        await comm.send(payload.view(a.bytes), peer(a.dst, i, a), a.tag);
        break;
      case 'isend':
        pending.push({ src: rank, dst: a.dst, tag: a.tag, request: comm.isend(payload.view(a.bytes), peer(a.dst, i, a), a.tag) });
        break;
      case 'recv': {
        const src = a.src === ANY_SOURCE ? COMM_ANY_SOURCE : peer(a.src, i, a);
        const tag = a.tag === ANY_TAG ? COMM_ANY_TAG : a.tag;
        // A known size lands in the sink; an unknown one (size <= 0) is received as a new array.
        if (a.bytes > 0) await comm.recvInto(payload.sinkOf(a.bytes), src, tag);
        else await comm.recv(src, tag);
        break;
      }
      case 'irecv': {
        const src = a.src === ANY_SOURCE ? COMM_ANY_SOURCE : peer(a.src, i, a);
        const tag = a.tag === ANY_TAG ? COMM_ANY_TAG : a.tag;
        const request: Request<unknown> = a.bytes > 0 ? comm.irecvInto(payload.sinkOf(a.bytes), src, tag) : comm.irecv(src, tag);
        pending.push({ src: a.src, dst: rank, tag: a.tag, request });
        break;
      }
      case 'sendrecv': {
        // As SimGrid's Request::sendrecv: the send and the receive started together, tag 0, both awaited.
        const src = a.src === ANY_SOURCE ? COMM_ANY_SOURCE : peer(a.src, i, a);
        const sent = comm.isend(payload.view(a.sendBytes), peer(a.dst, i, a), 0);
        const received: Request<unknown> = a.recvBytes > 0 ? comm.irecvInto(payload.sinkOf(a.recvBytes), src, 0) : comm.irecv(src, 0);
        await waitAll([sent, received]);
        break;
      }
      case 'wait':
      case 'test': {
        const found = take(a.src, a.dst, a.tag);
        if (found === undefined) {
          if (a.op === 'test') break;
          throw replayError(rank, i, a, `no outstanding request (${a.src} -> ${a.dst}, tag ${a.tag})`);
        }
        if (a.op === 'wait') await found.request.wait();
        else if (!found.request.test()) pending.push(found);
        break;
      }
      case 'waitall':
        await waitAll(pending.splice(0).map((p) => p.request));
        break;
      case 'barrier':
        await comm.barrier();
        break;
      case 'bcast':
        await comm.bcast(rank === a.root ? payload.view(a.bytes) : undefined, peer(a.root, i, a));
        break;
      case 'reduce':
        await comm.reduce(payload.view(a.bytes), Op.sum, peer(a.root, i, a));
        await comm.computeFlops(a.flops);
        break;
      case 'allreduce':
        await comm.allreduce(payload.view(a.bytes), Op.sum);
        await comm.computeFlops(a.flops);
        break;
      case 'alltoall':
        await comm.alltoall(Array.from({ length: size }, () => payload.view(a.sendBytes)));
        break;
      case 'allgather':
        await comm.allgather(payload.view(a.sendBytes));
        break;
      case 'gather':
        await comm.gather(payload.view(a.sendBytes), peer(a.root, i, a));
        break;
      case 'scatter':
        await comm.scatter(rank === a.root ? Array.from({ length: size }, () => payload.view(a.sendBytes)) : undefined, peer(a.root, i, a));
        break;
      case 'gatherv':
        await comm.gatherv(payload.view(a.sendBytes), peer(a.root, i, a), rank === a.root ? a.recvBytes : undefined);
        break;
      case 'allgatherv':
        await comm.allgatherv(payload.view(a.sendBytes), a.recvBytes);
        break;
      case 'scatterv': {
        const root = peer(a.root, i, a);
        await comm.scatterv(rank === root ? payload.view(sumBytes(a.sendBytes)) : undefined, rank === root ? a.sendBytes : undefined, root);
        break;
      }
      case 'alltoallv':
        await comm.alltoallv(payload.view(sumBytes(a.sendBytes)), a.sendBytes, a.recvBytes);
        break;
      case 'reducescatter': {
        // A reduction of the whole vector, then each rank keeps its block: tsmpi has no
        // reduce_scatter collective, so it is replayed as SimGrid's default does (reduce + scatterv).
        const total = sumBytes(a.recvBytes);
        const reduced = await comm.reduce(payload.view(total), Op.sum, 0);
        await comm.scatterv(rank === 0 ? (reduced as Uint8Array) : undefined, rank === 0 ? a.recvBytes : undefined, 0);
        await comm.computeFlops(a.flops);
        break;
      }
    }
  }
  if (pending.length > 0) await waitAll(pending.splice(0).map((p) => p.request));
}
