/**
 * Allgather.
 * - Bruck (any values, any p): in round k every rank sends the min(2^k, p - 2^k) values it holds
 *   to rank - 2^k and appends what rank + 2^k sends; ceil(log2 p) rounds, (p-1) values sent.
 * - ring: p - 1 rounds, each forwarding one value to the right neighbour.
 * - recursive doubling (p a power of two): exchange everything held with rank XOR 2^k.
 * - linear (SimGrid's): to and from every rank at once, a send then a receive per rank in rank
 *   order.
 * allgatherv (typed arrays of any length): counts by Bruck (unless given), then a ring that
 * receives every block straight into its place in the result; blocks up to 1 KiB (and any under
 * SimGrid's rules) to and from every rank at once (select.ts).
 */
import { allocateLike, type TypedArray } from '../codec.js';
import type { CollectiveCall } from './call.js';
import type { Steps } from './steps.js';
import { checkCounts, checkOwnCount, displacements, pairCounts, pairResult, passThrough, resultArray, type Concatenated } from './gather.js';
import type { Request } from '../request.js';
import { isPowerOfTwo, selectAllgather, selectStagedGather, selectVectorExchange } from './select.js';
import { countsDigest } from '../staged-gather.js';

export function* allgather<T>(call: CollectiveCall, value: T): Steps<T[]> {
  const { rank, size } = call;
  if (size === 1) return [value];
  const algorithm = selectAllgather(call.settings);
  if (algorithm === 'linear') {
    const receives: Request<T>[] = new Array(size);
    const sends: Request<void>[] = [];
    for (let r = 0; r < size; r++) {
      if (r === rank) continue;
      sends.push(call.send(value, r));
      receives[r] = call.recv<T>(r);
    }
    const out: T[] = new Array(size);
    for (let r = 0; r < size; r++) out[r] = r === rank ? value : ((yield receives[r]!) as T);
    yield sends;
    return out;
  }
  if (algorithm === 'ring') {
    const out: T[] = new Array(size);
    out[rank] = value;
    const right = (rank + 1) % size;
    const left = (rank - 1 + size) % size;
    for (let step = 0; step < size - 1; step++) {
      const sendIndex = (rank - step + size) % size;
      const recvIndex = (rank - step - 1 + size) % size;
      out[recvIndex] = yield* call.exchange<T>(out[sendIndex], right, left);
    }
    return out;
  }
  if (algorithm === 'recursive-doubling' && isPowerOfTwo(size)) {
    // held covers the aligned block of `mask` ranks containing this rank.
    let held: T[] = [value];
    for (let mask = 1; mask < size; mask *= 2) {
      const partner = rank ^ mask;
      const other = yield* call.exchange<T[]>(held, partner, partner);
      held = partner < rank ? other.concat(held) : held.concat(other);
    }
    return held;
  }
  // Bruck: items[i] is the value of rank (rank + i) mod p.
  const items: T[] = [value];
  for (let distance = 1; distance < size; distance *= 2) {
    const count = Math.min(distance, size - distance);
    const received = yield* call.exchange<T[]>(items.slice(0, count), (rank - distance + size) % size, (rank + distance) % size);
    for (const item of received) items.push(item);
  }
  const out: T[] = new Array(size);
  for (let i = 0; i < size; i++) out[(rank + i) % size] = items[i]!;
  return out;
}

