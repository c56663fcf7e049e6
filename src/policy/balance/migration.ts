/**
 * The migration step of the random-diffusion balancer (patent CN105117292B, steps 24-25;
 * docs/techniques.md §3): every rank's fair share of the work in proportion to its predicted
 * speed, each overloaded rank's row of the random migration matrix over the underloaded ranks it
 * heard of in the gossip (gossip.ts), and the choice of tasks "from the tail of its task queue".
 *
 * The matrix is random because each row is built from that rank's own random sample of the
 * deficits (what the gossip brought it), not from a global view. A row splits the rank's excess
 * over the receivers it knows in proportion to their deficits; with full knowledge every receiver
 * then gets exactly its deficit when the excesses and the deficits balance. Rows are rounded to
 * whole tasks cumulatively (takeFromTail) and walked in staggered() order, so that senders whose
 * shares are under a task do not all round onto the same receivers.
 *
 * Known limit, stated: senders do not know the total excess. When ranks with a deficit at or under
 * the threshold do not advertise it, the senders' excess can exceed the advertised deficits, and a
 * receiver can get more than its deficit (with full knowledge at most its share, deficit / D, of
 * that unadvertised remainder). threshold = 0 advertises every deficit and rules this out.
 *
 * Pure policy: no I/O, no timers, no communicator. bench/lib/balance-lockstep.ts runs one whole step for
 * P ranks at policy level, for the benchmark and the tests.
 */
import type { GossipRecord } from './gossip.js';

/** The default threshold of simulateBalanceStep, as a fraction of the mean target. */
export const DEFAULT_THRESHOLD_FRACTION = 0.02;

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function checkLoadsAndSpeeds(loads: readonly number[], speeds: readonly number[]): void {
  if (loads.length !== speeds.length) throw new RangeError(`loads and speeds must have one entry per rank, got ${loads.length} and ${speeds.length}`);
  if (loads.length === 0) throw new RangeError('loads must not be empty');
  loads.forEach((load, rank) => {
    if (!Number.isFinite(load) || load < 0) throw new RangeError(`loads[${rank}] must be a finite number >= 0, got ${load}`);
  });
  speeds.forEach((speed, rank) => {
    if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`speeds[${rank}] must be a finite number > 0, got ${speed}`);
  });
}

/**
 * Each rank's fair share of `total` work in proportion to its predicted speed:
 * target_i = sum(loads) * speed_i / sum(speeds). Every rank then needs the same time, sum(loads) / sum(speeds).
 * @throws RangeError when the lengths differ, a load is negative or a speed is not > 0.
 */
export function targetLoads(loads: readonly number[], speeds: readonly number[]): number[] {
  checkLoadsAndSpeeds(loads, speeds);
  const perSpeed = sum(loads) / sum(speeds);
  return speeds.map((speed) => speed * perSpeed);
}

/**
 * The time of the slowest rank over the time of a perfect split: max_i(load_i / speed_i) /
 * (sum(loads) / sum(speeds)). 1 is perfect balance; 1 also for no work at all.
 */
export function imbalance(loads: readonly number[], speeds: readonly number[]): number {
  checkLoadsAndSpeeds(loads, speeds);
  return imbalanceUnchecked(loads, speeds);
}

/** imbalance() without the checks: for loads after a fluid step, where rounding can leave -1e-17. */
function imbalanceUnchecked(loads: readonly number[], speeds: readonly number[]): number {
  const ideal = sum(loads) / sum(speeds);
  if (ideal === 0) return 1;
  let worst = 0;
  for (let i = 0; i < loads.length; i++) worst = Math.max(worst, loads[i]! / speeds[i]!);
  return worst / ideal;
}

/**
 * One overloaded rank's row of the random migration matrix: its `excess` work split over the
 * receivers it knows about in proportion to their deficits (each receiver gets at most its
 * deficit). Returns [{ rank, amount }] with amount > 0, in the receivers' order; the amounts add up
 * to min(excess, sum of deficits). Receivers with no positive deficit are left out, and so are those
 * under `minimumDeficit` (whose deficits still count in the split: their share stays home).
 *
 * @example
 * migrationRow(6, [{ rank: 1, deficit: 4 }, { rank: 2, deficit: 8 }]);
 * // [{ rank: 1, amount: 2 }, { rank: 2, amount: 4 }]: 6 of the 12 asked, half of each deficit
 */
