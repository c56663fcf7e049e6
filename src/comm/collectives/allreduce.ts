/**
 * Allreduce.
 * - recursive doubling (Thakur, Rabenseifner, Gropp 2005): log2 p exchange rounds between rank
 *   and rank XOR 2^k; with p not a power of two, the first 2r ranks (r = p - 2^floor(log2 p))
 *   fold pairwise first and the result is sent back at the end. Partials are combined in rank
 *   order, so non-commutative ops are exact.
 * - ring (large typed arrays, commutative built-in ops): reduce-scatter around the ring, then
 *   allgather around the ring; each rank sends 2 (p-1)/p of the array, the bandwidth optimum.
 * - reduce-bcast: binomial reduce to rank 0, then broadcast.
 */
import type { TypedArray } from '../codec.js';
import type { Status } from '../request.js';
import { allocateLike, bytesOf } from '../codec.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { combinerTo, inPlaceCombiner, inPlaceCombinerOnto, isTypedArray, type ReduceOp } from '../ops.js';
import { bcast } from './bcast.js';
import { blockOffsets, floorPowerOfTwo, type CollectiveCall } from './call.js';
import type { Steps } from './steps.js';
import type { StagedOp } from '../staged-reduction.js';
import { reduce } from './reduce.js';
import { isLargeArray, selectAllreduce } from './select.js';

/**
 * `into`: a typed array of the value's kind and length that receives the result (the value itself
 * for an in-place reduction); the large-array algorithms then reduce in it and allocate nothing.
 */
export function allreduce<T>(call: CollectiveCall, value: T, op: ReduceOp, into?: TypedArray): Steps<T> {
  const { size } = call;
  if (size === 1) return single(value, into);
  const algorithm = selectAllreduce(call.settings, size, value, op, size === 2 && isLargeArray(value) && call.inOneProcess, isTypedArray(value) && call.stagingAvailable, call.crowded);
  if (algorithm === 'shared') return stagedAllreduce(call, value as unknown as TypedArray, op, into) as unknown as Steps<T>;
  if (algorithm === 'ring') return ringAllreduce(call, value as unknown as TypedArray, op, into) as unknown as Steps<T>;
  if (algorithm === 'reduce-bcast') return reduceBcast(call, value, op, into);
  if ((isLargeArray(value) || (into !== undefined && isTypedArray(value))) && op.commutative && inPlaceCombiner(op) !== undefined) {
    // Given a result array, a small one too: the generic rounds decode each partial into a new
    // array and combine into another (a 2-rank allreduce of one double was twice a barrier).
    return recursiveDoublingInPlace(call, value as unknown as TypedArray, op, into) as unknown as Steps<T>;
  }
  return recursiveDoubling(call, value, op, into);
}

/**
 * A 2-rank allreduce of a typed array into a result array (not the value itself) by an op with
 * in-place loops, run without steps (CollectiveCall.pairExchange): the other rank's array arrives
 * in the result and this rank's is combined into it, in rank order. Undefined where the steps'
 * rounds are another algorithm's, or the rank is traced: run {@link allreduce} then. The
 * generator of steps and its drive were two fifths of a 2-rank allreduce of one double.
 */
export function allreducePair(call: CollectiveCall, value: unknown, op: ReduceOp, into: TypedArray | undefined): Promise<TypedArray> | undefined {
  if (call.size !== 2 || into === undefined || into === value || !isTypedArray(value) || call.traced || !op.commutative || inPlaceCombiner(op) === undefined) return undefined;
  if (selectAllreduce(call.settings, 2, value, op, isLargeArray(value) && call.inOneProcess, call.stagingAvailable) !== 'recursive-doubling') return undefined;
  const partner = call.rank ^ 1;
  const intoBytes = call.bytesOf(into);
  return call.pairExchange(call.bytesOf(value), intoBytes, partner, (error) => blockError(call, op, value, intoBytes, partner, error), (bytes) => {
    if (bytes !== into.byteLength) throw call.blockMismatch(op, value, bytes, into.byteLength, partner);
    if (call.rank < partner) inPlaceCombinerOnto(op)!(into, value);
    else inPlaceCombiner(op)!(into, value);
    return into;
  });
}

