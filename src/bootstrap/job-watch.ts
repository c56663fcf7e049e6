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
}

/** What the watch says to do now. */
export type WatchVerdict = { readonly act: 'none' } | { readonly act: 'warn' | 'abort'; readonly stalledSeconds: number };

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

  /** Abort when a rank waits and nothing progressed for the timeout; warn once when every live rank has waited for the warning time. */
  check(now: number): WatchVerdict {
    const stalledSeconds = (now - this.lastChange) / 1000;
    let live = 0;
    let waiting = 0;
    for (const p of this.reports.values()) {
      live += p.live;
      waiting += p.waiting;
    }
    if (this.hangTimeout > 0 && waiting > 0 && stalledSeconds >= this.hangTimeout) return { act: 'abort', stalledSeconds };
    if (!this.warned && this.hangWarn > 0 && live > 0 && waiting === live && stalledSeconds >= this.hangWarn) {
      this.warned = true;
      return { act: 'warn', stalledSeconds };
    }
    return { act: 'none' };
  }

  /** The report restarts the clock (asking every rank what it waits for is not progress). */
  restart(now: number): void {
    this.lastChange = now;
  }
}

/** One line per rank, in rank order, from every process's answer; ranks nobody answered for say so. */
export function jobWaitLines(answers: readonly (readonly [rank: number, line: string])[], size: number): string[] {
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
