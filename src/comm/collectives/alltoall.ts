/**
 * All-to-all.
 * - pairwise (default): p - 1 rounds; in round s rank r sends to r + s and receives from r - s,
 *   so every link carries one message per round and no rank is flooded.
 * - xor-pairwise (p a power of two): p - 1 rounds with partner r XOR s (SimGrid's "pair").
 * - bruck (Bruck et al. 1997): ceil(log2 p) rounds; round k sends every value whose distance to
 *   its destination has bit k set, to r + 2^k. Fewer, larger messages: for small values.
 * - linear (Open MPI's basic linear): post every receive (from r + 1 on) and every send (from
 *   r - 1 down) at once.
 * alltoallv (a typed array cut by send counts): receive counts by a pairwise exchange (unless
 * given), then pairwise rounds that receive every block straight into its place, or, for blocks
 * up to 1 KiB (and any under SimGrid's rules), every block posted at once (select.ts). On a world
 * of crowded rank threads, counts and blocks go through the staging regions instead
 * (staged-exchange.ts).
 */
import { allocateLike, type TypedArray } from '../codec.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { copyBytes } from '../../transport/copy-bytes.js';
import type { CollectiveCall } from './call.js';
import type { Steps } from './steps.js';
import { checkCounts, displacements, pairCounts, pairResult, passThrough, resultArray, type Concatenated } from './gather.js';
import type { Request } from '../request.js';
import { selectAlltoall, selectStagedExchange, selectVectorExchange } from './select.js';
import { exchangeLayout } from '../staged-exchange.js';

export function* alltoall<T>(call: CollectiveCall, values: readonly T[]): Steps<T[]> {
  const { rank, size } = call;
  if (!Array.isArray(values) || values.length !== size) {
    throw new TsmpiError(ErrorCode.Count, `alltoall needs an array of ${size} values (values[i] goes to rank i)`, {
      rank,
      operation: call.operation,
      hint: `pass an array of length ${size}`,
    });
  }
  const out: T[] = new Array(size);
  out[rank] = values[rank]!;
  const algorithm = selectAlltoall(call.settings, size, values);
  if (algorithm === 'linear') {
    const receives: Request<T>[] = new Array(size);
    for (let r = (rank + 1) % size; r !== rank; r = (r + 1) % size) receives[r] = call.recv<T>(r);
    const sends: Request<void>[] = [];
    for (let r = (rank - 1 + size) % size; r !== rank; r = (r - 1 + size) % size) sends.push(call.send(values[r], r));
    for (let r = 0; r < size; r++) if (r !== rank) out[r] = (yield receives[r]!) as T;
    yield sends;
    return out;
  }
  if (algorithm === 'xor-pairwise') {
    for (let step = 1; step < size; step++) {
      const peer = rank ^ step;
      out[peer] = yield* call.exchange<T>(values[peer], peer, peer);
    }
    return out;
  }
  if (algorithm === 'bruck') {
    // items[i]: the value for rank r + i; after the rounds, the value from rank r - i.
    const items: T[] = new Array(size);
    for (let i = 0; i < size; i++) items[i] = values[(rank + i) % size]!;
    for (let distance = 1; distance < size; distance *= 2) {
      const moving: number[] = [];
      for (let i = 1; i < size; i++) if (i & distance) moving.push(i);
      const received = yield* call.exchange<T[]>(
        moving.map((i) => items[i]),
        (rank + distance) % size,
        (rank - distance + size) % size,
      );
      moving.forEach((i, k) => (items[i] = received[k]!));
    }
    for (let i = 1; i < size; i++) out[(rank - i + size) % size] = items[i]!;
    return out;
  }
  for (let step = 1; step < size; step++) {
    const dest = (rank + step) % size;
    const source = (rank - step + size) % size;
    out[source] = yield* call.exchange<T>(values[dest], dest, source);
  }
  return out;
}

