/**
 * Neighbour collectives (MPI_Neighbor_allgather, _alltoall and their v forms): every rank sends
 * to its out-neighbours and receives from its in-neighbours only, all messages posted at once.
 * Neighbours that are PROC_NULL are skipped (their slots come back undefined, or with 0 elements).
 *
 * The same rank can be a neighbour several times: on a periodic dimension of size 1 or 2 a rank's
 * left and right neighbours are one rank. MPI-4 says the message a rank sends down a dimension
 * lands in the receiver's "from above" slot, so order alone cannot tell the slots apart: each
 * edge of a topology travels on a channel (a collective call handle, with a tag of its own), and
 * a plan says on which channel each in-slot receives. Several edges on one channel between the
 * same pair (a distributed graph's repeated edges) match in order, as MPI's do.
 */
import { allocateLike, bytesOf, encodeValue, type Encoded, type TypedArray } from '../codec.js';
import type { CollectiveCall } from '../collectives/call.js';
import type { Concatenated } from '../collectives/gather.js';
import type { Communicator } from '../communicator.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { PROC_NULL } from '../matching.js';
import type { Request, Status } from '../request.js';
import type { Steps } from '../collectives/steps.js';

/** Who a rank exchanges with in a neighbour collective, and on which channel each edge travels. */
export interface NeighborPlan {
  /** In-neighbours (communicator ranks, or PROC_NULL), in the topology's order. */
  readonly sources: readonly number[];
  /** Out-neighbours (communicator ranks, or PROC_NULL), in the topology's order. */
  readonly destinations: readonly number[];
  /** The channel each in-slot receives on: the one its sender uses for that edge. */
  readonly sourceChannels: readonly number[];
  /** The channel each out-slot sends on. */
  readonly destChannels: readonly number[];
  /** Number of channels (>= 1): every rank of the communicator must have the same. */
  readonly channels: number;
}

export type NeighborOperation = 'neighborAllgather' | 'neighborAllgatherv' | 'neighborAlltoall' | 'neighborAlltoallv';

/**
 * One collective call per channel, taken in the same order on every rank; `first`, when given, is
 * channel 0 (a nonblocking call's own), so both forms take as many calls. Taken when the call is
 * made, not when its steps first run: a nonblocking call's steps may start later (after an
 * argument check), and two calls in flight would otherwise take them in different orders.
 */
export function channelCalls(comm: Communicator, operation: NeighborOperation, plan: NeighborPlan, first?: CollectiveCall): CollectiveCall[] {
  return Array.from({ length: plan.channels }, (_, i) => (i === 0 && first !== undefined ? first : comm.collectiveCall(operation)));
}

function worldRank(comm: Communicator): number {
  return comm.worldRankOf(comm.rank);
}

/** Posts a receive per non-null in-neighbour (undefined slots for PROC_NULL). */
function postReceives<T>(calls: readonly CollectiveCall[], plan: NeighborPlan): (Request<T> | undefined)[] {
  return plan.sources.map((source, i) => (source === PROC_NULL ? undefined : calls[plan.sourceChannels[i]!]!.recv<T>(source)));
}

/** Waits for every request; returns the receives' results by slot (undefined for PROC_NULL). */
function* finish<T>(receives: readonly (Request<T> | undefined)[], sends: readonly Request<void>[]): Steps<(T | undefined)[]> {
  yield [...receives.filter((r): r is Request<T> => r !== undefined), ...sends];
  return receives.map((r) => r?.takeNow());
}

export function* neighborAllgather<T>(comm: Communicator, plan: NeighborPlan, calls: readonly CollectiveCall[], value: T): Steps<(T | undefined)[]> {
  // Encoded once for every out-neighbour; before any receive is posted, so that a value that
  // cannot be encoded fails the call without leaving receives behind.
  let encoded: Encoded | undefined;
  if (plan.destinations.some((d) => d !== PROC_NULL)) encoded = encodeValue(value, worldRank(comm), 'neighborAllgather');
  const receives = postReceives<T>(calls, plan);
  const sends: Request<void>[] = [];
  plan.destinations.forEach((dest, i) => {
    if (dest !== PROC_NULL) sends.push(calls[plan.destChannels[i]!]!.sendEncoded(encoded!, dest));
  });
  return yield* finish(receives, sends);
}

