/**
 * The synthetic workloads by name, for `tsmpi sim --workload NAME --param k=v ...`: each with a
 * one-line description and its parameters (kind, meaning, default), so the CLI can list them and
 * turn `k=v` strings into a generator's options. The generators check the values themselves.
 */
import { ErrorCode, TsmpiError } from '../../errors.js';
import type { Action } from '../replay/actions.js';
import { gridDims } from './builder.js';
import { ALL_TO_ALL_DEFAULTS, allToAll, type AllToAllOptions } from './all-to-all.js';
import { MD_DEFAULTS, molecularDynamics, type MolecularDynamicsOptions } from './molecular-dynamics.js';
import { PIC_DEFAULTS, particleInCell, type ParticleInCellOptions } from './particle-in-cell.js';
import { RANDOM_SPARSE_DEFAULTS, randomSparse, type RandomSparseOptions } from './random-sparse.js';
import { STENCIL_DEFAULTS, stencil2d, stencil3d, type Stencil2dOptions, type Stencil3dOptions } from './stencil.js';
import { SWEEP_DEFAULTS, transportSweep, type TransportSweepOptions } from './transport-sweep.js';

export type ParamValue = number | boolean;

export interface WorkloadParam {
  name: string;
  kind: 'int' | 'number' | 'bool';
  doc: string;
  /** Absent: required. 'auto': derived from the other parameters. */
  default?: ParamValue | 'auto';
}

export interface WorkloadInfo {
  name: string;
  aliases: readonly string[];
  description: string;
  params: readonly WorkloadParam[];
}

interface Entry extends WorkloadInfo {
  build(params: Record<string, ParamValue>): Map<number, Action[]>;
}

const int = (name: string, doc: string, dflt?: number | 'auto'): WorkloadParam => (dflt === undefined ? { name, kind: 'int', doc } : { name, kind: 'int', doc, default: dflt });
const num = (name: string, doc: string, dflt: number): WorkloadParam => ({ name, kind: 'number', doc, default: dflt });
const bool = (name: string, doc: string, dflt: boolean): WorkloadParam => ({ name, kind: 'bool', doc, default: dflt });

const S = STENCIL_DEFAULTS;
const stencilParams = [
  int('steps', 'time steps', S.steps), num('bytes', 'bytes per face message', S.bytes),
  num('flops', 'flops per step per rank', S.flops), bool('periodic', 'wrap around at the edges', S.periodic),
];

