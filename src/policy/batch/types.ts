/**
 * Batch planning (seed 2, docs/techniques.md §2): a superstep's point-to-point
 * messages of one rank, planned into transfers. A planner is pure: it sees message sizes and
 * destinations, the node of every rank, and degree and volume figures the runtime gathered, and
 * returns the transfers in the order to start them. The runtime (src/comm/exchange.ts) and the
 * simulator run the same planners.
 */

/** One message of the batch: its destination rank and payload size (its index is its position). */
export interface BatchMessage {
  readonly dest: number;
  readonly bytes: number;
}

export interface PlanInput {
  readonly rank: number;
  readonly size: number;
  readonly messages: readonly BatchMessage[];
  /** Node of each rank (ranks of one process, or one machine, share a node). */
  readonly nodeOf: ArrayLike<number>;
  /** Bytes each rank receives in this superstep, from every source (gathered by the runtime). */
  readonly inBytes?: ArrayLike<number>;
  /** Sources sending to each rank in this superstep. */
  readonly inDegree?: ArrayLike<number>;
  /** Measured cost of one message (seconds) and bandwidth (bytes/s), for the adaptive planner. */
  readonly costs?: { readonly perMessage: number; readonly bandwidth: number };
}

/**
 * A transfer: the messages `items` (indices into the batch, all to `dest`, in batch order) sent
 * as one message. `packed` transfers carry their items in the pack format (pack.ts); others
 * carry one message as it is.
 */
export interface Transfer {
  readonly dest: number;
  readonly items: readonly number[];
  readonly packed: boolean;
}

export type PlannerName = 'direct' | 'reorder' | 'aggregate' | 'pipelined' | 'adaptive';
export const PLANNER_NAMES: readonly PlannerName[] = ['direct', 'reorder', 'aggregate', 'pipelined', 'adaptive'];

export interface PlannerOptions {
  /** aggregate: bytes per packed transfer. @default 64 KiB */
  readonly bufferBytes?: number;
  /** Messages at least this large always go alone, unpacked (no copy). @default 256 KiB */
  readonly directBytes?: number;
}