export function* neighborAlltoall<T>(comm: Communicator, plan: NeighborPlan, calls: readonly CollectiveCall[], values: readonly T[]): Steps<(T | undefined)[]> {
  const outdegree = plan.destinations.length;
  if (!Array.isArray(values) || values.length !== outdegree) {
    throw new TsmpiError(ErrorCode.Count, `neighborAlltoall needs ${outdegree} values (values[i] goes to out-neighbour i), got ${Array.isArray(values) ? values.length : typeof values}`, {
      rank: worldRank(comm),
      operation: 'neighborAlltoall',
      hint: `pass an array of length ${outdegree} (outNeighbors().length)`,
    });
  }
  const receives = postReceives<T>(calls, plan);
  const sends: Request<void>[] = [];
  plan.destinations.forEach((dest, i) => {
    if (dest !== PROC_NULL) sends.push(calls[plan.destChannels[i]!]!.send(values[i], dest));
  });
  return yield* finish(receives, sends);
}

export function* neighborAllgatherv<A extends TypedArray>(comm: Communicator, plan: NeighborPlan, calls: readonly CollectiveCall[], data: A, recvCounts?: readonly number[]): Steps<Concatenated<A>> {
  const operation = 'neighborAllgatherv';
  checkTyped(comm, data, operation);
  if (recvCounts !== undefined) checkSlotCounts(comm, recvCounts, plan.sources.length, operation, 'recvCounts', 'in-neighbour');
  const sends = (): Request<void>[] => {
    const out: Request<void>[] = [];
    plan.destinations.forEach((dest, i) => {
      if (dest !== PROC_NULL) out.push(calls[plan.destChannels[i]!]!.send(data, dest));
    });
    return out;
  };
  return yield* (recvCounts === undefined ? receiveValues(comm, calls, plan, data, sends, operation) : receiveInto(comm, calls, plan, data, recvCounts, sends, operation));
}

export function* neighborAlltoallv<A extends TypedArray>(
  comm: Communicator,
  plan: NeighborPlan,
  calls: readonly CollectiveCall[],
  data: A,
  sendCounts: readonly number[],
  recvCounts?: readonly number[],
): Steps<Concatenated<A>> {
  const operation = 'neighborAlltoallv';
  checkTyped(comm, data, operation);
  checkSlotCounts(comm, sendCounts, plan.destinations.length, operation, 'sendCounts', 'out-neighbour');
  const sendDispls = displacementsOf(sendCounts);
  const total = sendDispls[sendCounts.length] ?? 0;
  if (total !== data.length) {
    throw new TsmpiError(ErrorCode.Count, `sendCounts add up to ${total} but the data has ${data.length} elements`, {
      rank: worldRank(comm),
      operation,
      hint: 'sendCounts must add up to the length of the data (block i goes to out-neighbour i)',
    });
  }
  if (recvCounts !== undefined) checkSlotCounts(comm, recvCounts, plan.sources.length, operation, 'recvCounts', 'in-neighbour');
  const sends = (): Request<void>[] => {
    const out: Request<void>[] = [];
    plan.destinations.forEach((dest, i) => {
      if (dest !== PROC_NULL) out.push(calls[plan.destChannels[i]!]!.send(data.subarray(sendDispls[i]!, sendDispls[i + 1]!), dest));
    });
    return out;
  };
  return yield* (recvCounts === undefined ? receiveValues(comm, calls, plan, data, sends, operation) : receiveInto(comm, calls, plan, data, recvCounts, sends, operation));
}

/**
 * Counts unknown: each in-neighbour's block arrives as a typed array of its own and is copied
 * into place (one round, no exchange of counts first).
 */
