/**
 * The schedules of an intercommunicator's collectives (intercommunicator.ts), as steps on the
 * collective communicator over the union of both groups, so that each runs blocking and
 * nonblocking alike. `remote` holds the union ranks of the other group, in its rank order.
 *
 * MPI's meaning: a rooted collective moves data between the root (which passes ROOT; its
 * group-mates pass PROC_NULL and take no part) and every rank of the other group; the
 * all-to-all kinds give each rank what every rank of the other group sent it, in that group's
 * rank order. Every message goes straight between the two ranks concerned.
 */
import { ErrorCode, TsmpiError } from '../../errors.js';
import type { TypedArray } from '../codec.js';
import type { ReduceOp } from '../ops.js';
import type { CollectiveCall } from './call.js';
import type { Concatenated } from './gather.js';
import type { Steps } from './steps.js';

/** Where this rank stands in a rooted collective: the root, a group-mate of the root, or the other group (the root's rank there). */
export type InterRoot = 'root' | 'idle' | number;

export function* interBcast<T>(call: CollectiveCall, remote: Int32Array, value: T, root: InterRoot): Steps<T | undefined> {
  if (root === 'root') {
    yield Array.from(remote, (union) => call.send(value, union));
    return undefined;
  }
  if (root === 'idle') return undefined;
  return (yield call.recv<T>(remote[root]!)) as T;
}

export function* interGather<T>(call: CollectiveCall, remote: Int32Array, value: T, root: InterRoot): Steps<T[] | undefined> {
  if (root === 'root') return yield* fromEvery<T>(call, remote);
  if (root !== 'idle') yield call.send(value, remote[root]!);
  return undefined;
}

export function* interScatter<T>(call: CollectiveCall, remote: Int32Array, values: readonly T[] | undefined, root: InterRoot): Steps<T | undefined> {
  if (root === 'root') {
    yield values!.map((value, i) => call.send(value, remote[i]!));
    return undefined;
  }
  if (root === 'idle') return undefined;
  return (yield call.recv<T>(remote[root]!)) as T;
}

export function* interReduce<T>(call: CollectiveCall, remote: Int32Array, value: T, op: ReduceOp, root: InterRoot): Steps<T | undefined> {
  if (root === 'root') return combineInOrder<T>(call, remote, yield* fromEvery<T>(call, remote), op);
  if (root !== 'idle') yield call.send(value, remote[root]!);
  return undefined;
}

/** Every rank of the other group's value, in its rank order. */
export function* interAllgather<T>(call: CollectiveCall, remote: Int32Array, value: T): Steps<T[]> {
  const receives = Array.from(remote, (union) => call.recv<T>(union));
  yield Array.from(remote, (union) => call.send(value, union));
  return yield* collect<T>(receives);
}

export function* interAllreduce<T>(call: CollectiveCall, remote: Int32Array, value: T, op: ReduceOp): Steps<T> {
  return combineInOrder<T>(call, remote, yield* interAllgather(call, remote, value), op);
}

/** `values[i]` to remote rank i; what each remote rank sent this one. */
export function* interAlltoall<T>(call: CollectiveCall, remote: Int32Array, values: readonly T[]): Steps<T[]> {
  const receives = Array.from(remote, (union) => call.recv<T>(union));
  yield values.map((value, i) => call.send(value, remote[i]!));
  return yield* collect<T>(receives);
}

/** The root (ROOT) gets every remote rank's array, concatenated in rank order with its counts. */
export function* interGatherv<A extends TypedArray>(call: CollectiveCall, remote: Int32Array, data: A | undefined, root: InterRoot): Steps<Concatenated<A> | undefined> {
  if (root === 'root') return concatenate(call, yield* fromEvery<A>(call, remote), undefined, undefined);
  if (root !== 'idle') yield call.send(data, remote[root]!);
  return undefined;
}

/** The root's `counts[i]` elements (in order) to remote rank i. */
export function* interScatterv<A extends TypedArray>(call: CollectiveCall, remote: Int32Array, data: A | undefined, counts: readonly number[] | undefined, root: InterRoot): Steps<A | undefined> {
  if (root === 'root') {
    const blocks = splitBlocks(call, data!, counts, remote.length);
    yield blocks.map((block, i) => call.send(block, remote[i]!));
    return undefined;
  }
  if (root === 'idle') return undefined;
  return (yield call.recv<A>(remote[root]!)) as A;
}

/** Every remote rank's array, concatenated in its rank order (into `into` when given). */
export function* interAllgatherv<A extends TypedArray>(call: CollectiveCall, remote: Int32Array, data: A, into: A | undefined): Steps<Concatenated<A>> {
  return concatenate(call, yield* interAllgather<A>(call, remote, data), data, into);
}

/** Block i of `data` (`sendCounts[i]` elements) to remote rank i; the blocks the remote ranks sent this one, concatenated. */
export function* interAlltoallv<A extends TypedArray>(call: CollectiveCall, remote: Int32Array, data: A, sendCounts: readonly number[], recvCounts: readonly number[] | undefined, into: A | undefined): Steps<Concatenated<A>> {
  const blocks = splitBlocks(call, data, sendCounts, remote.length);
  const result = concatenate(call, yield* interAlltoall<A>(call, remote, blocks), data, into);
  if (recvCounts !== undefined && recvCounts.some((count, i) => count !== result.counts[i])) {
    throw new TsmpiError(ErrorCode.Count, `the other group sent blocks of ${result.counts.join(', ')} elements where recvCounts said ${recvCounts.join(', ')}`, { rank: call.worldRank, operation: call.operation, hint: "recvCounts[i] is what rank i of the other group sends this rank: pass those counts, or none" });
  }
  return result;
}