export function migrationRow(excess: number, receivers: Iterable<GossipRecord>, minimumDeficit = 0): { rank: number; amount: number }[] {
  if (!Number.isFinite(excess)) throw new RangeError(`excess must be finite, got ${excess}`);
  const asking: GossipRecord[] = [];
  let asked = 0;
  for (const record of receivers) {
    if (record.deficit > 0) {
      // A deficit too small to take a whole task still counts in the split (so that the others get
      // no more than their share), but gets nothing: rounding would hand it a whole task.
      if (record.deficit >= minimumDeficit) asking.push(record);
      asked += record.deficit;
    }
  }
  if (excess <= 0 || asking.length === 0) return [];
  // All that is asked when there is enough; else the same fraction of every deficit.
  const scale = excess >= asked ? 1 : excess / asked;
  const row: { rank: number; amount: number }[] = [];
  for (const record of asking) {
    const amount = scale === 1 ? record.deficit : record.deficit * scale;
    if (amount > 0) row.push({ rank: record.rank, amount });
  }
  return row;
}

/**
 * The order sender `sender` (of `size` ranks) walks the receivers it knows in: by rank, starting at
 * the receiver whose place in that list matches the sender's place among the ranks
 * (floor(sender / size * receivers)), and wrapping around.
 *
 * Why: takeFromTail rounds a row to whole tasks cumulatively, so when the shares are smaller than
 * a task each sender's tasks land on every few receivers of its row, at the same places from the
 * start of the row for every sender. Had they all started from the same receiver, those would get
 * the tasks and the others none (and walking in gossip order does much the same: the records that
 * spread first head most lists). Starting at evenly spread places staggers the senders, as
 * aggregators stagger their flushes (anchors §6 item 3): with full knowledge and equal shares every
 * receiver then gets its deficit to the task; with the knowledge of a fanout-2 gossip, within a few.
 */
export function staggered(receivers: Iterable<GossipRecord>, sender: number, size: number): GossipRecord[] {
  const byRank = [...receivers].sort((a, b) => a.rank - b.rank);
  const start = Math.min(byRank.length, Math.max(0, Math.floor((sender / size) * byRank.length)));
  return [...byRank.slice(start), ...byRank.slice(0, start)];
}

/**
 * Takes tasks from the TAIL of `queue` to cover each planned amount, in plan order, returning what
 * stays (head order kept) and what moves to each rank (in queue order; only ranks that get at least
 * one task appear, in plan order; a rank planned twice gets both shares in one list).
 *
 * - For each plan entry the untaken tasks are scanned from the tail towards the head, and a task of
 *   cost c is taken when c <= 2 * remaining, i.e. when it does not overshoot by more than half its
 *   cost. A task too big for this entry is skipped and stays a candidate for the next ones (the
 *   patent's "select suitable tasks, starting from the end of the queue").
 * - Amounts are honoured cumulatively: `remaining` is the sum of the amounts planned so far minus
 *   the sum moved so far, so a shortfall (or overshoot) of one entry carries to the next. Rounding
 *   each entry alone would move nothing at all for a row of many amounts under half a task. So
 *   after every entry, moved so far <= planned so far + half the last task taken.
 * - Never empties the queue: the head task (queue[0], the one the rank runs next) never moves, so a
 *   rank always keeps work to do while its other tasks travel.
 *
 * @throws RangeError for a cost or an amount that is not a finite number >= 0.
 */
