/**
 * Static weights by rail rate, as UCX (lane weights from a modelled bandwidth) and Open MPI's
 * ob1/bml r2 (`btl_bandwidth` shares) do. Weights come from the configured rates
 * (`TSMPI_RAILS=eth0@800mbit,...`); without them, from the first `probeSamples` completions of
 * each rail (equal shares meanwhile), and then they stay fixed: right while the rails keep their
 * rates, wrong as soon as one is loaded, which is the point of comparing it.
 *
 * A message of at most one segment per rail is cut into one chunk per rail in proportion to the
 * weights (all rails finish together); a larger one goes out in segments of seg_max, each to the
 * rail whose weighted share of all bytes so far is smallest (weighted round-robin).
 */
import { RateEstimator, sampleRate } from './rate-estimator.js';
import type { CompletionSample, RailPolicy, RailPolicyOptions, RailView, SegmentChoice } from './types.js';

export interface WeightedPolicyOptions extends RailPolicyOptions {
  /** Completions per rail measured before the weights freeze (without configured rates). @default 8 */
  probeSamples?: number;
}

export class WeightedPolicy implements RailPolicy {
  readonly name = 'weighted' as const;
  private readonly segMax: number;
  private readonly probeSamples: number;
  private readonly estimators: RateEstimator[] = [];
  private weights: number[] | undefined;
  private assigned: number[] = [];

  constructor(options: WeightedPolicyOptions) {
    this.segMax = options.segMax;
    this.probeSamples = options.probeSamples ?? 8;
  }

  /** The weights in use (configured, frozen after probing, or equal while probing). */
  private weightsFor(rails: readonly RailView[]): number[] {
    if (this.weights !== undefined) return this.weights;
    if (rails.every((r) => r.nominalRate > 0)) {
      this.weights = rails.map((r) => r.nominalRate);
      return this.weights;
    }
    if (this.estimators.length === rails.length && this.estimators.every((e) => e.count >= this.probeSamples)) {
      this.weights = this.estimators.map((e) => e.rate);
      return this.weights;
    }
    return rails.map(() => 1);
  }

  next(remaining: number, total: number, rails: readonly RailView[]): SegmentChoice | undefined {
    const all = this.weightsFor(rails);
    const weights = rails.map((r, i) => (r.up ? all[i]! : 0));
    const sum = weights.reduce((a, b) => a + b, 0);
    if (sum === 0) return undefined;
    while (this.assigned.length < rails.length) this.assigned.push(0);
    const up = weights.filter((w) => w > 0).length;
    if (total <= up * this.segMax) {
      // One chunk per rail in proportion: the rail whose share holds the next unplanned byte.
      const planned = total - remaining;
      let boundary = 0;
      for (let i = 0; i < rails.length; i++) {
        if (weights[i] === 0) continue;
        boundary += (total * weights[i]!) / sum;
        const end = Math.min(total, Math.round(boundary));
        if (end > planned) return this.take(i, Math.min(remaining, end - planned));
      }
      return this.take(weights.findLastIndex((w) => w > 0), remaining);
    }
    const bytes = Math.min(this.segMax, remaining);
    let best = -1;
    let bestScore = Infinity;
    for (let i = 0; i < rails.length; i++) {
      if (weights[i] === 0) continue;
      const score = (this.assigned[i]! + bytes) / weights[i]!;
      if (score < bestScore) {
        bestScore = score;
        best = i;
      }
    }
    return this.take(best, bytes);
  }

  private take(rail: number, bytes: number): SegmentChoice {
    this.assigned[rail] = (this.assigned[rail] ?? 0) + bytes;
    return { rail, bytes };
  }

  completed(sample: CompletionSample): void {
    if (this.weights !== undefined) return;
    while (this.estimators.length <= sample.rail) this.estimators.push(new RateEstimator());
    this.estimators[sample.rail]!.add(sampleRate(sample.bytes, sample.serviceStart, sample.ackedAt), sample.ackedAt);
  }

  describe(): Record<string, unknown> {
    return { weights: this.weights ?? 'probing', assigned: this.assigned };
  }
}