// No step: one rank reduces alone.
function* single<T>(value: T, into: TypedArray | undefined): Steps<T> {
  return (into === undefined ? value : copyInto(into, value as unknown as TypedArray)) as T;
}

/** Through the world's staging regions (staged-reduction.ts): one request, no step of its own. */
function* stagedAllreduce(call: CollectiveCall, value: TypedArray, op: ReduceOp, into: TypedArray | undefined): Steps<TypedArray> {
  const result = into ?? allocateLike(value, value.length);
  return (yield call.stagedReduction(value, result, stagedOp(op), undefined)) as TypedArray;
}

/** A built-in op's typed-array loops, as a staged reduction takes them (the op must have them: stageableArray). */
export function stagedOp(op: ReduceOp): StagedOp {
  return { name: op.name, combineTo: combinerTo(op)!, combineInto: inPlaceCombiner(op)! };
}

function* reduceBcast<T>(call: CollectiveCall, value: T, op: ReduceOp, into: TypedArray | undefined): Steps<T> {
  const reduced = yield* reduce(call, value, op, 0);
  const result = yield* bcast(call, reduced as T, 0);
  return (into === undefined ? result : copyInto(into, result as unknown as TypedArray)) as T;
}

/** `into` holding `from`'s elements (nothing to copy when they are the same array). */
function copyInto(into: TypedArray, from: TypedArray): TypedArray {
  if (into !== from) into.set(from as never);
  return into;
}

/** The array a large reduction accumulates in: the caller's `into` (holding the value), or a copy. */
function accumulator(value: TypedArray, into: TypedArray | undefined): TypedArray {
  return into === undefined ? (value.slice() as TypedArray) : copyInto(into, value);
}

function* recursiveDoubling<T>(call: CollectiveCall, value: T, op: ReduceOp, into: TypedArray | undefined): Steps<T> {
  const { rank, size } = call;
  const pof2 = floorPowerOfTwo(size);
  const rem = size - pof2;
  let acc = value;
  let newRank: number;
  if (rank < 2 * rem) {
    if (rank % 2 === 0) {
      yield call.send(acc, rank + 1);
      newRank = -1;
    } else {
      const lower = (yield call.recv<T>(rank - 1)) as T;
      acc = call.combine<T>(op, lower, acc, rank - 1, rank);
      newRank = rank >> 1;
    }
  } else {
    newRank = rank - rem;
  }
  if (newRank >= 0) {
    for (let mask = 1; mask < pof2; mask *= 2) {
      const newDest = newRank ^ mask;
      const dest = newDest < rem ? newDest * 2 + 1 : newDest + rem;
      const other = yield* call.exchange<T>(acc, dest, dest);
      acc = dest < rank ? call.combine<T>(op, other, acc, dest, rank) : call.combine<T>(op, acc, other, rank, dest);
    }
  }
  if (rank < 2 * rem) {
    if (rank % 2 === 1) yield call.send(acc, rank - 1);
    else acc = (yield call.recv<T>(rank + 1)) as T;
  }
  return (into === undefined ? acc : copyInto(into, acc as unknown as TypedArray)) as T;
}

/**
 * Recursive doubling over a large typed array with a built-in op: the same rounds, each partner's
 * partial received into one scratch array from the rank's pool and combined into the result in
 * place, so a call allocates only its result (nothing, given `into`). Each pair combines its two
 * partials in rank order (the lower rank's first, as the generic rounds do), so both end with the
 * same bits even where the op's order shows (max(-0, +0), max(NaN, 1)).
 */
