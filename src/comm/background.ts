/**
 * Work a rank's progress carries on besides matching messages: the schedules of nonblocking
 * collectives and the target side of one-sided windows. MPI's progress rule: whatever the rank
 * waits for or polls, these move on too (a rank blocked in recv still forwards its part of an
 * ibcast, still serves a put). The endpoint advances them after each poll and before it looks at
 * a wait's condition.
 */

export interface BackgroundTask {
  /** Makes what progress it can now; returns true once finished (it is then dropped). */
  advance(): boolean;
}

export class BackgroundTasks {
  private tasks: BackgroundTask[] = [];
  /** Advancing may send, and a send may poll: no task is advanced from inside another. */
  private running = false;

  get active(): boolean {
    return this.tasks.length > 0;
  }

  add(task: BackgroundTask): void {
    this.tasks.push(task);
  }

  remove(task: BackgroundTask): void {
    const at = this.tasks.indexOf(task);
    if (at >= 0) this.tasks.splice(at, 1);
  }

  /**
   * Advances every task (tasks added meanwhile included), and again while a pass finished one: a
   * task that finished may be what an earlier one waits for (a nonblocking collective's staged
   * step). A simulated rank's wait looks at its condition once per event, so a task left for the
   * next poll would never move. True when any finished.
   */
  advance(): boolean {
    if (this.running || this.tasks.length === 0) return false;
    this.running = true;
    let finished = false;
    try {
      const tasks = this.tasks;
      for (let pass = true; pass && tasks.length > 0; ) {
        pass = false;
        for (let i = 0; i < tasks.length; i++) {
          if (tasks[i]!.advance()) {
            tasks.splice(i--, 1);
            pass = true;
          }
        }
        finished ||= pass;
      }
    } finally {
      this.running = false;
    }
    return finished;
  }
}
