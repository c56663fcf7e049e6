/**
 * The patent's baseline (and what most MPI stripes do): equal segments of at most seg_max, dealt
 * to the rails in turn, whatever their speed or load. On 4:1 rails it reaches 0.40 of the sum.
 */
import type { RailPolicy, RailPolicyOptions, RailView, SegmentChoice } from './types.js';

export class RoundRobinPolicy implements RailPolicy {
  readonly name = 'round-robin' as const;
  private cursor = 0;
  private readonly segMax: number;

  constructor(options: RailPolicyOptions) {
    this.segMax = options.segMax;
  }

  next(remaining: number, _total: number, rails: readonly RailView[], _now?: number): SegmentChoice | undefined {
    for (let tried = 0; tried < rails.length; tried++) {
      const rail = rails[this.cursor % rails.length]!;
      this.cursor = (this.cursor + 1) % rails.length;
      if (rail.up) return { rail: rail.index, bytes: Math.min(this.segMax, remaining) };
    }
    return undefined;
  }

  completed(): void {}

  describe(): Record<string, unknown> {
    return { cursor: this.cursor };
  }
}