function* recursiveDoublingInPlace(call: CollectiveCall, value: TypedArray, op: ReduceOp, into: TypedArray | undefined): Steps<TypedArray> {
  const { rank, size } = call;
  const ownFirst = inPlaceCombiner(op)!;
  const partnerFirst = inPlaceCombinerOnto(op)!;
  const pof2 = floorPowerOfTwo(size);
  const rem = size - pof2;
  let acc: TypedArray;
  let firstMask = 1;
  if (rem === 0 && into !== undefined && into !== value) {
    // No rank folds in first: the first round receives the partner's array straight into the
    // result and combines this rank's own into it, so the value is never copied, and a 2-rank
    // call (that round only) takes no scratch.
    // The exchange is written out here, not through ringStep: a generator less per call.
    const partner = rank ^ 1;
    const intoBytes = call.bytesOf(into);
    // A send its link takes at once goes first (CollectiveCall.exchangeStep).
    const valueBytes = call.bytesOf(value);
    const sentNow = call.sendNow(valueBytes, partner);
    const receive = call.recvInto(intoBytes, partner);
    const send = sentNow ? undefined : call.send(valueBytes, partner);
    let status: Status;
    try {
      status = (yield receive) as Status;
    } catch (error) {
      throw blockError(call, op, value, intoBytes, partner, error);
    }
    checkBlock(call, op, value, intoBytes, partner, status);
    if (send !== undefined) yield send;
    // `into` holds the partner's partial: into = value op into on the lower rank, into op value on the higher.
    if (rank < partner) partnerFirst(into, value);
    else ownFirst(into, value);
    if (pof2 === 2) return into;
    acc = into;
    firstMask = 2;
  } else {
    acc = accumulator(value, into);
  }
  // (A copy of the value is new at every call: its view is not worth remembering.)
  const accBytes = acc === into ? call.bytesOf(acc) : bytesOf(acc);
  const partner = call.scratch(acc, acc.length);
  const partnerBytes = bytesOf(partner);
  let newRank = rank - rem;
  if (rank < 2 * rem) {
    if (rank % 2 === 0) {
      yield call.send(accBytes, rank + 1);
      newRank = -1;
    } else {
      yield* exactReceive(call, op, value, partnerBytes, rank - 1);
      partnerFirst(acc, partner);
      newRank = rank >> 1;
    }
  }
  if (newRank >= 0) {
    for (let mask = firstMask; mask < pof2; mask *= 2) {
      const newDest = newRank ^ mask;
      const dest = newDest < rem ? newDest * 2 + 1 : newDest + rem;
      yield* ringStep(call, op, value, accBytes, dest, partnerBytes, dest);
      if (dest < rank) partnerFirst(acc, partner);
      else ownFirst(acc, partner);
    }
  }
  if (rank < 2 * rem) {
    if (rank % 2 === 1) yield call.send(accBytes, rank - 1);
    else yield* exactReceive(call, op, value, accBytes, rank + 1);
  }
  call.release(partner);
  return acc;
}

function* ringAllreduce(call: CollectiveCall, value: TypedArray, op: ReduceOp, into: TypedArray | undefined): Steps<TypedArray> {
  const { rank, size } = call;
  const combineTo = combinerTo(op)!;
  // Every block of the result is written before it is read: the blocks this rank receives in the
  // reduce-scatter as value op incoming, its own block by the allgather. So the result needs no
  // copy of the value, which a 2-rank 1 MiB call paid ~0.1 ms for.
  const acc = into ?? allocateLike(value, value.length);
  const offsets = blockOffsets(acc.length, size);
  const block = (array: TypedArray, b: number): TypedArray => array.subarray(offsets[b]!, offsets[b + 1]!) as TypedArray;
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  const scratch = call.scratch(acc, offsets[1]! - offsets[0]!);
  // Reduce-scatter: after p-1 steps rank r holds the full reduction of block (r + 1) mod p. The
  // first step sends the value's own block; each later one the block combined the step before.
  for (let step = 0; step < size - 1; step++) {
    const sendBlock = (rank - step + size) % size;
    const recvBlock = (rank - step - 1 + size) % size;
    const combined = block(acc, recvBlock);
    const incoming = scratch.subarray(0, combined.length) as TypedArray;
    const outgoing = bytesOf(block(step === 0 ? value : acc, sendBlock));
    if (size === 2) yield* pairReduceStep(call, op, value, outgoing, bytesOf(incoming), right);
    else yield* ringStep(call, op, value, outgoing, right, bytesOf(incoming), left);
    combineTo(combined, block(value, recvBlock), incoming);
  }
  // Allgather: circulate the reduced blocks.
  for (let step = 0; step < size - 1; step++) {
    const sendBlock = (rank + 1 - step + size) % size;
    const recvBlock = (rank - step + size) % size;
    yield* ringStep(call, op, value, bytesOf(block(acc, sendBlock)), right, bytesOf(block(acc, recvBlock)), left);
  }
  call.release(scratch);
  return acc;
}

