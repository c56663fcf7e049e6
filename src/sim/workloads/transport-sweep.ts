/**
 * A KBA wavefront sweep (Koch, Baker and Alcouffe) for discrete-ordinates transport.
 *
 * Application class of the reorder-and-aggregation paper it stands for: **transport** (Jsnt,
 * coupled neutron-photon discrete-ordinates transport for shielding and core analysis). The
 * spatial grid is split over a px x py grid of ranks, each owning a column along z. For each
 * octant of directions the sweep starts at one corner: a rank waits for the angular fluxes of
 * its upstream x and y neighbours, computes its block, and passes fluxes downstream. The column
 * is cut into `zBlocks` blocks and the angles of an octant into `angles` groups, so each octant
 * is a pipeline of angles x zBlocks stages and ranks along a diagonal work at the same time.
 *
 * Per stage: blocking recv from the upstream x then y neighbour (where there is one; the grid is
 * not periodic), compute `flops`, isend `bytes` to the downstream x and y neighbours (tag = the
 * octant). Each octant ends with a waitall; each step (a source iteration) with an allreduce of
 * the convergence norm. Octant o sweeps towards -x when o & 1, towards -y when o & 2 (octants
 * 4..7 repeat the pattern for -z, which changes nothing across ranks).
 */
import type { Action } from '../replay/actions.js';
import { ProgramBuilder, neighbour } from './builder.js';
import { intParam, numParam } from './params.js';

export interface TransportSweepOptions {
  px: number;
  py: number;
  /** Source iterations, each a sweep of every octant. */
  steps?: number;
  /** Angle groups per octant. */
  angles?: number;
  /** Blocks along z per column. */
  zBlocks?: number;
  /** Bytes of the flux passed downstream per stage and direction. */
  bytes?: number;
  /** Flops per stage. */
  flops?: number;
  /** 8 for a 3-D problem, 4 for 2-D. */
  octants?: number;
}

export const SWEEP_DEFAULTS = { steps: 3, angles: 4, zBlocks: 4, bytes: 8 * 1024, flops: 1e6, octants: 8 } as const;

export function transportSweep(options: TransportSweepOptions): Map<number, Action[]> {
  const w = 'transport-sweep';
  const d = SWEEP_DEFAULTS;
  const dims = [intParam(w, 'px', options.px, undefined, 1), intParam(w, 'py', options.py, undefined, 1)];
  const steps = intParam(w, 'steps', options.steps, d.steps);
  const angles = intParam(w, 'angles', options.angles, d.angles, 1);
  const zBlocks = intParam(w, 'zBlocks', options.zBlocks, d.zBlocks, 1);
  const bytes = numParam(w, 'bytes', options.bytes, d.bytes);
  const flops = numParam(w, 'flops', options.flops, d.flops);
  const octants = intParam(w, 'octants', options.octants, d.octants, 1, 8);
  const ranks = dims[0]! * dims[1]!;
  const b = new ProgramBuilder(ranks);
  for (let step = 0; step < steps; step++) {
    for (let o = 0; o < octants; o++) {
      // direction of travel along x: +x (1) unless o & 1; along y: +y (3) unless o & 2
      const downX = o & 1 ? 0 : 1;
      const downY = o & 2 ? 2 : 3;
      for (let r = 0; r < ranks; r++) {
        const upstream = [neighbour(r, dims, downX ^ 1, false), neighbour(r, dims, downY ^ 1, false)];
        const downstream = [neighbour(r, dims, downX, false), neighbour(r, dims, downY, false)];
        for (let stage = 0; stage < angles * zBlocks; stage++) {
          for (const src of upstream) if (src !== undefined) b.push(r, { op: 'recv', src, tag: o, bytes });
          b.compute(r, flops);
          for (const dst of downstream) if (dst !== undefined) b.push(r, { op: 'isend', dst, tag: o, bytes });
        }
        // Every rank closes the octant (a waitall with nothing pending costs nothing), so the
        // octants are supersteps for the batch planners too.
        b.push(r, { op: 'waitall' });
      }
    }
    b.all({ op: 'allreduce', bytes: 8, flops: 1 });
  }
  return b.build();
}