/** `into`: the caller's array for the result (at least the receive counts' total long); else a new one. */
export function* alltoallv<A extends TypedArray>(call: CollectiveCall, data: A, sendCounts: readonly number[], knownRecvCounts?: readonly number[], into?: A): Steps<Concatenated<A>> {
  const { rank, size } = call;
  const sendDispls = checkSendCounts(call, data, sendCounts);
  const staged = call.stagingAvailable && selectStagedExchange(call.settings, size, exchangeLayout(call.stagingRegionBytes, size).slotBytes, call.crowded);
  if (knownRecvCounts === undefined && staged) {
    // The counts go through the regions too (one round, where messages would take p - 1); the
    // blocks' exchange holds its place among this rank's staged collectives meanwhile
    // (CollectiveCall.reserveStaged), behind the counts'.
    const ones = new Array<number>(size).fill(1);
    const each = Array.from({ length: size }, (_, r) => r);
    const countsIn = new Float64Array(size);
    const counted = call.stagedExchange(call.blockViews(call.bytesOf(Float64Array.from(sendCounts)), each, ones, 8), call.blockViews(call.bytesOf(countsIn), each, ones, 8));
    countsIn[rank] = sendCounts[rank]!;
    call.reserveStaged();
    try {
      yield counted;
      return yield* alltoallv(call, data, sendCounts, Array.from(countsIn), into);
    } finally {
      call.releaseStaged();
    }
  }
  let recvCounts: number[];
  if (knownRecvCounts !== undefined) {
    checkCounts(knownRecvCounts, size, call.operation, rank, 'recvCounts');
    recvCounts = [...knownRecvCounts];
  } else {
    recvCounts = yield* alltoall(call, [...sendCounts]);
  }
  const plan = planBlocks(call, data, sendCounts, sendDispls, recvCounts, into);
  const { out, recvDispls, width, outBytes, dataBytes } = plan;
  const incoming = call.blockViews(outBytes, recvDispls, recvCounts, width);
  const outgoing = call.blockViews(dataBytes, sendDispls, sendCounts, width);
  if (staged) {
    const exchange = call.stagedExchange(outgoing, incoming);
    placeOwnBlock(plan, sendDispls, sendCounts, rank);
    yield exchange;
    return plan.result;
  }
  if (selectVectorExchange(call.settings, Math.max(...sendCounts, ...recvCounts) * width, call.crowded) === 'linear') {
    // Every receive, then every send, in rank order, all at once.
    const requests: Request<unknown>[] = [];
    for (let r = 0; r < size; r++) if (r !== rank && recvCounts[r]! > 0) requests.push(call.recvInto(incoming[r]!, r));
    for (let r = 0; r < size; r++) {
      if (r === rank || sendCounts[r]! === 0) continue;
      // A send its link takes at once needs no request (sendStep).
      const send = call.sendStep(outgoing[r]!, r);
      if (send !== undefined) requests.push(send);
    }
    placeOwnBlock(plan, sendDispls, sendCounts, rank);
    yield requests;
    return plan.result;
  }
  for (let step = 1; step < size; step++) {
    const dest = (rank + step) % size;
    const source = (rank - step + size) % size;
    const receive = recvCounts[source]! > 0 ? call.recvInto(incoming[source]!, source) : undefined;
    const send = sendCounts[dest]! > 0 ? call.send(outgoing[dest]!, dest) : undefined;
    if (step === 1) placeOwnBlock(plan, sendDispls, sendCounts, rank);
    if (receive) yield receive;
    if (send) yield send;
  }
  if (size === 1) placeOwnBlock(plan, sendDispls, sendCounts, rank);
  return plan.result;
}

/**
 * A 2-rank alltoallv whose receive counts are known and whose blocks to and from the other rank
 * are not empty, run without steps (CollectiveCall.pairExchange): the other rank's block arrives
 * in its place in the result. Undefined otherwise, or when the rank is traced: run
 * {@link alltoallv} then, as for counts its checks refuse (the steps throw the error, which
 * rejects the call's promise). The requests, step arrays and drive of the one-step schedule were
 * a third of a 2-rank alltoallv of one double.
 */