function* receiveValues<A extends TypedArray>(
  comm: Communicator,
  calls: readonly CollectiveCall[],
  plan: NeighborPlan,
  like: A,
  sends: () => Request<void>[],
  operation: string,
): Steps<Concatenated<A>> {
  const receives = postReceives<unknown>(calls, plan);
  const blocks = yield* finish(receives, sends());
  const counts = blocks.map((block, i) => {
    if (block === undefined) return 0;
    if (!ArrayBuffer.isView(block) || block.constructor !== like.constructor) {
      throw new TsmpiError(ErrorCode.Type, `in-neighbour ${plan.sources[i]} sent ${describe(block)} where this rank passed a ${like.constructor.name}`, {
        rank: worldRank(comm),
        operation,
        hint: 'every rank must pass the same kind of typed array',
      });
    }
    return (block as A).length;
  });
  const displs = displacementsOf(counts);
  const out = allocateLike(like, displs[counts.length]!);
  blocks.forEach((block, i) => {
    if (block !== undefined) out.set(block as A as never, displs[i]!);
  });
  return { data: out, counts, displs: displs.slice(0, counts.length) };
}

/**
 * Counts known: each block is received straight into its place (a PROC_NULL neighbour's place
 * stays zero); a block shorter than its count is an error, a longer one ERR_TRUNCATE.
 */
function* receiveInto<A extends TypedArray>(
  comm: Communicator,
  calls: readonly CollectiveCall[],
  plan: NeighborPlan,
  like: A,
  recvCounts: readonly number[],
  sends: () => Request<void>[],
  operation: string,
): Steps<Concatenated<A>> {
  const displs = displacementsOf(recvCounts);
  const out = allocateLike(like, displs[recvCounts.length]!);
  const parts = recvCounts.map((count, i) => bytesOf(out.subarray(displs[i]!, displs[i]! + count)));
  const receives = plan.sources.map((source, i) => (source === PROC_NULL ? undefined : calls[plan.sourceChannels[i]!]!.recvInto(parts[i]!, source)));
  const statuses = yield* finish<Status>(receives, sends());
  statuses.forEach((status, i) => {
    if (status !== undefined && status.bytes !== parts[i]!.byteLength) {
      throw new TsmpiError(ErrorCode.Count, `in-neighbour ${plan.sources[i]} sent ${status.bytes} bytes where recvCounts[${i}] = ${recvCounts[i]} elements (${parts[i]!.byteLength} bytes) were expected`, {
        rank: worldRank(comm),
        operation,
        hint: 'recvCounts[i] must be the number of elements in-neighbour i sends this rank, or leave recvCounts out',
      });
    }
  });
  return { data: out, counts: [...recvCounts], displs: displs.slice(0, recvCounts.length) };
}

/** Offsets of consecutive blocks of `counts` elements, and the total at index counts.length. */
function displacementsOf(counts: readonly number[]): number[] {
  const displs = new Array<number>(counts.length + 1);
  displs[0] = 0;
  for (let i = 0; i < counts.length; i++) displs[i + 1] = displs[i]! + counts[i]!;
  return displs;
}

function checkTyped(comm: Communicator, data: unknown, operation: string): void {
  if (!ArrayBuffer.isView(data) || data instanceof DataView) {
    throw new TsmpiError(ErrorCode.Type, 'the data is not a typed array', {
      rank: worldRank(comm),
      operation,
      hint: `pass a typed array (e.g. Float64Array); use ${operation.slice(0, -1)} for other values`,
    });
  }
}

function checkSlotCounts(comm: Communicator, counts: readonly number[], slots: number, operation: string, name: string, slot: string): void {
  if (!Array.isArray(counts) || counts.length !== slots || !counts.every((c) => Number.isSafeInteger(c) && c >= 0)) {
    throw new TsmpiError(ErrorCode.Count, `${name} must be ${slots} non-negative integers, one per ${slot}`, {
      rank: worldRank(comm),
      operation,
      hint: `pass an array of length ${slots} (${slot === 'in-neighbour' ? 'inNeighbors' : 'outNeighbors'}().length)`,
    });
  }
}

function describe(value: unknown): string {
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return value === null ? 'null' : `a ${typeof value}`;
}
