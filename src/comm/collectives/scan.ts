/**
 * Inclusive and exclusive prefix reductions by recursive doubling (as MPICH): in round k rank r
 * exchanges its running partial with r XOR 2^k; a partial from a lower rank is combined on the
 * left, so non-commutative ops are exact. Exscan yields undefined on rank 0.
 */
import type { ReduceOp } from '../ops.js';
import type { CollectiveCall } from './call.js';
import { type Steps } from './steps.js';

export function* scan<T>(call: CollectiveCall, value: T, op: ReduceOp): Steps<T> {
  const { rank, size } = call;
  let partial = value;
  let result = value;
  for (let mask = 1; mask < size; mask *= 2) {
    const partner = rank ^ mask;
    if (partner >= size) continue;
    const other = yield* call.exchange<T>(partial, partner, partner);
    if (partner < rank) {
      partial = call.combine<T>(op, other, partial, partner, rank);
      result = call.combine<T>(op, other, result, partner, rank);
    } else {
      partial = call.combine<T>(op, partial, other, rank, partner);
    }
  }
  return result;
}

export function* exscan<T>(call: CollectiveCall, value: T, op: ReduceOp): Steps<T | undefined> {
  const { rank, size } = call;
  let partial = value;
  let result: T | undefined;
  let have = false;
  for (let mask = 1; mask < size; mask *= 2) {
    const partner = rank ^ mask;
    if (partner >= size) continue;
    const other = yield* call.exchange<T>(partial, partner, partner);
    if (partner < rank) {
      partial = call.combine<T>(op, other, partial, partner, rank);
      result = have ? call.combine<T>(op, other, result, partner, rank) : other;
      have = true;
    } else {
      partial = call.combine<T>(op, partial, other, rank, partner);
    }
  }
  return result;
}
