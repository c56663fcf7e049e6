/**
 * Which failure a job ends with, when several processes fail at once: the first failing rank's
 * own code, as mpirun reports it. A rank that fails because a link to another rank broke (its
 * peer died) is a consequence, not a cause: its report is held for a grace period, and a cause
 * heard meanwhile wins. Without this, a rank that exits with 3 could end the job with 1: its
 * sockets close as it dies, and a peer's "link closed" report can reach the launcher first.
 *
 * Pure: the launcher feeds it what it hears and gives it a timer.
 */
export interface FailureVerdict {
  /** The process whose failure ends the job. */
  readonly process: number;
  readonly code: number;
  readonly why: string;
}

export interface FailureArbiterOptions {
  /** Called once, with the failure the job ends with. */
  onVerdict: (verdict: FailureVerdict) => void;
  /** How long a consequential failure waits for its cause, in ms. */
  graceMs: number;
  /** Runs `callback` after `ms` (the launcher's setTimeout; tests pass their own). */
  schedule: (callback: () => void, ms: number) => void;
}

export class FailureArbiter {
  private readonly options: FailureArbiterOptions;
  private decided: FailureVerdict | undefined;
  private provisional: FailureVerdict | undefined;
  /** Processes that reported a consequential failure (their exit is one too). */
  private readonly consequential = new Set<number>();
  /** Processes that reported a failure of their own. */
  private readonly causes = new Set<number>();

  constructor(options: FailureArbiterOptions) {
    this.options = options;
  }

  /** The failure the job ends with, once decided. */
  get verdict(): FailureVerdict | undefined {
    return this.decided;
  }

  /** A process says one of its ranks failed: on its own (`consequence` false), or because a link to a peer broke. */
  report(process: number, code: number, why: string, consequence: boolean): void {
    if (consequence) {
      this.consequential.add(process);
      this.hold({ process, code, why });
    } else {
      this.causes.add(process);
      this.decide({ process, code, why });
    }
  }

  /** A process ended with a non-zero code (after its report, if it sent one). */
  exited(process: number, code: number, why: string): void {
    if (this.causes.has(process)) return; // its report already counted, with the rank's own code
    if (this.consequential.has(process)) this.hold({ process, code, why });
    else this.decide({ process, code, why }); // died without a word (killed, crashed): a cause
  }

  /** Every process has ended: a held failure is all there is. */
  finish(): FailureVerdict | undefined {
    if (this.decided === undefined && this.provisional !== undefined) this.decide(this.provisional);
    return this.decided;
  }

  private hold(failure: FailureVerdict): void {
    if (this.decided !== undefined || this.provisional !== undefined) return;
    this.provisional = failure;
    this.options.schedule(() => {
      if (this.provisional !== undefined) this.decide(this.provisional);
    }, this.options.graceMs);
  }

  private decide(failure: FailureVerdict): void {
    if (this.decided !== undefined) return;
    this.decided = failure;
    this.provisional = undefined;
    this.options.onVerdict(failure);
  }
}