export function takeFromTail<T>(queue: readonly T[], cost: (task: T) => number, plan: readonly { rank: number; amount: number }[]): { keep: T[]; moves: Map<number, T[]> } {
  const n = queue.length;
  const costs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const c = cost(queue[i]!);
    if (!Number.isFinite(c) || c < 0) throw new RangeError(`task cost must be a finite number >= 0, got ${c} (queue index ${i})`);
    costs[i] = c;
  }
  /** takenBy[i]: the plan entry task i moves with, or -1 while it stays. */
  const takenBy = new Int32Array(n).fill(-1);
  // Candidates are the untaken tasks in [1, end]; minCost is the cheapest of them (minCount of
  // them cost that), so an entry that cannot take even the cheapest is passed over in O(1).
  let end = n - 1;
  let minCost = Infinity;
  let minCount = 0;
  const recomputeMin = (): void => {
    minCost = Infinity;
    minCount = 0;
    for (let i = 1; i <= end; i++) {
      if (takenBy[i] !== -1) continue;
      if (costs[i]! < minCost) {
        minCost = costs[i]!;
        minCount = 1;
      } else if (costs[i] === minCost) {
        minCount++;
      }
    }
  };
  recomputeMin();
  let planned = 0;
  let moved = 0;
  for (let entry = 0; entry < plan.length; entry++) {
    const amount = plan[entry]!.amount;
    if (!Number.isFinite(amount) || amount < 0) throw new RangeError(`plan[${entry}].amount must be a finite number >= 0, got ${amount}`);
    planned += amount;
    let remaining = planned - moved;
    if (remaining <= 0 || 2 * remaining < minCost) continue;
    for (let i = end; i >= 1; i--) {
      if (takenBy[i] !== -1) continue;
      const c = costs[i]!;
      if (c > 2 * remaining) continue;
      takenBy[i] = entry;
      moved += c;
      remaining = planned - moved;
      if (i === end) while (end >= 1 && takenBy[end] !== -1) end--;
      if (c === minCost && --minCount === 0) recomputeMin();
      if (remaining <= 0 || 2 * remaining < minCost) break;
    }
  }
  const keep: T[] = [];
  const moves = new Map<number, T[]>();
  const received = new Set<number>();
  for (let i = 1; i < n; i++) if (takenBy[i] !== -1) received.add(plan[takenBy[i]!]!.rank);
  for (const { rank } of plan) if (received.has(rank) && !moves.has(rank)) moves.set(rank, []);
  for (let i = 0; i < n; i++) {
    if (takenBy[i] === -1) keep.push(queue[i]!);
    else moves.get(plan[takenBy[i]!]!.rank)!.push(queue[i]!);
  }
  return { keep, moves };
}

/**
 * A rank's queue of `load` work in tasks of `taskCost`: the remainder (load mod taskCost), if any,
 * at the head, then whole tasks.
 */
export function tasksOf(load: number, taskCost: number): number[] {
  if (!Number.isFinite(taskCost) || taskCost <= 0) throw new RangeError(`taskCost must be a finite number > 0, got ${taskCost}`);
  const whole = Math.floor(load / taskCost);
  const rest = load - whole * taskCost;
  const queue: number[] = rest > 0 ? [rest] : [];
  for (let i = 0; i < whole; i++) queue.push(taskCost);
  return queue;
}

/** The default threshold of a step: 2% of the mean load (DEFAULT_THRESHOLD_FRACTION). */
export function defaultThreshold(totalLoad: number, size: number): number {
  return (DEFAULT_THRESHOLD_FRACTION * totalLoad) / size;
}

/**
 * What a rank advertises in the gossip: its deficit when its target is above its load (every
 * positive deficit: leaving small ones out lets senders pile onto the few they hear of).
 */
export function advertisedRecord(rank: number, load: number, target: number): GossipRecord | undefined {
  return target > load ? { rank, deficit: target - load } : undefined;
}

/**
 * A rank's row of the migration matrix: none unless its excess is over `threshold`; else its
 * excess over the receivers it heard of (in staggered() order; deficits under the threshold count
 * in the split but get nothing, see migrationRow).
 */
export function senderRow(rank: number, size: number, load: number, target: number, threshold: number, known: Iterable<GossipRecord>): { rank: number; amount: number }[] {
  const excess = load - target;
  if (!(excess > threshold)) return [];
  return migrationRow(excess, staggered(known, rank, size), threshold);
}
