/**
 * Particle-in-cell (PIC) on a periodic 2-D process grid, with a moving hot spot.
 *
 * Application classes of the reorder-and-aggregation paper it stands for: **PIC** (Ascent,
 * electron energy transport in laser-plasma interaction in an ICF hohlraum) and
 * **laser-plasma** (Lap3d, instabilities of a laser propagating in a plasma). What matters for
 * the network is that particle counts, hence message sizes and work, differ between ranks and
 * change from step to step: the plasma is densest where the laser is, and the laser moves.
 *
 * The load of rank r at step s is `particles * (1 + imbalance * g) * (1 +/- 10%)`, with g a
 * Gaussian bump (width a quarter of the grid) centred on a spot that crosses the grid along x
 * once over the run. Each step: push the particles (`flopsPerParticle` per particle); send the
 * particles that left (about `migrate` of the load, split over the 4 neighbours, each share
 * drawn between 0.5x and 1.5x; tags 8 + direction); exchange the field halo (`fieldBytes` per
 * face, tags 0..3) and solve the field (`fieldFlops`); allreduce the diagnostics.
 */
import type { Action } from '../replay/actions.js';
import { ProgramBuilder, coordsOf, gridDims, haloMessages, superstep } from './builder.js';
import { intParam, numParam, requireParams } from './params.js';
import { Rng } from '../../rng.js';

export interface ParticleInCellOptions {
  ranks: number;
  steps?: number;
  /** Process grid (default: the most square px x py = ranks). */
  px?: number;
  py?: number;
  /** Mean particles per rank. */
  particles?: number;
  /** Bytes per particle (position and momentum: 6 doubles). */
  bytesPerParticle?: number;
  /** Fraction of a rank's particles that leave it each step. */
  migrate?: number;
  /** Extra load at the hot spot's centre, relative to the mean (2: three times the mean). */
  imbalance?: number;
  fieldBytes?: number;
  flopsPerParticle?: number;
  fieldFlops?: number;
  /** Bytes of the per-step diagnostics allreduce. */
  reduceBytes?: number;
  seed?: number;
}

export const PIC_DEFAULTS = {
  steps: 20, particles: 1e6, bytesPerParticle: 48, migrate: 0.02, imbalance: 2, fieldBytes: 64 * 1024,
  flopsPerParticle: 100, fieldFlops: 1e7, reduceBytes: 64, seed: 1,
} as const;

export function particleInCell(options: ParticleInCellOptions): Map<number, Action[]> {
  const w = 'particle-in-cell';
  const d = PIC_DEFAULTS;
  const ranks = intParam(w, 'ranks', options.ranks, undefined, 1);
  const [gx, gy] = gridDims(ranks, 2) as [number, number];
  const px = intParam(w, 'px', options.px, options.py === undefined ? gx : Math.floor(ranks / options.py), 1);
  const py = intParam(w, 'py', options.py, Math.floor(ranks / px), 1);
  requireParams(w, px * py === ranks, `px ${px} x py ${py} is not ranks ${ranks}`, 'give px and py whose product is ranks, or leave them out');
  const steps = intParam(w, 'steps', options.steps, d.steps);
  const particles = numParam(w, 'particles', options.particles, d.particles);
  const bytesPerParticle = numParam(w, 'bytesPerParticle', options.bytesPerParticle, d.bytesPerParticle);
  const migrate = numParam(w, 'migrate', options.migrate, d.migrate);
  requireParams(w, migrate <= 1, `migrate ${migrate} is above 1`, 'migrate is the fraction of particles leaving a rank per step, in 0..1');
  const imbalance = numParam(w, 'imbalance', options.imbalance, d.imbalance);
  const fieldBytes = numParam(w, 'fieldBytes', options.fieldBytes, d.fieldBytes);
  const flopsPerParticle = numParam(w, 'flopsPerParticle', options.flopsPerParticle, d.flopsPerParticle);
  const fieldFlops = numParam(w, 'fieldFlops', options.fieldFlops, d.fieldFlops);
  const reduceBytes = numParam(w, 'reduceBytes', options.reduceBytes, d.reduceBytes);
  const rng = new Rng(intParam(w, 'seed', options.seed, d.seed));

  const dims = [px, py];
  const sigma = Math.max(0.5, Math.max(px, py) / 4);
  const b = new ProgramBuilder(ranks);
  const fieldHalo = haloMessages(dims, true, () => fieldBytes);
  for (let step = 0; step < steps; step++) {
    const cx = ((step + 0.5) / Math.max(1, steps)) * px - 0.5;
    const cy = (py - 1) / 2;
    const load = Array.from({ length: ranks }, (_, r) => {
      const [x, y] = coordsOf(r, dims) as [number, number];
      const dx = Math.min(Math.abs(x - cx), px - Math.abs(x - cx));
      const g = Math.exp(-(dx * dx + (y - cy) * (y - cy)) / (2 * sigma * sigma));
      return particles * (1 + imbalance * g) * rng.uniform(0.9, 1.1);
    });
    for (let r = 0; r < ranks; r++) b.compute(r, Math.round(flopsPerParticle * load[r]!));
    const leaving = (r: number): number => Math.round((load[r]! * migrate) / 4 * rng.uniform(0.5, 1.5)) * bytesPerParticle;
    superstep(b, haloMessages(dims, true, leaving, 8));
    superstep(b, fieldHalo);
    for (let r = 0; r < ranks; r++) b.compute(r, fieldFlops);
    b.all({ op: 'allreduce', bytes: reduceBytes, flops: Math.ceil(reduceBytes / 8) });
  }
  return b.build();
}