const NO_BLOCK = new Uint8Array(0);

/**
 * The reduce-scatter step of a 2-rank ring. Each rank's receive checks one half of the other's
 * array (the first half on one rank, the second on the other), so a length that differs in one
 * half only would fail on one rank while the other waits in its allgather step. A rank that finds
 * a block of another size takes the other's allgather message whatever it holds and answers it
 * with an empty one, which the other's allgather step refuses: both ranks fail, nothing is left
 * waiting.
 */
function* pairReduceStep(call: CollectiveCall, op: ReduceOp, own: TypedArray, bytes: Uint8Array, into: Uint8Array, peer: number): Steps<void> {
  try {
    yield* ringStep(call, op, own, bytes, peer, into, peer);
  } catch (error) {
    if (!(error instanceof TsmpiError && error.code === ErrorCode.Count)) throw error;
    const theirs = call.recv<unknown>(peer);
    const refusal = call.send(NO_BLOCK, peer);
    try {
      yield theirs;
      yield refusal;
    } catch {
      // The mismatch is what this rank reports.
    }
    throw error;
  }
}

/** The error of a receive that must fill `into` exactly: a truncation means a larger block came. */
export function blockError(call: CollectiveCall, op: ReduceOp, own: TypedArray, into: Uint8Array, source: number, error: unknown): unknown {
  return error instanceof TsmpiError && error.code === ErrorCode.Truncate ? call.blockMismatch(op, own, undefined, into.byteLength, source) : error;
}

/** Throws unless the block that arrived fills `into` exactly. */
export function checkBlock(call: CollectiveCall, op: ReduceOp, own: TypedArray, into: Uint8Array, source: number, status: Status): void {
  if (status.bytes !== into.byteLength) throw call.blockMismatch(op, own, status.bytes, into.byteLength, source);
}

/** A receive that must fill `into` exactly (see {@link ringStep}). */
function* exactReceive(call: CollectiveCall, op: ReduceOp, own: TypedArray, into: Uint8Array, source: number): Steps<void> {
  let status: Status;
  try {
    status = (yield call.recvInto(into, source)) as Status;
  } catch (error) {
    throw blockError(call, op, own, into, source, error);
  }
  checkBlock(call, op, own, into, source, status);
}

/**
 * One ring exchange whose incoming block must fill `into` exactly: a block of another size means
 * the left neighbour passed a typed array of another length (a smaller one would otherwise be
 * combined silently with stale bytes).
 */
export function* ringStep(call: CollectiveCall, op: ReduceOp, own: TypedArray, bytes: Uint8Array, dest: number, into: Uint8Array, source: number): Steps<void> {
  const receive = call.recvInto(into, source);
  const send = call.send(bytes, dest);
  let status: Status;
  try {
    status = (yield receive) as Status;
  } catch (error) {
    throw blockError(call, op, own, into, source, error);
  }
  checkBlock(call, op, own, into, source, status);
  yield send;
}
