/**
 * The scheduler of patent CN101833479 ("multi-rail message scheduling with reinforcement
 * learning", NUDT 2010), as written. See docs/techniques.md §1; the readings of the
 * formulas the OCR lost are options here, with the reading used by default stated.
 *
 * - State of rail i: k_i in [0, k) from its segment counter (segments in its FIFO queue) and its
 *   wait time (queueing time of the last segment it sent, normalised by time_interval):
 *   k_i = min(k - 1, floor(counter_i / queue_interval) + floor(wait_i)).
 *   Lost formulas, our reading: queue_interval = queue_max / k; time_interval = seg_max / the
 *   rail's rate (configured, else measured from completions, else 100 MB/s).
 * - One Q table per pair of rails (C(m,2) tables), Q_ij[k_i][k_j][a], a in [0, m).
 * - The first segment ever goes to a random rail; after that a = argmax_a Σ_{i<j} Q_ij[k_i][k_j][a]
 *   (ties broken at random, seeded). `epsilon` adds exploration the patent does not have
 *   (default 0, as written).
 * - Before each decision the previous one is rewarded and every pair table updated:
 *   Q(s_prev, a_prev) = (1 - beta) Q(s_prev, a_prev) + beta (r + gamma Q(s_cur, a_cur)),
 *   r = 1 / (wait_{a_prev} + 1) - penalty, with the OCR's "- 4/k" unreadable: by default
 *   penalty = k_{a_prev} / k (the chosen rail's busy state); `rewardPenalty: 'four-over-k'` uses 4/k.
 * - queue_max blocking: while the chosen rail's counter is at queue_max the segment waits (the
 *   policy holds). Segments are at most seg_max and cut front to back.
 * - A timer every `drainInterval` seconds (10 ms to 1 s in the patent; default 10 ms) drains the
 *   FIFO queues into the links while they have room.
 */
import { Rng } from '../../rng.js';
import { RateEstimator, sampleRate } from './rate-estimator.js';
import { UNKNOWN_RATE, type CompletionSample, type RailPolicy, type RailPolicyOptions, type RailView, type SegmentChoice } from './types.js';

export interface QLearningPolicyOptions extends RailPolicyOptions {
  /** States per rail, 8..32. @default 16 */
  states?: number;
  /** Learning rate. @default 0.1 */
  beta?: number;
  /** Discount. @default 0.95 */
  gamma?: number;
  /** Segments a rail's FIFO queue holds before a segment chosen for it waits. @default 8 */
  queueMax?: number;
  /** Seconds between timer drains. @default 0.01 */
  drainInterval?: number;
  /** @default 'busy-state' */
  rewardPenalty?: 'busy-state' | 'four-over-k';
  /** Probability of a random action (not in the patent). @default 0 */
  epsilon?: number;
}

export class QLearningPolicy implements RailPolicy {
  readonly name = 'q-learning' as const;
  readonly drainInterval: number;
  private readonly k: number;
  private readonly beta: number;
  private readonly gamma: number;
  private readonly queueMax: number;
  private readonly segMax: number;
  private readonly penalty: 'busy-state' | 'four-over-k';
  private readonly epsilon: number;
  private readonly rng: Rng;
  private m = 0;
  /** tables[p] for pair p = (i, j), i < j: Float64Array of k * k * m. */
  private tables: Float64Array[] = [];
  private pairs: [number, number][] = [];
  private previous: { states: number[]; action: number } | undefined;
  /** The action decided and waiting for room in its queue (queue_max blocking). */
  private pending: { states: number[]; action: number } | undefined;
  private readonly waits: number[] = [];
  private readonly estimators: RateEstimator[] = [];
  decisions = 0;

  constructor(options: QLearningPolicyOptions) {
    this.segMax = options.segMax;
    this.k = options.states ?? 16;
    if (!Number.isInteger(this.k) || this.k < 8 || this.k > 32) throw new RangeError(`q-learning states must be an integer in [8, 32]; got ${this.k}`);
    this.beta = options.beta ?? 0.1;
    this.gamma = options.gamma ?? 0.95;
    this.queueMax = options.queueMax ?? 8;
    this.drainInterval = options.drainInterval ?? 0.01;
    this.penalty = options.rewardPenalty ?? 'busy-state';
    this.epsilon = options.epsilon ?? 0;
    this.rng = new Rng(options.seed ?? 1);
  }

