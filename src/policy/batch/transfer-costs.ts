/**
 * The adaptive planner's cost model (batch scheduling): the time of an exchange as transfers * o
 * + bytes / B, fitted by least squares over past exchanges with forgetting. Fed the times the
 * exchange measured on the rank's clock; pure.
 */
export class TransferCosts {
  /** Sums for the least-squares fit of seconds = n * o + bytes / B (with forgetting). */
  private snn = 0;
  private snb = 0;
  private sbb = 0;
  private snt = 0;
  private sbt = 0;
  perMessage = 20e-6;
  bandwidth = 1e9;

  observe(transfers: number, bytes: number, seconds: number): void {
    const f = 0.8;
    this.snn = f * this.snn + transfers * transfers;
    this.snb = f * this.snb + transfers * bytes;
    this.sbb = f * this.sbb + bytes * bytes;
    this.snt = f * this.snt + transfers * seconds;
    this.sbt = f * this.sbt + bytes * seconds;
    const det = this.snn * this.sbb - this.snb * this.snb;
    if (Math.abs(det) < 1e-9 * this.snn * this.sbb) {
      // One kind of observation so far: attribute the time to messages at the current bandwidth.
      if (transfers > 0) this.perMessage = Math.max(1e-7, (seconds - bytes / this.bandwidth) / transfers);
      return;
    }
    const o = (this.snt * this.sbb - this.sbt * this.snb) / det;
    const inv = (this.snn * this.sbt - this.snb * this.snt) / det;
    if (o > 0) this.perMessage = o;
    if (inv > 0) this.bandwidth = 1 / inv;
  }
}

