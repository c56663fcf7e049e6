/**
 * Reduce to a root.
 * - binomial: in round k, ranks with bit k set send their partial result to rank - 2^k and drop
 *   out; the others combine. A partial always covers a contiguous run of ranks and is combined as
 *   (lower run) op (higher run), so non-commutative ops get rank order; for them the tree is
 *   rooted at rank 0 and the result then moves to the root.
 * - linear: the root receives every value and combines in rank order.
 */
import type { ReduceOp } from '../ops.js';
import type { CollectiveCall } from './call.js';
import type { Steps } from './steps.js';
import { selectReduce } from './select.js';

export function* reduce<T>(call: CollectiveCall, value: T, op: ReduceOp, root: number): Steps<T | undefined> {
  const { rank, size } = call;
  if (size === 1) return value;
  if (selectReduce(call.settings) === 'linear') {
    if (rank !== root) {
      yield call.send(value, root);
      return undefined;
    }
    const receives = [];
    for (let r = 0; r < size; r++) receives.push(r === root ? undefined : call.recv<T>(r));
    let acc: T | undefined;
    for (let r = 0; r < size; r++) {
      const v = r === root ? value : ((yield receives[r]!) as T);
      acc = r === 0 ? v : call.combine<T>(op, acc, v, 0, r);
    }
    return acc;
  }
  const treeRoot = op.commutative ? root : 0;
  const vrank = (rank - treeRoot + size) % size;
  let acc: T = value;
  for (let mask = 1; mask < size; mask *= 2) {
    if (vrank & mask) {
      yield call.send(acc, (vrank - mask + treeRoot) % size);
      break;
    }
    if (vrank + mask < size) {
      const from = (vrank + mask + treeRoot) % size;
      const other = (yield call.recv<T>(from)) as T;
      acc = call.combine<T>(op, acc, other, rank, from);
    }
  }
  if (treeRoot !== root) {
    if (rank === treeRoot) {
      yield call.send(acc, root);
      return undefined;
    }
    if (rank === root) return (yield call.recv<T>(treeRoot)) as T;
    return undefined;
  }
  return rank === root ? acc : undefined;
}
