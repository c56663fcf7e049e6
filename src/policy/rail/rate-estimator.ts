/**
 * A rail's rate learnt from segment completions, telling transient congestion from a lasting
 * change (the "peak picking" idea of Mooncake TE+ and FALCON's coarse/fine split, in a simple
 * form): a sample within `band` of the estimate moves it by `alpha`; a sample outside it is
 * treated as transient and moves it by `outlierAlpha` only, unless `lastingAfter` samples in a row
 * fall outside on the same side, which is a lasting change: the estimate jumps to their mean.
 * Never clamped to a nominal rate (Mooncake #3644: a clamp kept a 25G NIC from learning its
 * real rate).
 */
export interface RateEstimatorOptions {
  /** @default 0.3 */
  alpha?: number;
  /** @default 0.05 */
  outlierAlpha?: number;
  /** Relative deviation that makes a sample an outlier. @default 0.25 */
  band?: number;
  /** @default 3 */
  lastingAfter?: number;
  /** ...and over at least this many seconds. @default 0.02 */
  lastingSeconds?: number;
}

export class RateEstimator {
  private value = 0;
  private samples = 0;
  private streak = 0;
  private streakSum = 0;
  private streakStart = 0;
  private readonly lastingSeconds: number;
  private readonly alpha: number;
  private readonly outlierAlpha: number;
  private readonly band: number;
  private readonly lastingAfter: number;
  /** Time of the last sample (seconds), -Infinity before any. */
  lastSampleAt = -Infinity;

  constructor(options: RateEstimatorOptions = {}) {
    this.alpha = options.alpha ?? 0.3;
    this.outlierAlpha = options.outlierAlpha ?? 0.05;
    this.band = options.band ?? 0.25;
    this.lastingAfter = options.lastingAfter ?? 3;
    this.lastingSeconds = options.lastingSeconds ?? 0.02;
  }

  /** Bytes/s, or 0 before the first sample. */
  get rate(): number {
    return this.value;
  }

  get count(): number {
    return this.samples;
  }

  add(rate: number, at: number): void {
    if (!(rate > 0) || !Number.isFinite(rate)) return;
    this.lastSampleAt = at;
    this.samples++;
    if (this.samples === 1) {
      this.value = rate;
      return;
    }
    const deviation = rate / this.value - 1;
    if (Math.abs(deviation) <= this.band) {
      this.streak = 0;
      this.streakSum = 0;
      this.value += this.alpha * (rate - this.value);
      return;
    }
    const side = Math.sign(deviation);
    if (this.streak === 0 || Math.sign(this.streak) !== side) {
      this.streak = 0;
      this.streakSum = 0;
      this.streakStart = at;
    }
    this.streak += side;
    this.streakSum += rate;
    if (Math.abs(this.streak) >= this.lastingAfter && at - this.streakStart >= this.lastingSeconds) {
      this.value = this.streakSum / Math.abs(this.streak);
      this.streak = 0;
      this.streakSum = 0;
    } else {
      this.value += this.outlierAlpha * (rate - this.value);
    }
  }
}

/** The rate a completion shows: bytes over the time the rail spent serving the segment. */
export function sampleRate(bytes: number, serviceStart: number, ackedAt: number): number {
  const seconds = ackedAt - serviceStart;
  return seconds > 0 ? bytes / seconds : 0;
}

/**
 * Rate samples over a sliding window of a rail's busy time rather than per segment: a receiver
 * that stalls (a GC pause, a busy core) delays a few acknowledgements and then releases them
 * together, which per segment reads as one very slow segment followed by impossibly fast ones.
 * Over `span` seconds of acknowledgements the stall averages out. A segment sent to an idle rail
 * starts a new window.
 */
export class AckWindow {
  private entries: { start: number; end: number; bytes: number }[] = [];
  private bytes = 0;

  constructor(private readonly span = 0.02) {}

  /** Adds an acknowledged segment; returns the rate over the window (bytes/s, 0 if none). */
  add(bytes: number, serviceStart: number, afterIdle: boolean, ackedAt: number): number {
    if (afterIdle) {
      this.entries = [];
      this.bytes = 0;
    }
    this.entries.push({ start: serviceStart, end: ackedAt, bytes });
    this.bytes += bytes;
    while (this.entries.length > 1 && ackedAt - this.entries[1]!.start >= this.span) this.bytes -= this.entries.shift()!.bytes;
    const seconds = ackedAt - this.entries[0]!.start;
    return seconds > 0 ? this.bytes / seconds : 0;
  }
}
