/**
 * The contract between the multi-rail scheduler (src/rails/rail-scheduler.ts) and a rail policy.
 * A policy is pure: it sees rail state as numbers and the time as an argument (the scheduler reads
 * it from an injected Clock), keeps its own learnt state, and never touches a socket, so the
 * runtime, the tests and the simulator run the same policy code.
 *
 * The scheduler cuts a message by asking `next` again and again for the rail and the size of the
 * next segment, updating the rail views between calls (the segment just planned counts as
 * queued), until the message is planned or the policy says to hold. It reports every segment's
 * acknowledgement with `completed` and every segment leaving a rail's FIFO queue with `dequeued`.
 */

/** What a policy sees of one rail at a decision. */
export interface RailView {
  readonly index: number;
  /** False while the rail is failed (its link closed or stopped acknowledging). */
  readonly up: boolean;
  /** One-way latency, seconds (configured, or the link's estimate). */
  readonly latency: number;
  /** Configured rate in bytes/s (`TSMPI_RAILS=eth0@800mbit`); 0 when not configured. */
  readonly nominalRate: number;
  /** Bytes planned onto the rail and still in its FIFO queue (not handed to its link). */
  readonly queuedBytes: number;
  /** Segments in the FIFO queue (the patent's segment counter). */
  readonly queuedSegments: number;
  /** Bytes handed to the link and not yet acknowledged by the receiver. */
  readonly inFlightBytes: number;
  /** Seconds the last segment that left the FIFO queue waited in it (the patent's wait time). */
  readonly lastWait: number;
}

/** A planned segment: `bytes` of the message on rail `rail`. */
export interface SegmentChoice {
  readonly rail: number;
  readonly bytes: number;
}

/** One acknowledged segment, as measured by the sender. */
export interface CompletionSample {
  readonly rail: number;
  readonly bytes: number;
  /** When the segment was handed to the rail's link. */
  readonly sentAt: number;
  /** When the receiver's acknowledgement arrived. */
  readonly ackedAt: number;
  /**
   * When the rail started serving this segment: the later of `sentAt` and the previous
   * acknowledgement on the rail (segments queue behind each other on a link).
   */
  readonly serviceStart: number;
  /** Nothing else of the rail's was unacknowledged when the segment was sent (it waited behind nothing). */
  readonly afterIdle: boolean;
}

export type RailPolicyName = 'round-robin' | 'q-learning' | 'weighted' | 'adaptive';
export const RAIL_POLICY_NAMES: readonly RailPolicyName[] = ['round-robin', 'q-learning', 'weighted', 'adaptive'];

export interface RailPolicy {
  readonly name: RailPolicyName;
  /**
   * The next segment of a message: `remaining` bytes of it are still unplanned, of `total`.
   * Returns undefined to hold (the q-learning policy's queue_max blocking): the scheduler asks
   * again after a segment leaves a FIFO queue. Only rails with `up` may be chosen.
   */
  next(remaining: number, total: number, rails: readonly RailView[], now: number): SegmentChoice | undefined;
  /** A segment was acknowledged. */
  completed(sample: CompletionSample): void;
  /** A segment left rail `rail`'s FIFO queue for its link after waiting `waited` seconds. */
  dequeued?(rail: number, waited: number, now: number): void;
  /**
   * Seconds between drains of the FIFO queues into the links (the patent's timer), or undefined
   * to drain whenever a link has room.
   */
  readonly drainInterval?: number;
  /** The learnt state, for diagnostics and benchmarks (rates, weights, table sizes). */
  describe(): Record<string, unknown>;
}

/** Options every policy accepts. */
export interface RailPolicyOptions {
  /** Largest segment, bytes (TSMPI_SEG_MAX). */
  readonly segMax: number;
  /** Random seed (first action of q-learning, tie breaks). @default 1 */
  readonly seed?: number;
}

/** Rates are unknown until measured: planning assumes this many bytes/s for a rail never measured. */
export const UNKNOWN_RATE = 100e6;
