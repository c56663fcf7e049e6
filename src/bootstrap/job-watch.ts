/**
 * The launcher's view of a job's progress across its processes, for one job-wide hang report:
 * each process reports the sum of its ranks' progress counters and how many wait, the watch
 * decides when no rank anywhere has progressed for the hang timeout (or, once, the warning
 * time), and the report lists every rank of every process in rank order.
 *
 * Pure: the launcher feeds it reports with its clock, and asks it what to do.
 */

/** What one process says of its ranks. */
export interface ProcessProgress {
  /** Sum of its ranks' progress counters and states: any change is progress. */
  readonly total: number;
  /** Ranks still running (not finished), and how many of them wait in tsmpi. */
  readonly live: number;
  readonly waiting: number;
  /**
   * Of the live ranks, those whose program has returned and that wait in nothing of tsmpi, yet
   * whose thread has not ended (a timer or socket of the program's keeps it): they wait too.
   */
  readonly lingering?: number;
}

/** How long a job whose every live rank lingers (its program returned) is left before it is reported (s), unless the warning time is shorter. */
export const LINGER_WARN_SECONDS = 10;

/** What the watch says to do now. */
export type WatchVerdict = { readonly act: 'none' } | StallVerdict;

/**
 * A stall to report (warn) or end the job for (abort). `confirm`: only lingering ranks made it
 * one, and the counters cannot tell a rank that lingers (its program returned, its thread idle)
 * from one whose program goes on without awaiting a top-level promise (`main()` not awaited):
 * the ranks' answers must confirm that none is at work ({@link confirmedStall}).
 */
export interface StallVerdict {
  readonly act: 'warn' | 'abort';
  readonly stalledSeconds: number;
  readonly cause: StallCause;
  readonly confirm: boolean;
}

/** What the stalled ranks do: wait in tsmpi (some of them at least), or only linger after their program returned. */
export type StallCause = 'waits' | 'lingers';

/** A rank's line in a hang report; `active`: it was found at work (computing, its event loop busy), not stalled. */
export type WaitLine = readonly [rank: number, line: string, active?: boolean];

/**
 * The verdict on one view of the ranks (one process's, or the whole job's): abort when a rank
 * waits (in tsmpi, or lingering) and nothing progressed for the timeout; warn once when every
 * live rank has waited for the warning time, or, when they all linger, for the shorter linger
 * time. Pure; `warned` says whether the warning was given already.
 */
export function stallVerdict(
  counts: { live: number; waiting: number; lingering: number },
  stalledSeconds: number,
  limits: { hangTimeout: number; hangWarn: number },
  warned: boolean,
): WatchVerdict {
  const act = stallAct(counts, stalledSeconds, limits, warned);
  if (act === 'none') return { act };
  const confirm = counts.lingering > 0 && stallAct({ ...counts, lingering: 0 }, stalledSeconds, limits, warned) !== act;
  return { act, stalledSeconds, cause: counts.waiting > 0 ? 'waits' : 'lingers', confirm };
}

function stallAct(counts: { live: number; waiting: number; lingering: number }, stalledSeconds: number, limits: { hangTimeout: number; hangWarn: number }, warned: boolean): 'none' | 'warn' | 'abort' {
  const { live, waiting, lingering } = counts;
  const stalled = waiting + lingering;
  if (limits.hangTimeout > 0 && stalled > 0 && stalledSeconds >= limits.hangTimeout) return 'abort';
  if (warned || limits.hangWarn <= 0 || live === 0 || stalled < live) return 'none';
  const warnAfter = waiting === 0 ? Math.min(limits.hangWarn, LINGER_WARN_SECONDS) : limits.hangWarn;
  return stalledSeconds >= warnAfter ? 'warn' : 'none';
}

/** Whether the ranks' answers bear the verdict out: none was at work, where lingering ranks made the verdict. */
export function confirmedStall(verdict: StallVerdict, answers: readonly WaitLine[]): boolean {
  return !verdict.confirm || !answers.some(([, , active]) => active === true);
}