const ENTRIES: readonly Entry[] = [
  {
    name: 'stencil2d', aliases: [], params: [int('px', 'ranks along x'), int('py', 'ranks along y'), ...stencilParams],
    description: '2-D halo exchange with 4 neighbours (Isend/Irecv/waitall) then compute, each step: electromagnetics, radiation hydrodynamics',
    build: (p) => stencil2d(p as unknown as Stencil2dOptions),
  },
  {
    name: 'stencil3d', aliases: [], params: [int('px', 'ranks along x'), int('py', 'ranks along y'), int('pz', 'ranks along z'), ...stencilParams],
    description: '3-D halo exchange with 6 neighbours then compute, each step: electromagnetics (FDTD), radiation hydrodynamics',
    build: (p) => stencil3d(p as unknown as Stencil3dOptions),
  },
  {
    name: 'all-to-all', aliases: ['alltoall'],
    params: [int('ranks', 'ranks'), int('steps', 'steps', ALL_TO_ALL_DEFAULTS.steps), num('bytes', 'bytes to each peer per step', ALL_TO_ALL_DEFAULTS.bytes), num('flops', 'flops per step per rank', ALL_TO_ALL_DEFAULTS.flops), bool('p2p', 'explicit irecv/isend instead of the alltoall collective', ALL_TO_ALL_DEFAULTS.p2p), bool('rounds', 'with p2p: n - 1 rounds of one exchange each (the pairwise algorithm)', ALL_TO_ALL_DEFAULTS.rounds)],
    description: 'every rank exchanges with every other each step (the alltoall collective, or point-to-point with p2p=true)',
    build: (p) => allToAll(p as unknown as AllToAllOptions),
  },
  {
    name: 'random-sparse', aliases: ['sparse'],
    params: [
      int('ranks', 'ranks'), int('steps', 'steps', RANDOM_SPARSE_DEFAULTS.steps), int('degree', 'peers per rank per step', 'auto'),
      int('minBytes', 'smallest message', RANDOM_SPARSE_DEFAULTS.minBytes), int('maxBytes', 'largest message', RANDOM_SPARSE_DEFAULTS.maxBytes),
      num('flops', 'flops per step per rank', RANDOM_SPARSE_DEFAULTS.flops), int('seed', 'random seed', RANDOM_SPARSE_DEFAULTS.seed),
      bool('anySource', 'receives name no source (buffers of maxBytes)', RANDOM_SPARSE_DEFAULTS.anySource),
    ],
    description: 'each rank sends to `degree` random distinct peers per step, sizes uniform in [minBytes, maxBytes]',
    build: (p) => randomSparse(p as unknown as RandomSparseOptions),
  },
  {
    name: 'particle-in-cell', aliases: ['pic'],
    params: [
      int('ranks', 'ranks'), int('steps', 'steps', PIC_DEFAULTS.steps), int('px', 'ranks along x', 'auto'), int('py', 'ranks along y', 'auto'),
      num('particles', 'mean particles per rank', PIC_DEFAULTS.particles), num('bytesPerParticle', 'bytes per particle', PIC_DEFAULTS.bytesPerParticle),
      num('migrate', 'fraction of particles leaving a rank per step', PIC_DEFAULTS.migrate), num('imbalance', 'extra load at the hot spot, relative to the mean', PIC_DEFAULTS.imbalance),
      num('fieldBytes', 'field halo bytes per face', PIC_DEFAULTS.fieldBytes), num('flopsPerParticle', 'push flops per particle', PIC_DEFAULTS.flopsPerParticle),
      num('fieldFlops', 'field solve flops per step', PIC_DEFAULTS.fieldFlops), num('reduceBytes', 'diagnostics allreduce bytes', PIC_DEFAULTS.reduceBytes),
      int('seed', 'random seed', PIC_DEFAULTS.seed),
    ],
    description: 'particle-in-cell: particle migration sized by a moving hot spot (load imbalance), field halo, allreduce per step: PIC, laser-plasma',
    build: (p) => particleInCell(p as unknown as ParticleInCellOptions),
  },
  {
    name: 'molecular-dynamics', aliases: ['md'],
    params: [
      int('ranks', 'ranks'), int('steps', 'steps', MD_DEFAULTS.steps), int('px', 'ranks along x', 'auto'), int('py', 'ranks along y', 'auto'), int('pz', 'ranks along z', 'auto'),
      num('haloBytes', 'ghost-atom bytes per face', MD_DEFAULTS.haloBytes), num('jitter', 'relative spread of sizes and work', MD_DEFAULTS.jitter),
      num('flops', 'force flops per step per rank', MD_DEFAULTS.flops), int('energyEvery', 'steps between energy allreduces (0 never)', MD_DEFAULTS.energyEvery),
      int('rebalanceEvery', 'steps between alltoallv rebalancings (0 never)', MD_DEFAULTS.rebalanceEvery), int('rebalanceBytes', 'largest rebalancing message', MD_DEFAULTS.rebalanceBytes),
      int('rebalancePeers', 'ranks each rank hands atoms to', 'auto'), int('seed', 'random seed', MD_DEFAULTS.seed),
    ],
    description: 'molecular dynamics: 3-D forward and reverse halo each step, periodic energy allreduce, occasional alltoallv rebalancing',
    build: (p) => molecularDynamics(p as unknown as MolecularDynamicsOptions),
  },
  {
    name: 'transport-sweep', aliases: ['sweep', 'kba'],
    params: [
      int('px', 'ranks along x'), int('py', 'ranks along y'), int('steps', 'source iterations', SWEEP_DEFAULTS.steps),
      int('angles', 'angle groups per octant', SWEEP_DEFAULTS.angles), int('zBlocks', 'z blocks per column', SWEEP_DEFAULTS.zBlocks),
      num('bytes', 'flux bytes per stage and direction', SWEEP_DEFAULTS.bytes), num('flops', 'flops per stage', SWEEP_DEFAULTS.flops),
      int('octants', '8 (3-D) or 4 (2-D)', SWEEP_DEFAULTS.octants),
    ],
    description: 'KBA wavefront sweep: wait for upstream neighbours, compute, send downstream, per octant and pipeline stage: discrete-ordinates transport',
    build: (p) => transportSweep(p as unknown as TransportSweepOptions),
  },
];

