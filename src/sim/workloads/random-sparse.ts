/**
 * Random sparse exchange: each step every rank sends to `degree` distinct peers drawn at random,
 * with sizes drawn uniformly from [minBytes, maxBytes], then computes.
 *
 * Not one of the paper's six classes: an irregular pattern with no locality (graph analytics,
 * unstructured meshes after a bad partition), the case where message order and aggregation are
 * left entirely to the runtime. Who receives what is computed before any action is written, so
 * every send has its receive: by default each receive names its source and exact size (as a
 * recorded trace would); with `anySource`, a rank posts as many any-source receives as messages
 * will reach it, each with a `maxBytes` buffer. Messages are tagged with the step (mod 32768), so
 * that an any-source receive never takes a message of the next step.
 */
import type { Action } from '../replay/actions.js';
import { ProgramBuilder, superstep, type Message } from './builder.js';
import { boolParam, intParam, numParam, requireParams } from './params.js';
import { Rng } from '../../rng.js';

export interface RandomSparseOptions {
  ranks: number;
  steps?: number;
  /** Peers each rank sends to, per step (at most ranks - 1). */
  degree?: number;
  minBytes?: number;
  maxBytes?: number;
  flops?: number;
  seed?: number;
  anySource?: boolean;
}

export const RANDOM_SPARSE_DEFAULTS = { steps: 10, degree: 3, minBytes: 1024, maxBytes: 256 * 1024, flops: 1e8, seed: 1, anySource: false } as const;

export function randomSparse(options: RandomSparseOptions): Map<number, Action[]> {
  const w = 'random-sparse';
  const d = RANDOM_SPARSE_DEFAULTS;
  const ranks = intParam(w, 'ranks', options.ranks, undefined, 1);
  const steps = intParam(w, 'steps', options.steps, d.steps);
  const degree = intParam(w, 'degree', options.degree, Math.min(d.degree, ranks - 1), 0, ranks - 1);
  const minBytes = intParam(w, 'minBytes', options.minBytes, Math.min(d.minBytes, options.maxBytes ?? d.minBytes));
  const maxBytes = intParam(w, 'maxBytes', options.maxBytes, Math.max(d.maxBytes, minBytes));
  requireParams(w, minBytes <= maxBytes, `minBytes ${minBytes} is above maxBytes ${maxBytes}`, 'give minBytes <= maxBytes');
  const flops = numParam(w, 'flops', options.flops, d.flops);
  const rng = new Rng(intParam(w, 'seed', options.seed, d.seed));
  const anySource = boolParam(w, 'anySource', options.anySource, d.anySource);
  const b = new ProgramBuilder(ranks);
  for (let step = 0; step < steps; step++) {
    const messages: Message[] = [];
    for (let r = 0; r < ranks; r++) {
      // draw from the other ranks: index i stands for rank (r + 1 + i) mod n
      for (const i of rng.sample(ranks - 1, degree)) {
        messages.push({ src: r, dst: (r + 1 + i) % ranks, tag: step % 32768, bytes: rng.int(minBytes, maxBytes) });
      }
    }
    superstep(b, messages, anySource ? maxBytes : undefined);
    for (let r = 0; r < ranks; r++) b.compute(r, flops);
  }
  return b.build();
}