/** The first line of a hang report; `everyRank` names the ranks judged ("every rank", "every rank of this process"). */
export function stallHeadline(verdict: StallVerdict, hangTimeout: number, everyRank = 'every rank'): string {
  if (verdict.act === 'abort') return `tsmpi: no rank made progress for ${hangTimeout} s (--hang-timeout ${hangTimeout}); what each rank waits for:`;
  const seconds = Math.round(verdict.stalledSeconds);
  if (verdict.cause === 'lingers') {
    return `tsmpi: no rank has made progress for ${seconds} s, and the ranks still running have returned from the program: something it started (a timer, a socket, a server) keeps their thread alive; what each rank waits for:`;
  }
  return `tsmpi: ${everyRank} has waited ${seconds} s without progress (a deadlock?); what each rank waits for:`;
}

export class JobWatch {
  private readonly reports = new Map<number, ProcessProgress>();
  /** When each running process last reported (ms). */
  private readonly heard = new Map<number, number>();
  private lastChange: number;
  private warned = false;

  /** `hangTimeout` and `hangWarn` in seconds (0: off); `now` in ms. */
  constructor(
    private readonly hangTimeout: number,
    private readonly hangWarn: number,
    now: number,
  ) {
    this.lastChange = now;
  }

  /** A process's report; any change of its total counts as progress. */
  report(process: number, progress: ProcessProgress, now: number): void {
    const before = this.reports.get(process);
    if (before === undefined || before.total !== progress.total) this.lastChange = now;
    this.reports.set(process, progress);
    this.heard.set(process, now);
  }

  /** A process ended: its ranks no longer count. */
  ended(process: number, now: number): void {
    if (this.reports.delete(process)) this.lastChange = now;
    this.heard.delete(process);
  }

  /**
   * Processes that reported once and then nothing for `timeoutSeconds` (0: never): they report
   * every second whatever their ranks do, so such silence means their host is cut off or stopped.
   * Each, with the seconds since it was last heard.
   */
  silent(now: number, timeoutSeconds: number): { process: number; seconds: number }[] {
    if (timeoutSeconds <= 0) return [];
    const out: { process: number; seconds: number }[] = [];
    for (const [process, at] of this.heard) if (now - at >= timeoutSeconds * 1000) out.push({ process, seconds: (now - at) / 1000 });
    return out;
  }

  /** The job's verdict (stallVerdict over every process's ranks); the warning is given once ({@link warnedNow}). */
  check(now: number): WatchVerdict {
    const counts = { live: 0, waiting: 0, lingering: 0 };
    for (const p of this.reports.values()) {
      counts.live += p.live;
      counts.waiting += p.waiting;
      counts.lingering += p.lingering ?? 0;
    }
    return stallVerdict(counts, (now - this.lastChange) / 1000, { hangTimeout: this.hangTimeout, hangWarn: this.hangWarn }, this.warned);
  }

  /** The warning was printed: it is not given again. */
  warnedNow(): void {
    this.warned = true;
  }

  /** The report restarts the clock (asking every rank what it waits for is not progress). */
  restart(now: number): void {
    this.lastChange = now;
  }
}

/** One line per rank, in rank order, from every process's answer; ranks nobody answered for say so. */
export function jobWaitLines(answers: readonly WaitLine[], size: number): string[] {
  const byRank = new Map<number, string[]>();
  for (const [rank, line] of answers) {
    const list = byRank.get(rank) ?? [];
    list.push(line);
    byRank.set(rank, list);
  }
  const lines: string[] = [];
  for (let rank = 0; rank < size; rank++) {
    for (const line of byRank.get(rank) ?? [`  rank ${rank}: no answer (its process is busy, stopped or gone)`]) lines.push(line);
  }
  return lines;
}