/** `into`: the caller's array for the result (at least the counts' total long); else a new one. */
export function* allgatherv<A extends TypedArray>(call: CollectiveCall, data: A, knownCounts?: readonly number[], into?: A): Steps<Concatenated<A>> {
  const { rank, size } = call;
  if (knownCounts === undefined && call.stagingAvailable) {
    // Whether the blocks are staged is known once the counts are, by messages: the call holds
    // its place among this rank's staged collectives from now (CollectiveCall.reserveStaged).
    call.reserveStaged();
    try {
      return yield* allgatherv(call, data, yield* allgather(call, data.length), into);
    } finally {
      call.releaseStaged();
    }
  }
  const counts = knownCounts !== undefined ? checkedCounts(call, data, knownCounts) : yield* allgather(call, data.length);
  const plan = planGather(call, data, counts, into);
  const { displs, width, outBytes } = plan;
  const incoming = call.blockViews(outBytes, displs, counts, width);
  const largestBlock = Math.max(...counts) * width;
  if (selectStagedGather(call.settings, size, largestBlock, call.crowded) && call.stagingAvailable) {
    // The group is the world's: its ranks are world ranks, in order.
    const staged = call.stagedGather(call.bytesOf(data), incoming, countsDigest(counts, width));
    placeOwnBlock(plan, data, rank);
    yield staged;
    return plan.result;
  }
  if (selectVectorExchange(call.settings, largestBlock, call.crowded) === 'linear') {
    const requests: Request<unknown>[] = [];
    for (let r = 0; r < size; r++) {
      if (r === rank) continue;
      // A send its link takes at once needs no request (sendStep).
      const send = data.length > 0 ? call.sendStep(data, r) : undefined;
      if (send !== undefined) requests.push(send);
      if (counts[r]! > 0) requests.push(call.recvInto(incoming[r]!, r));
    }
    placeOwnBlock(plan, data, rank);
    yield requests;
    return plan.result;
  }
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  for (let step = 0; step < size - 1; step++) {
    const sendIndex = (rank - step + size) % size;
    const recvIndex = (rank - step - 1 + size) % size;
    // The first block out is this rank's own data: sent from the caller's array as it is.
    const receive = counts[recvIndex]! > 0 ? call.recvInto(incoming[recvIndex]!, left) : undefined;
    const send = counts[sendIndex]! > 0 ? call.send(step === 0 ? data : incoming[sendIndex]!, right) : undefined;
    if (step === 0) placeOwnBlock(plan, data, rank);
    if (receive) yield receive;
    if (send) yield send;
  }
  return plan.result;
}

/**
 * A 2-rank allgatherv whose counts are known and not empty, run without steps
 * (CollectiveCall.pairExchange): the other rank's block arrives in its place in the result.
 * Undefined otherwise, or when the rank is traced: run {@link allgatherv} then, as for counts its
 * checks refuse (the steps throw the error, which rejects the call's promise).
 */
export function allgathervPair<A extends TypedArray>(call: CollectiveCall, data: A, counts: readonly number[] | undefined, into?: A): Promise<Concatenated<A>> | undefined {
  if (call.size !== 2 || counts === undefined || call.traced || !pairCounts(counts)) return undefined;
  const rank = call.rank;
  const peer = 1 - rank;
  const first = counts[0]!;
  const total = first + counts[1]!;
  if (counts[rank] !== data.length || counts[peer] === 0 || data.length === 0 || (into !== undefined && into.length < total)) return undefined;
  const out = into ?? allocateLike(data, total);
  const width = out.BYTES_PER_ELEMENT;
  const outBytes = call.bytesOf(out);
  const incoming = peer === 0 ? call.bytesRange(outBytes, 0, first * width) : call.bytesRange(outBytes, first * width, total * width);
  const result = pairResult(call, out, first, counts[1]!, into !== undefined);
  const done = call.pairExchange(call.bytesOf(data), incoming, peer, passThrough, () => result);
  // The own block after the exchange is posted (as placeOwnBlock), before the program's continuation runs.
  out.set(data as never, rank === 0 ? 0 : first);
  return done;
}

/** The caller's counts, checked (one per rank, this rank's its data's length), as a copy. */
function checkedCounts(call: CollectiveCall, data: TypedArray, counts: readonly number[]): number[] {
  checkCounts(counts, call.size, call.operation, call.rank);
  checkOwnCount(counts, data.length, call.operation, call.rank);
  return [...counts];
}

/**
 * The result array and the byte view blocks are cut from: a typed-array view costs tens of
 * nanoseconds to make, and a block cut as elements would need a second, of bytes.
 */
function planGather<A extends TypedArray>(call: CollectiveCall, data: A, counts: number[], into: A | undefined) {
  const { size } = call;
  const displs = displacements(counts);
  const out = resultArray(call, data, displs[size - 1]! + counts[size - 1]!, into);
  const result: Concatenated<A> = { data: out, counts, displs };
  return { displs, width: out.BYTES_PER_ELEMENT, outBytes: call.bytesOf(out), result };
}

/**
 * Copies this rank's own block into the result. Called once the first transfers are posted, as
 * Open MPI's allgathers do: a large block's copy then overlaps the peers' handshakes and copies
 * instead of delaying them (a 2-rank allgather of 1 MiB waited for a 512 KiB copy before its
 * first frame went out).
 */
function placeOwnBlock<A extends TypedArray>(plan: { displs: number[]; result: Concatenated<A> }, data: A, rank: number): void {
  plan.result.data.set(data as never, plan.displs[rank]);
}

