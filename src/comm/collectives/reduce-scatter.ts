/**
 * Reduce-scatter (MPI_Reduce_scatter, MPI_Reduce_scatter_block): the elementwise reduction of
 * every rank's typed array, cut into blocks in rank order; rank r keeps block r (`counts[r]`
 * elements).
 * - ring (commutative built-in ops): p - 1 steps; at step s rank r sends block r - s - 1 (its own
 *   data at the first step, else the partial it combined the step before) to rank r + 1 and
 *   combines block r - s - 2 from rank r - 1 with its own data. Each rank sends and combines
 *   (p - 1) / p of the array, the bandwidth optimum, and ends with block r.
 * - recursive halving (commutative built-in ops, a power-of-two count of ranks): log2 p rounds;
 *   in each, a rank keeps half of the blocks it still holds, sends the other half to the rank as
 *   far away as half its group, and combines the half that partner sends. The ring's volume in
 *   log2 p rounds instead of p - 1 (each a wake-up when ranks outnumber the cores).
 * - recursive doubling (small arrays on more than 2 ranks): the whole array allreduced in log2 p
 *   rounds (exact for any op), of which each rank keeps its block.
 * - reduce-scatterv: a reduce to rank 0 (in rank order, so exact for non-commutative and user
 *   ops), then a scatterv of the blocks. SimGrid's default for equal blocks; for unequal ones
 *   SimGrid runs MPICH's recursive halving or pairwise exchange, which this one does not (the
 *   same result, other messages).
 */
import type { TypedArray } from '../codec.js';
import type { Status } from '../request.js';
import { allocateLike, bytesOf } from '../codec.js';
import { combinerTo, type ReduceOp } from '../ops.js';
import { allreduce, blockError, checkBlock, ringStep, stagedOp } from './allreduce.js';
import type { CollectiveCall } from './call.js';
import { displacements } from './gather.js';
import { reduce } from './reduce.js';
import { selectReduceScatter } from './select.js';
import { scatterv } from './scatter.js';
import type { Steps } from './steps.js';

/**
 * Rank r's block of the reduction (`counts[r]` elements), in `into` when given (its first
 * `counts[r]` elements; the call returns that view). The counts are checked by the caller: one
 * per rank, adding up to the data's length.
 */
export function reduceScatter<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, into?: A): Steps<A> {
  const { rank, size } = call;
  const own = counts[rank]!;
  const result = into === undefined ? allocateLike(data, own) : into.length === own ? into : (into.subarray(0, own) as A);
  if (size === 1) return single(data, result);
  const algorithm = selectReduceScatter(call.settings, op, size, data.byteLength, data, call.stagingAvailable, call.crowded);
  if (algorithm === 'shared') return staged(call, data, counts, op, result);
  if (algorithm === 'recursive-doubling') return wholeThenBlock(call, data, counts, op, result);
  if (algorithm === 'reduce-scatterv') return reduceScatterv(call, data, counts, op, result);
  if (algorithm === 'recursive-halving') return halving(call, data, counts, op, result);
  // (The 2-rank step is returned as it is, not delegated to: a generator less per call.)
  return size === 2 ? pair(call, data, counts, op, result) : ring(call, data, counts, op, result);
}

// No step: one rank keeps its whole array.
function* single<A extends TypedArray>(data: A, result: A): Steps<A> {
  result.set(data as never);
  return result;
}

/** Through the world's staging regions (staged-reduction.ts): one request, no step of its own. */
function* staged<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, result: A): Steps<A> {
  return (yield call.stagedReduction(data, result, stagedOp(op), { counts, displacements: displacements(counts) })) as A;
}

function* reduceScatterv<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, result: A): Steps<A> {
  const reduced = yield* reduce(call, data, op, 0);
  const mine = yield* scatterv(call, call.rank === 0 ? (reduced as A) : undefined, counts, 0);
  result.set(mine as never);
  return result;
}

function* wholeThenBlock<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, result: A): Steps<A> {
  const whole = call.scratch(data, data.length);
  yield* allreduce(call, data, op, whole);
  let begin = 0;
  for (let r = 0; r < call.rank; r++) begin += counts[r]!;
  result.set(whole.subarray(begin, begin + result.length) as never);
  call.release(whole);
  return result;
}

/**
 * A 2-rank reduce-scatter where the ring would run, without steps (CollectiveCall.pairExchange):
 * the other rank's part of this rank's block arrives in the result and this rank's own part is
 * combined into it. Undefined for another algorithm or a traced rank: run the steps then.
 */
export function reduceScatterPair<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, into: A | undefined): Promise<A> | undefined {
  if (call.size !== 2 || call.traced) return undefined;
  if (selectReduceScatter(call.settings, op, 2, data.byteLength, data, call.stagingAvailable) !== 'ring') return undefined;
  const { result, outgoing, into: intoBytes, peer, ownBegin } = pairBlocks(call, data, counts, into);
  return call.pairExchange(outgoing, intoBytes, peer, (error) => blockError(call, op, data, intoBytes, peer, error), (bytes) => {
    if (bytes !== intoBytes.byteLength) throw call.blockMismatch(op, data, bytes, intoBytes.byteLength, peer);
    combinerTo(op)!(result, call.elementsRange(data, ownBegin, ownBegin + result.length), result);
    return result;
  });
}

