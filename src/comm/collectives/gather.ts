/**
 * Gather to a root.
 * - binomial (any values): every rank collects its subtree's values in rank order and sends them
 *   to its parent as one message; ceil(log2 p) rounds.
 * - linear: every rank sends to the root.
 * gatherv (typed arrays of any length): the counts travel up a binomial gather first (unless
 * given), then the root receives each rank's bytes straight into its place in the result.
 */
import { allocateLike, bytesOf, type TypedArray } from '../codec.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import type { CollectiveCall } from './call.js';
import type { Steps } from './steps.js';
import type { Request } from '../request.js';
import { selectGather } from './select.js';

/** A concatenated typed array and the per-rank element counts and offsets it holds. */
export interface Concatenated<A extends TypedArray> {
  data: A;
  counts: number[];
  displs: number[];
}

export function* gather<T>(call: CollectiveCall, value: T, root: number): Steps<T[] | undefined> {
  const { rank, size } = call;
  if (size === 1) return [value];
  if (selectGather(call.settings) === 'linear') {
    if (rank !== root) {
      yield call.send(value, root);
      return undefined;
    }
    const receives = Array.from({ length: size }, (_, r) => (r === root ? undefined : call.recv<T>(r)));
    const out: T[] = new Array(size);
    for (let r = 0; r < size; r++) out[r] = r === root ? value : ((yield receives[r]!) as T);
    return out;
  }
  const vrank = (rank - root + size) % size;
  let items: T[] = [value];
  for (let mask = 1; mask < size; mask *= 2) {
    if (vrank & mask) {
      yield call.send(items, (vrank - mask + root) % size);
      return undefined;
    }
    if (vrank + mask < size) {
      const child = (yield call.recv<T[]>((vrank + mask + root) % size)) as T[];
      items = items.concat(child);
    }
  }
  const out: T[] = new Array(size);
  for (let v = 0; v < size; v++) out[(v + root) % size] = items[v]!;
  return out;
}

/**
 * The result of a 2-rank concatenation into `out`. Into the caller's array (`reuse`): the call's
 * last one when it was for the same array and its counts and displacements still read the same
 * (the program may have changed them), so that a loop into one array allocates nothing and its
 * settled promise is the last one's (settledWith); else a new one.
 */
export function pairResult<A extends TypedArray>(call: CollectiveCall, out: A, first: number, second: number, reuse: boolean): Concatenated<A> {
  const last = call.lastPairResult;
  if (reuse && last !== undefined && last.data === out && last.counts.length === 2 && last.counts[0] === first && last.counts[1] === second && last.displs.length === 2 && last.displs[0] === 0 && last.displs[1] === first) {
    return last as Concatenated<A>;
  }
  const result: Concatenated<A> = { data: out, counts: [first, second], displs: [0, first] };
  if (reuse) call.lastPairResult = result;
  return result;
}

/** Two non-negative integer counts (a 2-rank call's). */
export function pairCounts(counts: readonly number[]): boolean {
  return Array.isArray(counts) && counts.length === 2 && allCounts(counts);
}

/** A receive's failure, as the steps would throw it. */
export function passThrough(error: unknown): unknown {
  return error;
}

export function displacements(counts: readonly number[]): number[] {
  const displs = new Array<number>(counts.length);
  let at = 0;
  for (let i = 0; i < counts.length; i++) {
    displs[i] = at;
    at += counts[i]!;
  }
  return displs;
}

/**
 * The array a concatenating collective fills: the caller's `into` when given (of the data's kind,
 * at least `length` elements, not overlapping the data), else a new one.
 */
export function resultArray<A extends TypedArray>(call: CollectiveCall, data: A, length: number, into: A | undefined): A {
  if (into === undefined) return allocateLike(data, length);
  if (into.length < length) {
    throw new TsmpiError(ErrorCode.Truncate, `the result needs ${length} elements but \`into\` holds ${into.length}`, {
      rank: call.worldRank,
      operation: call.operation,
      hint: `pass an \`into\` array of at least ${length} elements (the counts' total)`,
    });
  }
  return into;
}

/** True when every count is a non-negative integer (a loop: this runs at every call). */
function allCounts(counts: readonly number[]): boolean {
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i];
    if (!Number.isInteger(c) || c! < 0) return false;
  }
  return true;
}

export function checkCounts(counts: readonly number[], size: number, operation: string, rank: number, name = 'counts'): void {
  if (!Array.isArray(counts) || counts.length !== size || !allCounts(counts)) {
    throw new TsmpiError(ErrorCode.Count, `${name} must be ${size} non-negative integers, one per rank`, {
      rank,
      operation,
      hint: `pass an array of length ${size} (the communicator size)`,
    });
  }
}

export function checkOwnCount(counts: readonly number[], length: number, operation: string, rank: number): void {
  if (counts[rank] !== length) {
    throw new TsmpiError(ErrorCode.Count, `counts[${rank}] is ${counts[rank]} but this rank passed ${length} elements`, {
      rank,
      operation,
      hint: 'the counts must match the length each rank passes',
    });
  }
}

export function* gatherv<A extends TypedArray>(call: CollectiveCall, data: A, root: number, knownCounts?: readonly number[]): Steps<Concatenated<A> | undefined> {
  const { rank, size } = call;
  let counts: number[] | undefined;
  if (knownCounts !== undefined) {
    checkCounts(knownCounts, size, call.operation, rank);
    checkOwnCount(knownCounts, data.length, call.operation, rank);
    counts = [...knownCounts];
  } else {
    counts = yield* gather(call, data.length, root);
  }
  if (rank !== root) {
    if (data.length > 0) yield call.send(data, root);
    return undefined;
  }
  counts = counts!;
  const displs = displacements(counts);
  const out = allocateLike(data, displs[size - 1]! + counts[size - 1]!);
  const receives: Request<unknown>[] = [];
  for (let r = 0; r < size; r++) {
    const part = out.subarray(displs[r]!, displs[r]! + counts[r]!) as A;
    if (r === rank) part.set(data as never);
    else if (counts[r]! > 0) receives.push(call.recvInto(bytesOf(part), r));
  }
  yield receives;
  return { data: out, counts, displs };
}
