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
import { checkCounts, displacements } from './gather.js';
import { selectScatter } from './select.js';
import { binomialChildren, binomialParent } from './tree.js';

export async function scatter<T>(call: CollectiveCall, values: readonly T[] | undefined, root: number): Promise<T> {
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
      await Promise.all(values!.map((v, r) => (r === root ? undefined : call.send(v, r).wait())));
      return values![root]!;
    }
    return call.recv<T>(root).wait();
  }
  const vrank = (rank - root + size) % size;
  // items[i] is the value of vrank (vrank + i).
  let items: T[];
  if (vrank === 0) {
    items = new Array(size);
    for (let v = 0; v < size; v++) items[v] = values![(v + root) % size]!;
  } else {
    items = await call.recv<T[]>((binomialParent(vrank).parent + root) % size).wait();
  }
  const sends = [];
  for (const child of binomialChildren(vrank, size)) {
    const span = Math.min(child & -child, size - child);
    sends.push(call.send(items.slice(child - vrank, child - vrank + span), (child + root) % size).wait());
  }
  await Promise.all(sends);
  return items[0]!;
}

export async function scatterv<A extends TypedArray>(call: CollectiveCall, data: A | undefined, counts: readonly number[] | undefined, root: number): Promise<A> {
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
    const sends = [];
    for (let r = 0; r < size; r++) if (r !== root) sends.push(call.send(data.subarray(displs[r]!, displs[r]! + counts![r]!), r).wait());
    await Promise.all(sends);
    const mine = allocateLike(data, counts![root]!);
    mine.set(data.subarray(displs[root]!, displs[root]! + counts![root]!) as never);
    return mine;
  }
  return call.recv<A>(root).wait();
}