/** The workloads, for listing. */
export function listWorkloads(): readonly WorkloadInfo[] {
  return ENTRIES.map(({ name, aliases, description, params }) => ({ name, aliases, description, params }));
}

/** Builds a workload by name (or alias) from parameters given as values or as the strings of `k=v`. */
export function workloadByName(name: string, params: Readonly<Record<string, string | number | boolean>> = {}): Map<number, Action[]> {
  const key = name.toLowerCase();
  const entry = ENTRIES.find((e) => e.name === key || e.aliases.includes(key));
  if (entry === undefined) {
    throw new TsmpiError(ErrorCode.Config, `unknown workload "${name}"`, { operation: 'workload', hint: `choose one of ${ENTRIES.map((e) => e.name).join(', ')}` });
  }
  const values: Record<string, ParamValue> = {};
  for (const [k, raw] of Object.entries(params)) {
    const spec = entry.params.find((p) => p.name === k) ?? entry.params.find((p) => p.name.toLowerCase() === k.toLowerCase());
    if (spec === undefined) {
      throw new TsmpiError(ErrorCode.Config, `no parameter "${k}"`, { operation: `workload ${entry.name}`, hint: `its parameters: ${entry.params.map((p) => p.name).join(', ')}` });
    }
    values[spec.name] = convert(entry.name, spec, raw);
  }
  return entry.build(values);
}

/** Turns `k=v` strings (from `--param`) into a record; the values stay strings. */
export function parseParamPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new TsmpiError(ErrorCode.Config, `--param "${pair}" is not key=value`, { operation: 'workload', hint: 'write e.g. --param steps=20' });
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

function convert(workload: string, spec: WorkloadParam, raw: string | number | boolean): ParamValue {
  const bad = (): never => {
    throw new TsmpiError(ErrorCode.Config, `parameter ${spec.name} must be ${spec.kind === 'bool' ? 'true or false' : spec.kind === 'int' ? 'an integer' : 'a number'}, got ${JSON.stringify(raw)}`, { operation: `workload ${workload}`, hint: `${spec.name}: ${spec.doc}` });
  };
  if (spec.kind === 'bool') {
    if (typeof raw === 'boolean') return raw;
    const text = String(raw).toLowerCase();
    if (['true', 'yes', '1'].includes(text)) return true;
    if (['false', 'no', '0'].includes(text)) return false;
    return bad();
  }
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(value) || (spec.kind === 'int' && !Number.isInteger(value))) return bad();
  return value;
}

/**
 * Builds a workload for a world of `np` ranks (when given): fills in `ranks`, or a process grid
 * (`px`, `py`, `pz` that have no default) from `np`, and `seed`, unless the parameters set them.
 */
export function buildWorkload(name: string, pairs: readonly string[], np: number | undefined, seed: number): Map<number, Action[]> {
  const params: Record<string, string | number> = parseParamPairs(pairs);
  const info = ENTRIES.find((w) => w.name === name.toLowerCase() || w.aliases.includes(name.toLowerCase()));
  const has = (k: string): boolean => info?.params.some((p) => p.name === k) ?? false;
  if (np !== undefined && info !== undefined) {
    if (has('ranks') && params.ranks === undefined) params.ranks = np;
    const grid = ['px', 'py', 'pz'].filter((k) => info.params.find((p) => p.name === k)?.default === undefined && has(k));
    if (grid.length > 0 && grid.every((k) => params[k] === undefined)) {
      const dims = gridDims(np, grid.length);
      grid.forEach((k, i) => (params[k] = dims[i]!));
    }
  }
  if (has('seed') && params.seed === undefined) params.seed = seed;
  return workloadByName(name, params);
}