export function alltoallvPair<A extends TypedArray>(call: CollectiveCall, data: A, sendCounts: readonly number[], recvCounts: readonly number[] | undefined, into?: A): Promise<Concatenated<A>> | undefined {
  if (call.size !== 2 || recvCounts === undefined || call.traced || !pairCounts(sendCounts) || !pairCounts(recvCounts)) return undefined;
  const rank = call.rank;
  const peer = 1 - rank;
  const sent0 = sendCounts[0]!;
  const received0 = recvCounts[0]!;
  const total = received0 + recvCounts[1]!;
  if (sent0 + sendCounts[1]! !== data.length || recvCounts[rank] !== sendCounts[rank] || sendCounts[peer] === 0 || recvCounts[peer] === 0 || (into !== undefined && into.length < total)) return undefined;
  const out = into ?? allocateLike(data, total);
  const width = out.BYTES_PER_ELEMENT;
  const dataBytes = call.bytesOf(data);
  const outBytes = call.bytesOf(out);
  // Block 0 sits first in both arrays, block 1 after it.
  const outgoing = peer === 0 ? call.bytesRange(dataBytes, 0, sent0 * width) : call.bytesRange(dataBytes, sent0 * width, data.length * width);
  const incoming = peer === 0 ? call.bytesRange(outBytes, 0, received0 * width) : call.bytesRange(outBytes, received0 * width, total * width);
  const result = pairResult(call, out, received0, recvCounts[1]!, into !== undefined);
  const done = call.pairExchange(outgoing, incoming, peer, passThrough, () => result);
  // The own block after the exchange is posted (as placeOwnBlock), before the program's continuation runs.
  if (rank === 0) copyBytes(outBytes, 0, dataBytes, 0, sent0 * width);
  else copyBytes(outBytes, received0 * width, dataBytes, sent0 * width, sendCounts[1]! * width);
  return done;
}

/** The send counts checked against the data; their displacements. */
function checkSendCounts(call: CollectiveCall, data: TypedArray, sendCounts: readonly number[]): number[] {
  const { rank, size } = call;
  checkCounts(sendCounts, size, call.operation, rank, 'sendCounts');
  const sendDispls = displacements(sendCounts);
  const sendTotal = sendDispls[size - 1]! + sendCounts[size - 1]!;
  if (sendTotal !== data.length) {
    throw new TsmpiError(ErrorCode.Count, `sendCounts add up to ${sendTotal} but the data has ${data.length} elements`, {
      rank,
      operation: call.operation,
      hint: 'sendCounts must add up to the length of the data',
    });
  }
  return sendDispls;
}

/**
 * The result array and the byte views blocks are cut from. Blocks are cut from one byte view of each array: a typed-array view costs tens of
 * nanoseconds to make, and a block cut as elements would need a second, of bytes.
 */
function planBlocks<A extends TypedArray>(call: CollectiveCall, data: A, sendCounts: readonly number[], sendDispls: readonly number[], recvCounts: number[], into: A | undefined) {
  const { rank, size } = call;
  const recvDispls = displacements(recvCounts);
  const out = resultArray(call, data, recvDispls[size - 1]! + recvCounts[size - 1]!, into);
  const width = out.BYTES_PER_ELEMENT;
  const outBytes = call.bytesOf(out);
  const dataBytes = call.bytesOf(data);
  if (recvCounts[rank] !== sendCounts[rank]) {
    throw new TsmpiError(ErrorCode.Count, `recvCounts[${rank}] is ${recvCounts[rank]} but sendCounts[${rank}] is ${sendCounts[rank]}: the block a rank sends itself is the block it receives`, {
      rank,
      operation: call.operation,
      hint: `pass recvCounts[${rank}] equal to sendCounts[${rank}]`,
    });
  }
  const result: Concatenated<A> = { data: out, counts: recvCounts, displs: recvDispls };
  return { out, recvDispls, width, outBytes, dataBytes, result };
}

/**
 * Copies the block this rank sends itself into its result: once the first transfers are posted,
 * so that a large block's copy overlaps the peers' handshakes instead of delaying them.
 */
function placeOwnBlock(plan: { recvDispls: number[]; width: number; outBytes: Uint8Array; dataBytes: Uint8Array }, sendDispls: readonly number[], sendCounts: readonly number[], rank: number): void {
  const { width } = plan;
  copyBytes(plan.outBytes, plan.recvDispls[rank]! * width, plan.dataBytes, sendDispls[rank]! * width, sendCounts[rank]! * width);
}
