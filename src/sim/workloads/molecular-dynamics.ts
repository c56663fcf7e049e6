/**
 * Molecular dynamics (MD) with a 3-D spatial decomposition.
 *
 * Application class of the reorder-and-aggregation paper it stands for: **molecular dynamics**
 * (Moasp, irradiation damage in reactor cladding materials). A short-range MD step sends the
 * positions of the atoms near each face to the 6 neighbours (ghost atoms), computes forces, and
 * sends the forces on ghost atoms back (Newton's third law); from time to time it sums the
 * energies, and now and then it redistributes atoms to even out the load.
 *
 * Each step: a forward halo (`haloBytes` per face, each drawn within +/- `jitter`, tags 0..5);
 * the force computation (`flops` +/- jitter/2); the reverse halo carrying forces (same sizes in
 * the other direction, tags 6..11). Every `energyEvery` steps an allreduce of 3 doubles
 * (potential, kinetic energy, virial). Every `rebalanceEvery` steps an alltoallv in which each
 * rank sends between 0 and `rebalanceBytes` to `rebalancePeers` random ranks (atoms handed over
 * after a new decomposition). The grid is periodic, as MD boxes are.
 */
import type { Action } from '../replay/actions.js';
import { ProgramBuilder, gridDims, haloMessages, superstep, type Message } from './builder.js';
import { intParam, numParam, requireParams } from './params.js';
import { Rng } from '../../rng.js';

export interface MolecularDynamicsOptions {
  ranks: number;
  steps?: number;
  /** Process grid (default: the most cubic px x py x pz = ranks). */
  px?: number;
  py?: number;
  pz?: number;
  haloBytes?: number;
  /** Relative spread of halo sizes and work between ranks and steps (atoms move). */
  jitter?: number;
  flops?: number;
  /** Steps between energy allreduces (0: never). */
  energyEvery?: number;
  /** Steps between rebalancing alltoallvs (0: never). */
  rebalanceEvery?: number;
  rebalanceBytes?: number;
  rebalancePeers?: number;
  seed?: number;
}

export const MD_DEFAULTS = {
  steps: 50, haloBytes: 48 * 1024, jitter: 0.1, flops: 5e8, energyEvery: 10, rebalanceEvery: 25,
  rebalanceBytes: 32 * 1024, rebalancePeers: 4, seed: 1,
} as const;

export function molecularDynamics(options: MolecularDynamicsOptions): Map<number, Action[]> {
  const w = 'molecular-dynamics';
  const d = MD_DEFAULTS;
  const ranks = intParam(w, 'ranks', options.ranks, undefined, 1);
  const given = options.px !== undefined || options.py !== undefined || options.pz !== undefined;
  const auto = gridDims(ranks, 3);
  const dims = given
    ? [intParam(w, 'px', options.px, undefined, 1), intParam(w, 'py', options.py, undefined, 1), intParam(w, 'pz', options.pz, undefined, 1)]
    : auto;
  requireParams(w, dims[0]! * dims[1]! * dims[2]! === ranks, `px x py x pz = ${dims.join(' x ')} is not ranks ${ranks}`, 'give all of px, py, pz with product ranks, or none');
  const steps = intParam(w, 'steps', options.steps, d.steps);
  const haloBytes = numParam(w, 'haloBytes', options.haloBytes, d.haloBytes);
  const jitter = numParam(w, 'jitter', options.jitter, d.jitter);
  requireParams(w, jitter <= 1, `jitter ${jitter} is above 1`, 'jitter is a relative spread in 0..1');
  const flops = numParam(w, 'flops', options.flops, d.flops);
  const energyEvery = intParam(w, 'energyEvery', options.energyEvery, d.energyEvery);
  const rebalanceEvery = intParam(w, 'rebalanceEvery', options.rebalanceEvery, d.rebalanceEvery);
  const rebalanceBytes = intParam(w, 'rebalanceBytes', options.rebalanceBytes, d.rebalanceBytes);
  const rebalancePeers = intParam(w, 'rebalancePeers', options.rebalancePeers, Math.min(d.rebalancePeers, ranks - 1), 0, ranks - 1);
  const rng = new Rng(intParam(w, 'seed', options.seed, d.seed));

  const b = new ProgramBuilder(ranks);
  for (let step = 0; step < steps; step++) {
    const forward = haloMessages(dims, true, () => Math.round(haloBytes * rng.uniform(1 - jitter, 1 + jitter)));
    superstep(b, forward);
    for (let r = 0; r < ranks; r++) b.compute(r, Math.round(flops * rng.uniform(1 - jitter / 2, 1 + jitter / 2)));
    superstep(b, forward.map((m): Message => ({ src: m.dst, dst: m.src, tag: m.tag + 6, bytes: m.bytes })));
    if (energyEvery > 0 && (step + 1) % energyEvery === 0) b.all({ op: 'allreduce', bytes: 24, flops: 3 });
    if (rebalanceEvery > 0 && (step + 1) % rebalanceEvery === 0) {
      const matrix = Array.from({ length: ranks }, () => new Array<number>(ranks).fill(0));
      for (let r = 0; r < ranks; r++) {
        for (const i of rng.sample(ranks - 1, rebalancePeers)) matrix[r]![(r + 1 + i) % ranks] = rng.int(0, rebalanceBytes);
      }
      b.all((r) => ({ op: 'alltoallv', sendBytes: matrix[r]!, recvBytes: matrix.map((row) => row[r]!) }));
    }
  }
  return b.build();
}
