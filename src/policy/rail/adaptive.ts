/**
 * The default policy: earliest completion with rates learnt online (the ideas of Linux MPTCP's
 * linger time, MVAPICH's HSAM, NewMadeleine's split_balance and ECF; their sources are in
 * docs/techniques.md §1).
 *
 * - Each rail's rate is learnt from its segments' acknowledgements, over 20 ms windows of busy
 *   time (AckWindow: a stalled receiver's late acknowledgements average out), by an EWMA that
 *   tells a transient dip from a lasting change (RateEstimator), never clamped to a nominal rate;
 *   the configured rate stands in until the first sample.
 * - A rail is free at `backlog / rate + latency`, backlog = its queued and unacknowledged bytes.
 *   The message's remaining bytes are water-filled: the finish time T solves
 *   Σ max(0, T - free_i) · rate_i = remaining, and rail i's share is (T - free_i) · rate_i. A
 *   rail that is not free before T gets nothing: it cannot finish its part before the others
 *   finish everything.
 * - The next segment goes to the rail with the largest share. Its size follows the rail's rate:
 *   clamp(min(rate * segmentTime, total / (2 m)), segMin, segMax), so a slow rail never holds
 *   more than a few milliseconds of work that the tail would have to wait for; or the whole share
 *   when the share is less than 1.5 segments (so the tail is split in proportion to the rates
 *   and every rail ends together).
 * - Late binding: while every rail already holds `horizon` seconds of work (25 ms: enough to
 *   ride out a late acknowledgement, short enough that a wrong rate estimate costs little at the
 *   tail; and at least two segments), the policy holds and plans again when acknowledgements come in, so each segment's
 *   rail is chosen with the newest rates (a first message does not commit its whole length to
 *   rates not yet learnt).
 * - A rail that gets no traffic produces no samples: when a rail has been idle for
 *   `probeInterval` seconds while messages were planned without it, one probe segment of
 *   `probeBytes` goes to it, so a recovered rail is noticed.
 */
import { AckWindow, RateEstimator, type RateEstimatorOptions } from './rate-estimator.js';
import { UNKNOWN_RATE, type CompletionSample, type RailPolicy, type RailPolicyOptions, type RailView, type SegmentChoice } from './types.js';

export interface AdaptivePolicyOptions extends RailPolicyOptions {
  /** Smallest segment, bytes. @default 64 KiB */
  segMin?: number;
  /** Seconds without a sample before an unused rail gets a probe. @default 0.1 */
  probeInterval?: number;
  /** @default 64 KiB */
  probeBytes?: number;
  /** Seconds of work each rail holds before planning waits for acknowledgements. @default 0.025 */
  horizon?: number;
  /** Seconds of a rail's time one segment should take. @default 0.005 */
  segmentTime?: number;
  estimator?: RateEstimatorOptions;
}

export class AdaptivePolicy implements RailPolicy {
  readonly name = 'adaptive' as const;
  private readonly segMax: number;
  private readonly segMin: number;
  private readonly probeInterval: number;
  private readonly probeBytes: number;
  private readonly horizon: number;
  private readonly segmentTime: number;
  private readonly estimatorOptions: RateEstimatorOptions;
  private readonly estimators: RateEstimator[] = [];
  private readonly windows: AckWindow[] = [];
  /** Last time each rail was given a segment (probe bookkeeping). */
  private readonly lastUsed: number[] = [];
  probes = 0;

  constructor(options: AdaptivePolicyOptions) {
    this.segMax = options.segMax;
    this.segMin = Math.min(options.segMin ?? 64 * 1024, options.segMax);
    this.probeInterval = options.probeInterval ?? 0.1;
    this.probeBytes = options.probeBytes ?? 64 * 1024;
    this.horizon = options.horizon ?? 0.025;
    this.segmentTime = options.segmentTime ?? 0.005;
    this.estimatorOptions = options.estimator ?? {};
  }

  private estimator(rail: number): RateEstimator {
    while (this.estimators.length <= rail) {
      this.estimators.push(new RateEstimator(this.estimatorOptions));
      this.windows.push(new AckWindow());
      this.lastUsed.push(-Infinity);
    }
    return this.estimators[rail]!;
  }

  /** The rate planning uses for a rail: learnt, else configured, else a neutral guess. */
  rateOf(rail: RailView): number {
    const learnt = this.estimator(rail.index).rate;
    if (learnt > 0) return learnt;
    return rail.nominalRate > 0 ? rail.nominalRate : UNKNOWN_RATE;
  }

  next(remaining: number, total: number, rails: readonly RailView[], now: number): SegmentChoice | undefined {
    const up = rails.filter((r) => r.up);
    if (up.length === 0) return undefined;
    const candidates = up.map((r) => {
      const rate = this.rateOf(r);
      return { rail: r, rate, free: (r.queuedBytes + r.inFlightBytes) / rate + r.latency };
    });
    const segmentOf = (rate: number): number => Math.min(this.segMax, Math.max(this.segMin, Math.ceil(Math.min(rate * this.segmentTime, total / (2 * up.length)))));
    if (candidates.every((c) => c.rail.queuedBytes + c.rail.inFlightBytes >= Math.max(2 * segmentOf(c.rate), c.rate * this.horizon))) return undefined;
    candidates.sort((a, b) => a.free - b.free);
    // Water-filling: add rails in order of their free time while they are free before T.
    let rateSum = 0;
    let weighted = 0;
    let active = 0;
    let finish = Infinity;
    for (const c of candidates) {
      if (active > 0 && c.free >= finish) break;
      rateSum += c.rate;
      weighted += c.rate * c.free;
      active++;
      finish = (remaining + weighted) / rateSum;
    }
    // Probe a rail left out for a while (and idle: a loaded rail reports by itself).
    if (active < candidates.length) {
      for (let i = active; i < candidates.length; i++) {
        const c = candidates[i]!;
        const e = this.estimator(c.rail.index);
        const quiet = now - Math.max(e.lastSampleAt, this.lastUsed[c.rail.index]!);
        if (quiet >= this.probeInterval && c.rail.queuedBytes + c.rail.inFlightBytes === 0) {
          this.probes++;
          return this.use(c.rail.index, Math.min(remaining, this.probeBytes), now);
        }
      }
    }
    let best = candidates[0]!;
    let bestShare = -Infinity;
    for (let i = 0; i < active; i++) {
      const c = candidates[i]!;
      const share = (finish - c.free) * c.rate;
      if (share > bestShare) {
        bestShare = share;
        best = c;
      }
    }
    const segment = segmentOf(best.rate);
    let bytes = bestShare < 1.5 * segment ? Math.ceil(bestShare) : segment;
    bytes = Math.max(1, Math.min(remaining, bytes));
    // Never leave a sliver smaller than a probe behind: it would cost a segment of its own.
    if (remaining - bytes < Math.min(this.segMin, 4096)) bytes = remaining;
    return this.use(best.rail.index, bytes, now);
  }

  private use(rail: number, bytes: number, now: number): SegmentChoice {
    this.estimator(rail);
    this.lastUsed[rail] = now;
    return { rail, bytes };
  }

  completed(sample: CompletionSample): void {
    const estimator = this.estimator(sample.rail);
    estimator.add(this.windows[sample.rail]!.add(sample.bytes, sample.serviceStart, sample.afterIdle, sample.ackedAt), sample.ackedAt);
  }

  describe(): Record<string, unknown> {
    return { rates: this.estimators.map((e) => Math.round(e.rate)), probes: this.probes };
  }
}