/**
 * The other group's arrays combined element by element with `op` in its rank order; this rank
 * gets its block of the result: block i of every remote rank's array goes to rank i (equal
 * blocks, MPI_Reduce_scatter_block).
 */
export function* interReduceScatterBlock<A extends TypedArray>(call: CollectiveCall, remote: Int32Array, data: A, op: ReduceOp, into: A | undefined): Steps<A> {
  const arrived = yield* interAlltoall<A>(call, remote, splitBlocks(call, data, undefined, remote.length));
  return intoResult(call, combineInOrder<A>(call, remote, arrived, op), into);
}

/**
 * As {@link interReduceScatterBlock} with blocks of `counts` elements: this group's counts (every
 * rank passes the same), which the other group learns from this group's first rank.
 */
export function* interReduceScatter<A extends TypedArray>(call: CollectiveCall, remote: Int32Array, rank: number, data: A, counts: readonly number[], op: ReduceOp, into: A | undefined): Steps<A> {
  const countsArrive = call.recv<number[]>(remote[0]!);
  if (rank === 0) yield Array.from(remote, (union) => call.send(counts, union));
  const remoteCounts = (yield countsArrive) as number[];
  const arrived = yield* interAlltoall<A>(call, remote, splitBlocks(call, data, remoteCounts, remote.length));
  const reduced = combineInOrder<A>(call, remote, arrived, op);
  if (reduced.length !== counts[rank]) {
    throw new TsmpiError(ErrorCode.Count, `this rank's count is ${counts[rank]} but the other group's arrays gave it ${reduced.length} elements`, { rank: call.worldRank, operation: call.operation, hint: "every rank of a group passes the same counts, one per rank of that group" });
  }
  return intoResult(call, reduced, into);
}

/** `result`, or a view of `into` holding it. */
function intoResult<A extends TypedArray>(call: CollectiveCall, result: A, into: A | undefined): A {
  if (into === undefined) return result;
  if (into.length < result.length) {
    throw new TsmpiError(ErrorCode.Truncate, `${result.length} elements for a receive array of ${into.length}`, { rank: call.worldRank, operation: call.operation, hint: "pass a receive array as long as this rank's block" });
  }
  into.set(result as never);
  return into.subarray(0, result.length) as A;
}

/** What each remote rank sends this one, in its rank order. */
function* fromEvery<T>(call: CollectiveCall, remote: Int32Array): Steps<T[]> {
  return yield* collect<T>(Array.from(remote, (union) => call.recv<T>(union)));
}

function* collect<T>(receives: readonly import('../request.js').Request<T>[]): Steps<T[]> {
  const out: T[] = new Array(receives.length);
  for (let i = 0; i < receives.length; i++) out[i] = (yield receives[i]!) as T;
  return out;
}

/** values[0] op values[1] op ... (the other group's ranks, in order). */
function combineInOrder<T>(call: CollectiveCall, remote: Int32Array, values: readonly T[], op: ReduceOp): T {
  let result = values[0] as T;
  for (let i = 1; i < values.length; i++) result = call.combine<T>(op, result, values[i], remote[0]!, remote[i]!);
  return result;
}

/** `data` cut into `parts` consecutive blocks of `counts` elements (equal blocks when counts are not given). */
function splitBlocks<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[] | undefined, parts: number): A[] {
  const sizes = counts ?? (data.length % parts === 0 ? new Array<number>(parts).fill(data.length / parts) : undefined);
  if (sizes === undefined || sizes.length !== parts || sizes.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new TsmpiError(ErrorCode.Count, counts === undefined ? `${data.length} elements do not split into ${parts} equal blocks` : `counts [${counts.join(', ')}] are not ${parts} non-negative integers`, { rank: call.worldRank, operation: call.operation, hint: `pass one count per rank of the other group (${parts})` });
  }
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total > data.length) {
    throw new TsmpiError(ErrorCode.Count, `counts add up to ${total} elements but the array has ${data.length}`, { rank: call.worldRank, operation: call.operation, hint: 'pass an array of at least the sum of the counts' });
  }
  const blocks: A[] = [];
  let at = 0;
  for (const n of sizes) {
    blocks.push(data.subarray(at, at + n) as A);
    at += n;
  }
  return blocks;
}

/** Arrays of one kind concatenated (into `into` when given), with their counts and displacements. */
function concatenate<A extends TypedArray>(call: CollectiveCall, parts: readonly A[], like: A | undefined, into: A | undefined): Concatenated<A> {
  const kind = (like ?? parts[0])?.constructor as { new (length: number): A } | undefined;
  const counts: number[] = [];
  const displs: number[] = [];
  let total = 0;
  for (const part of parts) {
    if (!ArrayBuffer.isView(part) || (kind !== undefined && part.constructor !== kind)) {
      throw new TsmpiError(ErrorCode.Type, `a rank of the other group sent ${ArrayBuffer.isView(part) ? part.constructor.name : typeof part} where ${kind?.name ?? 'a typed array'} was expected`, { rank: call.worldRank, operation: call.operation, hint: 'every rank passes the same kind of typed array' });
    }
    displs.push(total);
    counts.push(part.length);
    total += part.length;
  }
  if (into !== undefined && into.length < total) {
    throw new TsmpiError(ErrorCode.Truncate, `${total} elements arrived for a receive array of ${into.length}`, { rank: call.worldRank, operation: call.operation, hint: 'pass a receive array as long as what the other group sends' });
  }
  const data = into ?? new (kind ?? (Uint8Array as unknown as { new (length: number): A }))(total);
  parts.forEach((part, i) => data.set(part as never, displs[i]));
  return { data, counts, displs };
}
