/**
 * Broadcast.
 * - binomial tree (any value): the root's subtree halves each round; ceil(log2 p) rounds. The
 *   value is encoded once at the root and forwarded undecoded by inner ranks.
 * - scatter-allgather (van de Geijn; large buffers, `bcastInto`): a binomial scatter of p blocks,
 *   then a ring allgather; each link carries about 2n bytes instead of n log p.
 * - binomial-blocking (SimGrid's): the same tree, each rank sending to its children one after
 *   another with blocking sends, largest subtree first.
 * - linear: the root sends to every rank.
 */
import { decodeEncoded, encodeValue, type Encoded } from '../codec.js';
import type { Request } from '../request.js';
import { blockOffsets, type CollectiveCall } from './call.js';
import { wait, type Steps } from './steps.js';
import { selectBcast, selectBcastInto } from './select.js';

import { binomialChildren, binomialParent, ceilPowerOfTwo } from './tree.js';

/** Sends to a tree node's children: all at once, or (binomial-blocking) each waited for in turn. */
function* toChildren(children: readonly number[], blocking: boolean, send: (child: number) => Request<void>): Steps<void> {
  if (!blocking) {
    yield children.map(send);
    return;
  }
  for (const child of children) yield* wait(send(child));
}

export function* bcast<T>(call: CollectiveCall, value: T, root: number): Steps<T> {
  const { rank, size } = call;
  if (size === 1) return value;
  if (selectBcast(call.settings) === 'linear') {
    if (rank === root) {
      const encoded = encodeValue(value, rank, call.operation);
      const sends: Request<void>[] = [];
      for (let r = 0; r < size; r++) if (r !== root) sends.push(call.sendEncoded(encoded, r));
      yield sends;
      return value;
    }
    return yield* wait(call.recv<T>(root));
  }
  const vrank = (rank - root + size) % size;
  let encoded: Encoded;
  if (vrank === 0) {
    encoded = encodeValue(value, rank, call.operation);
  } else {
    const { parent } = binomialParent(vrank);
    encoded = yield* wait(call.recvEncoded((parent + root) % size));
  }
  yield* toChildren(binomialChildren(vrank, size), selectBcast(call.settings) === 'binomial-blocking', (child) => call.sendEncoded(encoded, (child + root) % size));
  return vrank === 0 ? value : (decodeEncoded(encoded) as T);
}

/** Broadcasts the root's `bytes` into every rank's `bytes` (same length everywhere). */
export function* bcastBytes(call: CollectiveCall, bytes: Uint8Array, root: number): Steps<void> {
  const { rank, size } = call;
  if (size === 1) return;
  const algorithm = selectBcastInto(call.settings, size, bytes.length);
  if (algorithm === 'linear') {
    if (rank === root) {
      const sends: Request<void>[] = [];
      for (let r = 0; r < size; r++) if (r !== root) sends.push(call.send(bytes, r));
      yield sends;
    } else {
      yield* wait(call.recvInto(bytes, root));
    }
    return;
  }
  const vrank = (rank - root + size) % size;
  if (algorithm === 'binomial' || algorithm === 'binomial-blocking') {
    if (vrank !== 0) yield* wait(call.recvInto(bytes, (binomialParent(vrank).parent + root) % size));
    yield* toChildren(binomialChildren(vrank, size), algorithm === 'binomial-blocking', (child) => call.send(bytes, (child + root) % size));
    return;
  }
  // Scatter-allgather: block b belongs to vrank b.
  const offsets = blockOffsets(bytes.length, size);
  const range = (fromV: number, toV: number): Uint8Array => bytes.subarray(offsets[Math.min(fromV, size)]!, offsets[Math.min(toV, size)]!);
  if (vrank !== 0) {
    const { parent, mask } = binomialParent(vrank);
    const mine = range(vrank, vrank + mask);
    if (mine.length > 0) yield* wait(call.recvInto(mine, (parent + root) % size));
  }
  const sends: Request<void>[] = [];
  const { parent, mask } = binomialParent(vrank);
  let m = parent < 0 ? ceilPowerOfTwo(size) : mask;
  for (m = m / 2; m >= 1; m /= 2) {
    const child = vrank + m;
    if (child < size) {
      const part = range(child, child + m);
      if (part.length > 0) sends.push(call.send(part, (child + root) % size));
    }
  }
  yield sends;
  // Ring allgather of the blocks among vranks.
  const right = (vrank + 1) % size;
  const left = (vrank - 1 + size) % size;
  for (let step = 0; step < size - 1; step++) {
    const sendBlock = (vrank - step + size) % size;
    const recvBlock = (vrank - step - 1 + size) % size;
    const out = range(sendBlock, sendBlock + 1);
    const into = range(recvBlock, recvBlock + 1);
    const receive = into.length > 0 ? call.recvInto(into, (left + root) % size) : undefined;
    const send = out.length > 0 ? call.send(out, (right + root) % size) : undefined;
    if (receive) yield* wait(receive);
    if (send) yield* wait(send);
  }
}
