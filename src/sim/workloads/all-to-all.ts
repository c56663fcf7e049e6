/**
 * All-to-all: every rank exchanges `bytes` with every other rank each step, then computes.
 *
 * Not one of the paper's six classes: the dense extreme that bounds them (a spectral transform,
 * a global transpose), where every node pair carries traffic and reordering matters most. By
 * default each step is one `alltoall` collective; with `p2p` it is the same exchange as explicit
 * irecv/isend/waitall, which a batch planner (reorder, aggregate) can see and rearrange. In p2p
 * mode rank r sends to r+1, r+2, ... (mod n), so that not every rank starts with rank 0. With
 * `rounds` the p2p exchange runs as the pairwise algorithm does, in n - 1 rounds (round k: send
 * to r + k, receive from r - k, wait): one message per rank in flight instead of n - 1, which is
 * what lets thousands of ranks exchange large messages in the simulator's memory.
 */
import type { Action } from '../replay/actions.js';
import { ProgramBuilder, superstep, type Message } from './builder.js';
import { boolParam, intParam, numParam } from './params.js';

export interface AllToAllOptions {
  ranks: number;
  steps?: number;
  /** Bytes from each rank to each other rank, per step. */
  bytes?: number;
  /** Flops per step, per rank. */
  flops?: number;
  /** Explicit point-to-point messages instead of the alltoall collective. */
  p2p?: boolean;
  /** With p2p: n - 1 rounds of one exchange each, waited in turn (the pairwise algorithm). */
  rounds?: boolean;
}

export const ALL_TO_ALL_DEFAULTS = { steps: 10, bytes: 16 * 1024, flops: 1e8, p2p: false, rounds: false } as const;

export function allToAll(options: AllToAllOptions): Map<number, Action[]> {
  const w = 'all-to-all';
  const ranks = intParam(w, 'ranks', options.ranks, undefined, 1);
  const steps = intParam(w, 'steps', options.steps, ALL_TO_ALL_DEFAULTS.steps);
  const bytes = numParam(w, 'bytes', options.bytes, ALL_TO_ALL_DEFAULTS.bytes);
  const flops = numParam(w, 'flops', options.flops, ALL_TO_ALL_DEFAULTS.flops);
  const p2p = boolParam(w, 'p2p', options.p2p, ALL_TO_ALL_DEFAULTS.p2p);
  const rounds = boolParam(w, 'rounds', options.rounds, ALL_TO_ALL_DEFAULTS.rounds);
  const b = new ProgramBuilder(ranks);
  const shifts: Message[][] = [];
  for (let k = 1; k < ranks; k++) shifts.push(Array.from({ length: ranks }, (_, r) => ({ src: r, dst: (r + k) % ranks, tag: 0, bytes })));
  const messages = shifts.flat();
  for (let step = 0; step < steps; step++) {
    if (p2p && rounds) for (const shift of shifts) superstep(b, shift);
    else if (p2p) superstep(b, messages);
    else b.all({ op: 'alltoall', sendBytes: bytes, recvBytes: bytes });
    for (let r = 0; r < ranks; r++) b.compute(r, flops);
  }
  return b.build();
}
