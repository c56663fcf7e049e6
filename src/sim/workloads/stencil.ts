/**
 * Halo-exchange stencils on a Cartesian process grid.
 *
 * Application classes of the reorder-and-aggregation paper they stand for: **electromagnetics**
 * (Jems_td, a 3-D time-domain full-wave solver: an FDTD code exchanges the faces of its field
 * blocks every step) and **radiation hydrodynamics** (Lareds, interface instabilities: an
 * explicit hydro step exchanges ghost cells with the face neighbours). Both are, for the
 * network, a fixed neighbour pattern of equal messages every step followed by local work.
 *
 * Each step, every rank posts an irecv from each face neighbour, an isend to each (tagged with
 * the direction of travel: -x 0, +x 1, -y 2, +y 3, -z 4, +z 5), waits for all, then computes.
 * Without `periodic`, ranks on the boundary have fewer neighbours (a corner of a 2-D grid has 2);
 * with it, every rank has 4 (2-D) or 6 (3-D), except along an axis of extent 1, where a code
 * copies its own halo and sends nothing.
 */
import type { Action } from '../replay/actions.js';
import { ProgramBuilder, haloMessages, superstep } from './builder.js';
import { boolParam, intParam, numParam } from './params.js';

export interface StencilOptions {
  /** Time steps. */
  steps?: number;
  /** Bytes of each face (halo) message. */
  bytes?: number;
  /** Flops of the local update per step, per rank. */
  flops?: number;
  /** Wrap around at the grid's edges (a torus). */
  periodic?: boolean;
}

export interface Stencil2dOptions extends StencilOptions {
  px: number;
  py: number;
}

export interface Stencil3dOptions extends StencilOptions {
  px: number;
  py: number;
  pz: number;
}

export const STENCIL_DEFAULTS = { steps: 10, bytes: 64 * 1024, flops: 1e8, periodic: false } as const;

/** A 2-D five-point stencil on px x py ranks (rank = x + px * y). */
export function stencil2d(options: Stencil2dOptions): Map<number, Action[]> {
  const w = 'stencil2d';
  return stencil(w, [intParam(w, 'px', options.px, undefined, 1), intParam(w, 'py', options.py, undefined, 1)], options);
}

/** A 3-D seven-point stencil on px x py x pz ranks (rank = x + px * (y + py * z)). */
export function stencil3d(options: Stencil3dOptions): Map<number, Action[]> {
  const w = 'stencil3d';
  const dims = [intParam(w, 'px', options.px, undefined, 1), intParam(w, 'py', options.py, undefined, 1), intParam(w, 'pz', options.pz, undefined, 1)];
  return stencil(w, dims, options);
}

function stencil(w: string, dims: number[], options: StencilOptions): Map<number, Action[]> {
  const steps = intParam(w, 'steps', options.steps, STENCIL_DEFAULTS.steps);
  const bytes = numParam(w, 'bytes', options.bytes, STENCIL_DEFAULTS.bytes);
  const flops = numParam(w, 'flops', options.flops, STENCIL_DEFAULTS.flops);
  const periodic = boolParam(w, 'periodic', options.periodic, STENCIL_DEFAULTS.periodic);
  const b = new ProgramBuilder(dims.reduce((a, c) => a * c, 1));
  const messages = haloMessages(dims, periodic, () => bytes);
  for (let step = 0; step < steps; step++) {
    superstep(b, messages);
    for (let r = 0; r < b.ranks; r++) b.compute(r, flops);
  }
  return b.build();
}
