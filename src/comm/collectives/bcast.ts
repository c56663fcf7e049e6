/**
 * Broadcast.
 * - binomial tree (any value): the root's subtree halves each round; ceil(log2 p) rounds. The
 *   value is encoded once at the root and forwarded undecoded by inner ranks.
 * - scatter-allgather (van de Geijn; large buffers, `bcastInto`): a binomial scatter of p blocks,
 *   then a ring allgather; each link carries about 2n bytes instead of n log p.
 * - binomial-blocking (SimGrid's): the same tree, each rank sending to its children one after
 *   another with blocking sends, largest subtree first.
 * - linear: the root sends to every rank.
 * - shared (a world of threads; `bcast` of a value only when forced): the root's bytes (a
 *   `bcast`'s encoded value) go through slots of the process's shared memory that every rank
 *   reads (shared-bcast.ts).
 */
import { decodeEncoded, encodeValue, type Encoded } from '../codec.js';
import type { Request } from '../request.js';
import { blockOffsets, type CollectiveCall } from './call.js';
import { NOTHING_LEFT, type Awaitable, type Steps } from './steps.js';
import { selectBcast, selectBcastInto } from './select.js';

import { binomialChildren, binomialParent, ceilPowerOfTwo, hasBinomialChildren } from './tree.js';

export function* bcast<T>(call: CollectiveCall, value: T, root: number): Steps<T> {
  const { rank, size } = call;
  if (size === 1) return value;
  const algorithm = selectBcast(call.settings, call.sharedBcastAvailable);
  if (algorithm === 'shared') {
    // The readers learn the value's length and kind from its first chunk.
    if (rank === root) {
      yield call.sharedBcastEncoded(encodeValue(value, rank, call.operation), root);
      return value;
    }
    return decodeEncoded((yield call.sharedBcastEncoded(undefined, root)) as Encoded) as T;
  }
  if (algorithm === 'linear') {
    if (rank === root) {
      const encoded = encodeValue(value, rank, call.operation);
      const sends: Request<void>[] = [];
      for (let r = 0; r < size; r++) if (r !== root) sends.push(call.sendEncoded(encoded, r));
      yield sends;
      return value;
    }
    return (yield call.recv<T>(root)) as T;
  }
  const vrank = (rank - root + size) % size;
  let encoded: Encoded;
  if (vrank === 0) {
    encoded = encodeValue(value, rank, call.operation);
  } else {
    const { parent } = binomialParent(vrank);
    encoded = (yield call.recvEncoded((parent + root) % size)) as Encoded;
  }
  const children = binomialChildren(vrank, size);
  if (algorithm === 'binomial-blocking') for (const child of children) yield call.sendEncoded(encoded, (child + root) % size);
  else if (children.length === 1) yield call.sendEncoded(encoded, (children[0]! + root) % size);
  else if (children.length > 1) {
    const sends: Request<void>[] = [];
    for (const child of children) sends.push(call.sendEncoded(encoded, (child + root) % size));
    yield sends;
  }
  return vrank === 0 ? value : (decodeEncoded(encoded) as T);
}

/** Broadcasts the root's `bytes` into every rank's `bytes` (same length everywhere). */
export function bcastBytes(call: CollectiveCall, bytes: Uint8Array, root: number): Steps<void> {
  const size = call.size;
  if (size === 1) return noSteps();
  const algorithm = selectBcastInto(call.settings, size, bytes.length, call.crowded, call.sharedBcastAvailable);
  if (algorithm === 'shared') return sharedBcast(call, bytes, root);
  if (algorithm === 'linear') return linearBcast(call, bytes, root);
  if (algorithm === 'binomial' || algorithm === 'binomial-blocking') return binomialBcast(call, bytes, root, algorithm === 'binomial-blocking');
  return scatterAllgather(call, bytes, root);
}

function* sharedBcast(call: CollectiveCall, bytes: Uint8Array, root: number): Steps<void> {
  yield call.sharedBcast(bytes, root);
}

/**
 * This rank's part of a binomial bcast when it is one request, made now: a leaf's receive from
 * its parent, or the root's send to its one child (2 ranks). Undefined when the part is more or
 * nothing, or the rank is traced: run {@link bcastBytes} then.
 */
export function bcastBytesStep(call: CollectiveCall, bytes: Uint8Array, root: number): Awaitable | undefined {
  const size = call.size;
  if (size === 1 || call.traced) return undefined;
  const algorithm = selectBcastInto(call.settings, size, bytes.length, call.crowded, call.sharedBcastAvailable);
  if (algorithm === 'shared') return call.sharedBcastNow(bytes, root) ? NOTHING_LEFT : call.sharedBcast(bytes, root);
  if (algorithm !== 'binomial' && algorithm !== 'binomial-blocking') return undefined;
  const vrank = (call.rank - root + size) % size;
  if (vrank === 0) {
    if (size !== 2) return undefined;
    const child = (root + 1) % size;
    return call.sendStep(bytes, child) ?? NOTHING_LEFT;
  }
  if (hasBinomialChildren(vrank, size)) return undefined;
  const parent = (vrank - (vrank & -vrank) + root) % size;
  return call.recvIntoStep(bytes, parent) ?? NOTHING_LEFT;
}

// The algorithms are generators of their own: a generator keeps every local of its function, so
// one that held all of them cost each small bcast a few hundred bytes more.

function* noSteps(): Steps<void> {}

function* linearBcast(call: CollectiveCall, bytes: Uint8Array, root: number): Steps<void> {
  if (call.rank === root) {
    const sends: Request<void>[] = [];
    for (let r = 0; r < call.size; r++) if (r !== root) sends.push(call.send(bytes, r));
    yield sends;
  } else {
    yield call.recvInto(bytes, root);
  }
}

function* binomialBcast(call: CollectiveCall, bytes: Uint8Array, root: number, blocking: boolean): Steps<void> {
  const size = call.size;
  const vrank = (call.rank - root + size) % size;
  // The parent is vrank less its lowest set bit (binomialParent, without its record).
  if (vrank !== 0) yield call.recvInto(bytes, (vrank - (vrank & -vrank) + root) % size);
  if (!hasBinomialChildren(vrank, size)) return;
  const children = binomialChildren(vrank, size);
  if (blocking) for (const child of children) yield call.send(bytes, (child + root) % size);
  else {
    // A send its link takes at once needs no request (sendStep): a small bcast's root and inner
    // ranks made one per child, a tenth of their time with the collection it caused.
    let sends: Request<void>[] | undefined;
    for (const child of children) {
      const send = call.sendStep(bytes, (child + root) % size);
      if (send !== undefined) (sends ??= []).push(send);
    }
    if (sends !== undefined) yield sends.length === 1 ? sends[0]! : sends;
  }
}

/**
 * Scatter-allgather, its own generator: its closures would otherwise make every call of
 * {@link bcastBytes}, small ones too, allocate their context.
 */
function* scatterAllgather(call: CollectiveCall, bytes: Uint8Array, root: number): Steps<void> {
  const { rank, size } = call;
  const vrank = (rank - root + size) % size;
  // Block b belongs to vrank b.
  const offsets = blockOffsets(bytes.length, size);
  const range = (fromV: number, toV: number): Uint8Array => bytes.subarray(offsets[Math.min(fromV, size)]!, offsets[Math.min(toV, size)]!);
  if (vrank !== 0) {
    const { parent, mask } = binomialParent(vrank);
    const mine = range(vrank, vrank + mask);
    if (mine.length > 0) yield call.recvInto(mine, (parent + root) % size);
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
    if (receive) yield receive;
    if (send) yield send;
  }
}
