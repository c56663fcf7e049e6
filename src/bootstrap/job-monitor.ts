/**
 * The job-wide hang watch of a job manager (the launcher of `tsmpi run --procs`, or under SLURM
 * the coordinator in task 0's process): processes report their ranks' progress on their
 * connection to it (launcher-rendezvous.ts); when no rank anywhere has progressed for the hang
 * timeout while one waits, it asks every process what its ranks wait for and prints one report,
 * every rank in rank order, then has the job ended with 124 (a warning once, without a timeout).
 */
import { confirmedStall, JobWatch, jobWaitLines, stallHeadline, type StallVerdict, type WaitLine } from './job-watch.js';
import type { RendezvousServer } from './launcher-rendezvous.js';

export const HANG_EXIT_CODE = 124;
/** How often the monitor looks at the job's progress (ms). */
const WATCH_INTERVAL_MS = 250;
/** How long the processes have to answer what their ranks wait for (ms). */
const ANSWER_MS = 1500;

export interface JobMonitorOptions {
  readonly server: RendezvousServer;
  readonly hangTimeout: number;
  readonly hangWarn: number;
  /** Seconds a process may go unheard before its host counts as lost (0: never). */
  readonly hostTimeout: number;
  /** World size, and the world ranks process `index` hosts. */
  readonly size: number;
  readonly processes: number;
  ranksOf(index: number): number[];
  /** How process `index` ended (its exit code, or 'ended' when only its connection's close tells), undefined while it runs. */
  endOf(index: number): number | 'ended' | undefined;
  /** A process in words, e.g. "process 3 (ranks 6..7 on node4)". */
  describe?(index: number): string;
  log(line: string): void;
  /** A process went unheard for the host timeout (said in the log): end the job. */
  onLost?(): void;
  /** The job hung past the timeout (the report is printed): end it with 124. */
  onHang(): void;
  /** True once the job is ending anyway: stop judging. */
  isOver(): boolean;
}

export class JobMonitor {
  private readonly options: JobMonitorOptions;
  private readonly watch: JobWatch;
  private reporting = false;
  private readonly timer: NodeJS.Timeout;

  constructor(options: JobMonitorOptions) {
    this.options = options;
    this.watch = new JobWatch(options.hangTimeout, options.hangWarn, performance.now());
    options.server.onProgress = (index, progress) => this.watch.report(index, progress, performance.now());
    this.timer = setInterval(() => this.tick(), WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  /** A process ended: its ranks no longer count. */
  ended(index: number): void {
    this.watch.ended(index, performance.now());
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    if (this.reporting || this.options.isOver()) return;
    const now = performance.now();
    const lost = this.options.onLost === undefined ? [] : this.watch.silent(now, this.options.hostTimeout);
    if (lost.length > 0) {
      const describe = this.options.describe ?? ((index: number) => `process ${index}`);
      for (const { process, seconds } of lost) {
        this.options.log(
          `tsmpi: ${describe(process)} has not been heard from for ${Math.round(seconds)} s (TSMPI_HOST_TIMEOUT ${this.options.hostTimeout}): its host is cut off (a link down?) or stopped; ending the job`,
        );
      }
      this.options.onLost!();
      return;
    }
    const verdict = this.watch.check(now);
    if (verdict.act !== 'none') void this.report(verdict);
  }

  private async report(verdict: StallVerdict): Promise<void> {
    const fatal = verdict.act === 'abort';
    this.reporting = true;
    const { server, processes } = this.options;
    const answers: WaitLine[] = [];
    const answered = new Set<number>();
    server.onWaits = (index, lines) => {
      answered.add(index);
      answers.push(...lines);
    };
    server.describe();
    const running = (): number => Array.from({ length: processes }, (_, i) => this.options.endOf(i)).filter((end) => end === undefined).length;
    const runningBefore = running();
    const deadline = performance.now() + ANSWER_MS;
    while (answered.size < running() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    for (let index = 0; index < processes; index++) {
      const end = this.options.endOf(index);
      if (end === undefined || answered.has(index)) continue;
      for (const rank of this.options.ranksOf(index)) answers.push([rank, `  rank ${rank}: ${end === 'ended' ? 'ended' : `exited with code ${end}`}`]);
    }
    // A process that did not answer may hold ranks at work: unconfirmed.
    if (!confirmedStall(verdict, answers) || (verdict.confirm && answered.size < running()) || running() !== runningBefore || this.options.isOver()) {
      // A rank taken for lingering was at work, or a process ended meanwhile: no stall; judge again a full period on.
      this.watch.restart(performance.now());
      this.reporting = false;
      return;
    }
    if (verdict.act === 'warn') this.watch.warnedNow();
    const headline = stallHeadline(verdict, this.options.hangTimeout);
    const footer = fatal ? `tsmpi: aborting the job (exit code ${HANG_EXIT_CODE}); raise --hang-timeout if the ranks were just slow` : 'tsmpi: the job keeps running; set --hang-timeout S to abort such jobs';
    this.options.log([headline, ...jobWaitLines(answers, this.options.size), footer].join('\n'));
    this.watch.restart(performance.now());
    this.reporting = false;
    if (fatal) this.options.onHang();
  }
}
