/**
 * What the generators share: a program builder (each rank's list opens with `init` and closes
 * with `finalize`), Cartesian process grids with their neighbours, and the BSP superstep every
 * generator is made of: post the receives, post the sends, wait for all.
 */
import { ANY_SOURCE, type Action } from '../replay/actions.js';

export class ProgramBuilder {
  readonly ranks: number;
  private readonly lists: Action[][];

  constructor(ranks: number) {
    this.ranks = ranks;
    this.lists = Array.from({ length: ranks }, () => [{ op: 'init' }]);
  }

  push(rank: number, action: Action): void {
    this.lists[rank]!.push(action);
  }

  /** The same action (or one made per rank) on every rank. */
  all(action: Action | ((rank: number) => Action | undefined)): void {
    for (let r = 0; r < this.ranks; r++) {
      const a = typeof action === 'function' ? action(r) : action;
      if (a !== undefined) this.lists[r]!.push(a);
    }
  }

  /** `compute` on one rank, skipped when there is nothing to compute. */
  compute(rank: number, flops: number): void {
    if (flops > 0) this.push(rank, { op: 'compute', flops });
  }

  build(): Map<number, Action[]> {
    const out = new Map<number, Action[]>();
    this.lists.forEach((list, r) => out.set(r, [...list, { op: 'finalize' }]));
    return out;
  }
}

/** One point-to-point message of a superstep. */
export interface Message {
  src: number;
  dst: number;
  tag: number;
  bytes: number;
}

/**
 * A BSP superstep: each rank posts an irecv for every message it gets (in the order given), then
 * an isend for every message it sends, then a waitall. With `anySourceBytes`, receives name no
 * source and take a buffer of that many bytes, as a code that does not know its senders would.
 */
export function superstep(b: ProgramBuilder, messages: readonly Message[], anySourceBytes?: number): void {
  const recvs: Action[][] = Array.from({ length: b.ranks }, () => []);
  const sends: Action[][] = Array.from({ length: b.ranks }, () => []);
  for (const m of messages) {
    recvs[m.dst]!.push(anySourceBytes === undefined
      ? { op: 'irecv', src: m.src, tag: m.tag, bytes: m.bytes }
      : { op: 'irecv', src: ANY_SOURCE, tag: m.tag, bytes: anySourceBytes });
    sends[m.src]!.push({ op: 'isend', dst: m.dst, tag: m.tag, bytes: m.bytes });
  }
  for (let r = 0; r < b.ranks; r++) {
    if (recvs[r]!.length + sends[r]!.length === 0) continue;
    for (const a of recvs[r]!) b.push(r, a);
    for (const a of sends[r]!) b.push(r, a);
    b.push(r, { op: 'waitall' });
  }
}

/**
 * A balanced factorisation of `ranks` into `ndims` extents, largest first, as MPI_Dims_create
 * gives: 12 -> [4, 3], 8 -> [2, 2, 2], 7 -> [7, 1].
 */
export function gridDims(ranks: number, ndims: number): number[] {
  const dims = new Array<number>(ndims).fill(1);
  const factors: number[] = [];
  let n = ranks;
  for (let p = 2; p * p <= n; p++) while (n % p === 0) { factors.push(p); n /= p; }
  if (n > 1) factors.push(n);
  for (const f of factors.sort((a, b) => b - a)) {
    let smallest = 0;
    for (let i = 1; i < ndims; i++) if (dims[i]! < dims[smallest]!) smallest = i;
    dims[smallest]! *= f;
  }
  return dims.sort((a, b) => b - a);
}

/** Coordinates of a rank in a grid, the first axis varying fastest. */
export function coordsOf(rank: number, dims: readonly number[]): number[] {
  const out: number[] = [];
  let r = rank;
  for (const d of dims) { out.push(r % d); r = Math.floor(r / d); }
  return out;
}

export function rankAt(coords: readonly number[], dims: readonly number[]): number {
  let rank = 0;
  for (let i = dims.length - 1; i >= 0; i--) rank = rank * dims[i]! + coords[i]!;
  return rank;
}

/**
 * Direction d of a grid: axis d >> 1, towards lower coordinates when d is even (-x = 0, +x = 1,
 * -y = 2, +y = 3, -z = 4, +z = 5). The opposite direction is d ^ 1.
 */
export function neighbour(rank: number, dims: readonly number[], dir: number, periodic: boolean): number | undefined {
  const axis = dir >> 1;
  const extent = dims[axis]!;
  if (extent === 1) return undefined; // a code with one rank along an axis copies its own halo
  const c = coordsOf(rank, dims);
  const moved = c[axis]! + (dir & 1 ? 1 : -1);
  if (moved < 0 || moved >= extent) {
    if (!periodic) return undefined;
    c[axis] = (moved + extent) % extent;
  } else {
    c[axis] = moved;
  }
  return rankAt(c, dims);
}

/**
 * The halo messages of one step on a grid: from each rank to each neighbour, tagged with the
 * direction of travel (so that, on a periodic axis of extent 2, the two messages between the same
 * pair stay apart). `bytes(rank, dir)` sizes each.
 */
export function haloMessages(dims: readonly number[], periodic: boolean, bytes: (rank: number, dir: number) => number, tagBase = 0): Message[] {
  const ranks = dims.reduce((a, b) => a * b, 1);
  const out: Message[] = [];
  for (let r = 0; r < ranks; r++) {
    for (let dir = 0; dir < 2 * dims.length; dir++) {
      const peer = neighbour(r, dims, dir, periodic);
      if (peer !== undefined) out.push({ src: r, dst: peer, tag: tagBase + dir, bytes: bytes(r, dir) });
    }
  }
  return out;
}