  private setUp(m: number): void {
    this.m = m;
    this.pairs = [];
    for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) this.pairs.push([i, j]);
    this.tables = this.pairs.map(() => new Float64Array(this.k * this.k * m));
    while (this.waits.length < m) this.waits.push(0);
    while (this.estimators.length < m) this.estimators.push(new RateEstimator());
  }

  private timeInterval(rail: RailView): number {
    const rate = rail.nominalRate > 0 ? rail.nominalRate : this.estimators[rail.index]!.rate || UNKNOWN_RATE;
    return this.segMax / rate;
  }

  /** The discretised state k_i of every rail. */
  states(rails: readonly RailView[]): number[] {
    const queueInterval = this.queueMax / this.k;
    return rails.map((r) => {
      const wait = this.waits[r.index]! / this.timeInterval(r);
      return Math.min(this.k - 1, Math.floor(r.queuedSegments / queueInterval) + Math.floor(wait));
    });
  }

  private index(p: number, states: readonly number[], action: number): number {
    const [i, j] = this.pairs[p]!;
    return (states[i]! * this.k + states[j]!) * this.m + action;
  }

  /** Σ over pair tables of Q_ij[k_i][k_j][a]. */
  value(states: readonly number[], action: number): number {
    let sum = 0;
    for (let p = 0; p < this.pairs.length; p++) sum += this.tables[p]![this.index(p, states, action)]!;
    return sum;
  }

  private choose(states: readonly number[], rails: readonly RailView[]): number {
    const up = rails.filter((r) => r.up).map((r) => r.index);
    if (up.length === 0) return -1;
    if (this.previous === undefined || (this.epsilon > 0 && this.rng.next() < this.epsilon)) return up[this.rng.int(0, up.length - 1)]!;
    let best: number[] = [];
    let bestValue = -Infinity;
    for (const a of up) {
      const v = this.value(states, a);
      if (v > bestValue + 1e-12) {
        bestValue = v;
        best = [a];
      } else if (Math.abs(v - bestValue) <= 1e-12) {
        best.push(a);
      }
    }
    return best.length === 1 ? best[0]! : best[this.rng.int(0, best.length - 1)]!;
  }

  private reward(action: number, states: readonly number[], rails: readonly RailView[]): number {
    const wait = this.waits[action]! / this.timeInterval(rails[action]!);
    const penalty = this.penalty === 'busy-state' ? states[action]! / this.k : 4 / this.k;
    return 1 / (wait + 1) - penalty;
  }

  next(remaining: number, _total: number, rails: readonly RailView[], _now?: number): SegmentChoice | undefined {
    if (this.m !== rails.length) this.setUp(rails.length);
    if (this.pending === undefined || !rails[this.pending.action]!.up) {
      const states = this.states(rails);
      const action = this.choose(states, rails);
      if (action < 0) return undefined;
      this.decisions++;
      if (this.previous !== undefined) {
        const r = this.reward(this.previous.action, states, rails);
        for (let p = 0; p < this.pairs.length; p++) {
          const table = this.tables[p]!;
          const prev = this.index(p, this.previous.states, this.previous.action);
          table[prev] = (1 - this.beta) * table[prev]! + this.beta * (r + this.gamma * table[this.index(p, states, action)]!);
        }
      }
      this.pending = { states, action };
    }
    const { action } = this.pending;
    if (rails[action]!.queuedSegments >= this.queueMax) return undefined;
    this.previous = this.pending;
    this.pending = undefined;
    return { rail: action, bytes: Math.min(this.segMax, remaining) };
  }

  dequeued(rail: number, waited: number): void {
    while (this.waits.length <= rail) this.waits.push(0);
    this.waits[rail] = waited;
  }

  completed(sample: CompletionSample): void {
    while (this.estimators.length <= sample.rail) this.estimators.push(new RateEstimator());
    this.estimators[sample.rail]!.add(sampleRate(sample.bytes, sample.serviceStart, sample.ackedAt), sample.ackedAt);
  }

  describe(): Record<string, unknown> {
    return { states: this.k, tables: this.pairs.length, decisions: this.decisions, waits: this.waits };
  }
}
