/**
 * Scatter from a root.
 * - binomial (any values): the root sends each child the values of the child's subtree in one
 *   message; ceil(log2 p) rounds.
 * - linear: the root sends every rank its value.
 * scatterv (a typed array cut by counts): the root sends every rank its part straight from the
 * root's array (no copies).
 */
import { allocateLike, type TypedArray } from '../codec.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import type { CollectiveCall } from './call.js';
import type { Steps } from './steps.js';
import type { Request } from '../request.js';
import { checkCounts, displacements } from './gather.js';
import { selectScatter } from './select.js';
import { binomialChildren, binomialParent } from './tree.js';

export function* scatter<T>(call: CollectiveCall, values: readonly T[] | undefined, root: number): Steps<T> {
  const { rank, size } = call;
  if (rank === root && (!Array.isArray(values) || values.length !== size)) {
    throw new TsmpiError(ErrorCode.Count, `the root must pass an array of ${size} values, one per rank`, {
      rank,
      operation: call.operation,
      hint: `pass an array of length ${size}`,
    });
  }
  if (size === 1) return values![0]!;
  if (selectScatter(call.settings) === 'linear') {
    if (rank === root) {
      const sends: Request<void>[] = [];
      for (let r = 0; r < size; r++) if (r !== root) sends.push(call.send(values![r], r));
      yield sends;
      return values![root]!;
    }
    return (yield call.recv<T>(root)) as T;
  }
  const vrank = (rank - root + size) % size;
  // items[i] is the value of vrank (vrank + i).
  let items: T[];
  if (vrank === 0) {
    items = new Array(size);
    for (let v = 0; v < size; v++) items[v] = values![(v + root) % size]!;
  } else {
    items = (yield call.recv<T[]>((binomialParent(vrank).parent + root) % size)) as T[];
  }
  const sends: Request<void>[] = [];
  for (const child of binomialChildren(vrank, size)) {
    const span = Math.min(child & -child, size - child);
    sends.push(call.send(items.slice(child - vrank, child - vrank + span), (child + root) % size));
  }
  yield sends;
  return items[0]!;
}

export function* scatterv<A extends TypedArray>(call: CollectiveCall, data: A | undefined, counts: readonly number[] | undefined, root: number): Steps<A> {
  const { rank, size } = call;
  if (rank === root) {
    if (data === undefined || !ArrayBuffer.isView(data)) {
      throw new TsmpiError(ErrorCode.Type, 'the root must pass a typed array to scatterv', { rank, operation: call.operation, hint: 'pass the concatenated data as a typed array' });
    }
    checkCounts(counts as number[], size, call.operation, rank);
    const displs = displacements(counts!);
    const total = displs[size - 1]! + counts![size - 1]!;
    if (total !== data.length) {
      throw new TsmpiError(ErrorCode.Count, `counts add up to ${total} but the data has ${data.length} elements`, {
        rank,
        operation: call.operation,
        hint: 'the counts must add up to the length of the root\'s data',
      });
    }
    const sends: Request<void>[] = [];
    for (let r = 0; r < size; r++) if (r !== root) sends.push(call.send(data.subarray(displs[r]!, displs[r]! + counts![r]!), r));
    yield sends;
    const mine = allocateLike(data, counts![root]!);
    mine.set(data.subarray(displs[root]!, displs[root]! + counts![root]!) as never);
    return mine;
  }
  return (yield call.recv<A>(root)) as A;
}
