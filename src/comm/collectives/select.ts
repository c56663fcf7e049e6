/**
 * Which algorithm each collective uses (Open MPI's coll/tuned decision rules, in one place).
 * Every rank must reach the same choice, so the rules read only what every rank knows the same:
 * the communicator size, the op, and the kind and length of typed-array arguments (MPI requires
 * matching counts). `TSMPI_COLL_<NAME>` forces an algorithm.
 */
import type { CollectiveName, Settings } from '../../config/tunables.js';
import type { TypedArray } from '../codec.js';
import { inPlaceCombiner, type ReduceOp } from '../ops.js';

/** Typed arrays at least this large use the bandwidth-optimal algorithms. */
export const LARGE_MESSAGE_BYTES = 64 * 1024;

const forced: Record<CollectiveName, keyof Settings> = {
  bcast: 'collBcast',
  reduce: 'collReduce',
  allreduce: 'collAllreduce',
  allgather: 'collAllgather',
  gather: 'collGather',
  scatter: 'collScatter',
  alltoall: 'collAlltoall',
  barrier: 'collBarrier',
};

function forcedChoice(settings: Settings, name: CollectiveName): string {
  return settings[forced[name]] as string;
}

function isLargeArray(value: unknown): value is TypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) && value.byteLength >= LARGE_MESSAGE_BYTES;
}

export function selectBarrier(settings: Settings): 'dissemination' | 'linear' {
  return forcedChoice(settings, 'barrier') === 'linear' ? 'linear' : 'dissemination';
}

export function selectBcastInto(settings: Settings, size: number, bytes: number): 'binomial' | 'scatter-allgather' | 'linear' {
  const choice = forcedChoice(settings, 'bcast');
  if (choice === 'binomial' || choice === 'linear') return choice;
  if (choice === 'scatter-allgather') return size > 1 && bytes >= size ? 'scatter-allgather' : 'binomial';
  return size > 2 && bytes >= LARGE_MESSAGE_BYTES ? 'scatter-allgather' : 'binomial';
}

export function selectBcast(settings: Settings): 'binomial' | 'linear' {
  return forcedChoice(settings, 'bcast') === 'linear' ? 'linear' : 'binomial';
}

export function selectReduce(settings: Settings): 'binomial' | 'linear' {
  return forcedChoice(settings, 'reduce') === 'linear' ? 'linear' : 'binomial';
}

export function selectAllreduce(settings: Settings, size: number, value: unknown, op: ReduceOp): 'recursive-doubling' | 'ring' | 'reduce-bcast' {
  const choice = forcedChoice(settings, 'allreduce');
  const ringable = op.commutative && inPlaceCombiner(op) !== undefined && ArrayBuffer.isView(value) && !(value instanceof DataView) && (value as TypedArray).length >= size;
  if (choice === 'reduce-bcast' || choice === 'recursive-doubling') return choice;
  if (choice === 'ring') return ringable ? 'ring' : 'recursive-doubling';
  return ringable && size > 2 && isLargeArray(value) ? 'ring' : 'recursive-doubling';
}

export function selectGather(settings: Settings): 'binomial' | 'linear' {
  return forcedChoice(settings, 'gather') === 'linear' ? 'linear' : 'binomial';
}

export function selectScatter(settings: Settings): 'binomial' | 'linear' {
  return forcedChoice(settings, 'scatter') === 'linear' ? 'linear' : 'binomial';
}

export function selectAllgather(settings: Settings): 'bruck' | 'ring' | 'recursive-doubling' {
  const choice = forcedChoice(settings, 'allgather');
  if (choice === 'ring' || choice === 'recursive-doubling') return choice;
  return 'bruck';
}

export function selectAlltoall(settings: Settings): 'pairwise' | 'linear' {
  return forcedChoice(settings, 'alltoall') === 'linear' ? 'linear' : 'pairwise';
}
