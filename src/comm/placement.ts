/**
 * Where a rank runs, as the levels `comm.splitType` splits by (MPI_Comm_split_type) and windows
 * share memory in: a host (MPI's shared-memory domain, `mpi_shared_memory`; a simulated host
 * under `tsmpi sim`), then an operating-system process (`tsmpi_process`: thread ranks of one
 * process share JavaScript memory, so Win.allocateShared works among them).
 */
import { hostname } from 'node:os';
import type { Communicator } from './communicator.js';
import type { Info } from './info.js';

/** The ranks that share memory: one host (MPI_COMM_TYPE_SHARED). */
export const COMM_TYPE_SHARED = 1;
/** The level named by the info key `mpi_hw_resource_type` (MPI-4's MPI_COMM_TYPE_HW_GUIDED). */
export const COMM_TYPE_HW_GUIDED = 2;
/** The largest level that splits the communicator into smaller ones (MPI_COMM_TYPE_HW_UNGUIDED). */
export const COMM_TYPE_HW_UNGUIDED = 3;
/** As HW_GUIDED, by `mpi_hw_resource_type` (MPI-4.1's MPI_COMM_TYPE_RESOURCE_GUIDED). */
export const COMM_TYPE_RESOURCE_GUIDED = 4;

export type SplitType = typeof COMM_TYPE_SHARED | typeof COMM_TYPE_HW_GUIDED | typeof COMM_TYPE_HW_UNGUIDED | typeof COMM_TYPE_RESOURCE_GUIDED;
export const SPLIT_TYPES: readonly number[] = [COMM_TYPE_SHARED, COMM_TYPE_HW_GUIDED, COMM_TYPE_HW_UNGUIDED, COMM_TYPE_RESOURCE_GUIDED];

/** The info key naming a level (MPI-4). */
export const HW_RESOURCE_TYPE = 'mpi_hw_resource_type';

/** Level names, largest first. */
const LEVEL_NAMES = ['mpi_shared_memory', 'tsmpi_process'] as const;
/** What `wanted` is for HW_UNGUIDED: decided once every rank's places are known. */
const UNGUIDED = -2;

/** This rank's operating-system process (and simulated host: the simulator runs every host in one process). */
export function processPlace(comm: Communicator): string {
  return `${hostname()}:${process.pid}:${comm.nodeOf(comm.rank)}`;
}

export interface HardwareLevels {
  /** This rank's place at each level (ranks with equal keys share it). */
  readonly keys: readonly string[];
  readonly names: readonly string[];
  readonly unguided: number;
  /** The level a split type asks for: its index, -1 for none, `unguided` for HW_UNGUIDED. */
  wanted(type: SplitType, info: Info | undefined): number;
  /**
   * For HW_UNGUIDED: the largest level at which every rank that asked for it shares its place
   * with fewer ranks than `size`; -1 when no level splits the communicator.
   */
  unguidedLevel(entries: readonly (readonly (number | string)[])[], size: number): number;
}

export function hardwareLevels(comm: Communicator): HardwareLevels {
  return {
    keys: [`host ${comm.nodeOf(comm.rank)}`, processPlace(comm)],
    names: LEVEL_NAMES,
    unguided: UNGUIDED,
    wanted(type, info) {
      if (type === COMM_TYPE_SHARED) return 0;
      if (type === COMM_TYPE_HW_UNGUIDED) return UNGUIDED;
      const name = info?.get(HW_RESOURCE_TYPE);
      return name === undefined ? -1 : LEVEL_NAMES.indexOf(name as (typeof LEVEL_NAMES)[number]);
    },
    unguidedLevel(entries, size) {
      for (let level = 0; level < LEVEL_NAMES.length; level++) {
        const counts = new Map<string | number, number>();
        for (const e of entries) if (e[0] === UNGUIDED) counts.set(e[1 + level]!, (counts.get(e[1 + level]!) ?? 0) + 1);
        if (counts.size > 0 && [...counts.values()].every((n) => n < size)) return level;
      }
      return -1;
    },
  };
}
