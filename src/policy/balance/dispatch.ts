/**
 * How many tasks a centralized pool (seed 4, docs/techniques.md §4) keeps in flight at
 * each worker. The seed hands out one task per result; on a runtime where a message costs
 * microseconds and a sleeping rank tens of microseconds to wake, that starves workers on short
 * tasks. So each worker is kept `horizon` seconds ahead (enough tasks to cover a round trip to the
 * master, measured from its own recent task times), never more than its capacity-weighted half of
 * what is left (factoring: Hummel, Schonberg and Flynn, 1992), which bounds the tail to about one
 * task of the slowest worker when the pool drains. Pure: the pool feeds it measured times.
 */

export interface DispatchInput {
  /** The worker's recent seconds per task; undefined before its first result. */
  readonly secondsPerTask: number | undefined;
  /** The worker's share of the pool's speed (its tasks per second over everyone's; 1/workers while unknown). */
  readonly share: number;
  /** Tasks waiting in the master's queue. */
  readonly queued: number;
  /** Tasks the worker holds (sent, no result yet). */
  readonly inFlight: number;
  /**
   * Tasks per second of every other rank that computes; with secondsPerTask, it keeps the last
   * tasks away from a slow worker when the others would finish them sooner (earliest finish).
   */
  readonly othersPerSecond?: number;
  /** How many ranks othersPerSecond counts (their mean task time is othersCount / othersPerSecond). */
  readonly othersCount?: number;
}

export interface DispatchOptions {
  /** Seconds of work to keep queued at a worker beyond the task it is running. */
  readonly horizon: number;
  /** Most tasks in one message. */
  readonly maxBatch: number;
}

export const defaultDispatchOptions: DispatchOptions = { horizon: 0.002, maxBatch: 1024 };

/** How many tasks the worker should hold; the pool sends the difference when it is worth a message. */
export function inFlightTarget(input: DispatchInput, options: DispatchOptions = defaultDispatchOptions): number {
  const byTime = input.secondsPerTask === undefined ? 2 : 1 + Math.ceil(options.horizon / Math.max(input.secondsPerTask, 1e-9));
  const remaining = input.queued + input.inFlight;
  const fairHalf = Math.ceil((remaining * input.share) / 2);
  return Math.max(1, Math.min(byTime, fairHalf, options.maxBatch));
}

/** The number of tasks to send now (for targets of 8 and more, none until the worker is half a target short). */
export function tasksToSend(input: DispatchInput, options: DispatchOptions = defaultDispatchOptions): number {
  if (input.queued === 0) return 0;
  const target = inFlightTarget(input, options);
  const short = target - input.inFlight;
  if (short <= 0) return 0;
  // Batches of tiny tasks are refilled half a target at a time (one message per half); a few long
  // tasks are topped up one by one, or a worker could run dry while the master computes.
  if (input.inFlight > 0 && target >= 8 && short * 2 < target) return 0;
  return Math.min(short, input.queued, earliestFinishLimit(input));
}

/**
 * How many more tasks the worker may take so that the last of them finishes no later than the
 * others would drain what is left of the queue, plus one and a half tasks' slack (of the others'
 * mean task time, or its own if shorter): the k-th new task ends after (inFlight + k) * s; the
 * others need (queued - k) / othersPerSecond for the rest. Equal workers always get their share
 * (the slack keeps one task queued ahead of each); an idle worker 3x slower than six others gets
 * none of the last nine tasks (it would end a slow task after everyone else).
 */
export function earliestFinishLimit(input: DispatchInput): number {
  const s = input.secondsPerTask;
  const others = input.othersPerSecond;
  if (s === undefined || others === undefined || !(others > 0)) return Infinity;
  const othersTask = input.othersCount === undefined ? s : input.othersCount / others;
  const slack = 1.5 * Math.min(s, othersTask);
  const k = Math.floor((input.queued / others + slack - input.inFlight * s) / (s + 1 / others));
  // Tasks refused here wait for a faster rank: othersPerSecond > 0 means one is there to take them.
  return Math.max(0, k);
}