/** A 2-rank reduce-scatter's parts: the result, the block that goes to the other rank, and where this rank's own part starts. */
function pairBlocks<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], into: A | undefined) {
  const rank = call.rank;
  const own = counts[rank]!;
  const result = into === undefined ? allocateLike(data, own) : into.length === own ? into : (into.subarray(0, own) as A);
  const peer = 1 - rank;
  const width = data.BYTES_PER_ELEMENT;
  // Block 0 starts the array, block 1 follows it.
  const peerBegin = peer === 0 ? 0 : counts[0]!;
  const ownBegin = rank === 0 ? 0 : counts[0]!;
  const outgoing = call.bytesRange(call.bytesOf(data), peerBegin * width, (peerBegin + counts[peer]!) * width);
  return { result, outgoing, into: call.bytesOf(result), peer, ownBegin };
}

/**
 * The ring's one step on 2 ranks: the other rank's part of this rank's block arrives straight in
 * the result and this rank's own part is combined into it there, with no scratch (small calls
 * spent a third of their time on scratch blocks and their views).
 */
function* pair<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, result: A): Steps<A> {
  const { outgoing, into, peer, ownBegin } = pairBlocks(call, data, counts, result);
  // The exchange written out (as allreduce's first round): a send its link takes at once goes first.
  const sentNow = call.sendNow(outgoing, peer);
  const receive = call.recvInto(into, peer);
  const send = sentNow ? undefined : call.send(outgoing, peer);
  let status: Status;
  try {
    status = (yield receive) as Status;
  } catch (error) {
    throw blockError(call, op, data, into, peer, error);
  }
  checkBlock(call, op, data, into, peer, status);
  if (send !== undefined) yield send;
  combinerTo(op)!(result, data.subarray(ownBegin, ownBegin + result.length) as A, result);
  return result;
}

function* halving<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, result: A): Steps<A> {
  const { rank, size } = call;
  const combineTo = combinerTo(op)!;
  const displs = displacements(counts);
  const end = (r: number): number => displs[r]! + counts[r]!;
  // The first round keeps half of the blocks: at most what lies on either side of the midpoint.
  const mid = displs[size >> 1]!;
  const widest = Math.max(mid, data.length - mid);
  const incoming = call.scratch(data, widest);
  // What this rank has combined, at its place in the array less `base` (where its first round's
  // half begins: every later half lies inside it), so that each round combines in place.
  const partial = size > 2 ? call.scratch(data, widest) : undefined;
  const base = rank < size >> 1 ? 0 : mid;
  let low = 0;
  let high = size;
  let source: A = data;
  let sourceBase = 0;
  while (high - low > 1) {
    const half = (high - low) >> 1;
    const middle = low + half;
    const keepsLow = rank < middle;
    const partner = keepsLow ? rank + half : rank - half;
    const keepFrom = keepsLow ? low : middle;
    const keepTo = keepsLow ? middle : high;
    const sendFrom = keepsLow ? middle : low;
    const sendTo = keepsLow ? high : middle;
    const keepBegin = displs[keepFrom]!;
    const keepLength = end(keepTo - 1) - keepBegin;
    const sendBegin = displs[sendFrom]! - sourceBase;
    const outgoing = source.subarray(sendBegin, sendBegin + end(sendTo - 1) - displs[sendFrom]!) as A;
    const arriving = incoming.subarray(0, keepLength) as A;
    yield* ringStep(call, op, data, bytesOf(outgoing), partner, bytesOf(arriving), partner);
    const own = source.subarray(keepBegin - sourceBase, keepBegin - sourceBase + keepLength) as A;
    // The last round's half is this rank's own block: it lands in the result. After the first
    // round `own` is the partial's range itself, combined in place.
    const target = keepTo - keepFrom === 1 ? result : source === data ? (partial!.subarray(keepBegin - base, keepBegin - base + keepLength) as A) : own;
    combineTo(target, own, arriving);
    source = partial as A;
    sourceBase = base;
    low = keepFrom;
    high = keepTo;
  }
  if (partial !== undefined) call.release(partial);
  call.release(incoming);
  return result;
}

function* ring<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[], op: ReduceOp, result: A): Steps<A> {
  const { rank, size } = call;
  const combineTo = combinerTo(op)!;
  const displs = displacements(counts);
  const block = (array: A, b: number): A => array.subarray(displs[b]!, displs[b]! + counts[b]!) as A;
  let largest = 0;
  for (const count of counts) largest = Math.max(largest, count);
  // Two scratch blocks: the partner's block arrives in one while the partial the step sends sits
  // in the other (rewritten only after its send completed).
  const incoming = call.scratch(data, largest);
  const partial = call.scratch(data, largest);
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  for (let step = 0; step < size - 1; step++) {
    const sendBlock = (rank - step - 1 + 2 * size) % size;
    const recvBlock = (rank - step - 2 + 2 * size) % size;
    const outgoing = step === 0 ? block(data, sendBlock) : (partial.subarray(0, counts[sendBlock]) as A);
    const arriving = incoming.subarray(0, counts[recvBlock]) as A;
    yield* ringStep(call, op, data, bytesOf(outgoing), right, bytesOf(arriving), left);
    // The last step's block is this rank's own: it lands in the result.
    const target = step === size - 2 ? result : (partial.subarray(0, counts[recvBlock]) as A);
    combineTo(target, block(data, recvBlock), arriving);
  }
  call.release(partial);
  call.release(incoming);
  return result;
}
