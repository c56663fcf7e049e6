/**
 * The master's side of a task pool, shared by both ways of running one: the tasks submitted and
 * not yet settled, the queue of those not handed out, and what settles them. The engines
 * (central-pool.ts, stealing-pool.ts) move tasks; this keeps the books.
 */
import type { Communicator } from '../comm/communicator.js';
import type { ErrorCodeValue } from '../errors.js';
import { TaskDeque } from './task-deque.js';
import { TaskError } from './task-error.js';
import { EventLoopTurns, type TaskRunner, type WireOutcome, type WireTask } from './pool-wire.js';

export interface TaskRecord {
  readonly id: number;
  readonly handler: number;
  readonly arg: unknown;
  /** Rank holding the task; -1 while queued at the master. */
  holder: number;
  /** Times it was handed out. */
  attempts: number;
  settled: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export class PoolMaster {
  readonly queue = new TaskDeque<TaskRecord>();
  readonly records = new Map<number, TaskRecord>();
  /** Tasks cancelled while a rank held them; the engine tells the workers. */
  readonly cancelledOut: TaskRecord[] = [];
  closing = false;
  private wake: (() => void) | undefined;
  private wakeCalled = false;
  private readonly turns: EventLoopTurns;

  constructor(
    readonly comm: Communicator,
    readonly runner: TaskRunner,
    readonly handlerNames: readonly string[],
    /** Whether the master runs tasks itself between its polls (the seed's master does). */
    readonly computes: boolean,
  ) {
    this.turns = new EventLoopTurns(comm);
  }

  /** Tasks submitted and not settled. */
  get unsettled(): number {
    return this.records.size;
  }

  /** True once close() was called and every task has settled. */
  get finished(): boolean {
    return this.closing && this.records.size === 0;
  }

  wire(record: TaskRecord): WireTask {
    return [record.id, record.handler, record.arg];
  }

  /** Resolves when something was submitted, cancelled or closed since the last call. */
  kicked(): Promise<void> {
    if (this.wakeCalled) {
      this.wakeCalled = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = undefined;
        resolve();
      };
    });
  }

  kick(): void {
    if (this.wake) this.wake();
    else this.wakeCalled = true;
  }

  /** Settles a task from its outcome (outcomes of tasks already settled are dropped). */
  settle(outcome: WireOutcome, rank: number): void {
    const record = this.records.get(outcome[0]);
    if (record === undefined || record.settled) return;
    record.settled = true;
    this.records.delete(record.id);
    if (outcome[1] === 0) record.resolve(outcome[2]);
    else if (outcome[1] === 1) record.reject(TaskError.fromWorker(record.id, this.handlerNames[record.handler]!, rank, outcome[2]));
    else record.reject(TaskError.cancelled(record.id, this.handlerNames[record.handler]!, rank));
  }

  /** Fails a task for a reason of the pool's own (a lost worker, a failed pool). */
  fail(record: TaskRecord, code: ErrorCodeValue, message: string, hint: string): void {
    if (record.settled) return;
    record.settled = true;
    this.records.delete(record.id);
    record.reject(new TaskError(code, message, { taskId: record.id, task: this.handlerNames[record.handler]!, rank: this.comm.rank, operation: 'task pool', hint }));
  }

  /** Runs up to `seconds` of queued tasks here (at least one), as the seed's master does between polls. */
  async computeFor(seconds: number): Promise<void> {
    const until = this.comm.clock.now() + seconds;
    do {
      const record = this.queue.popFront();
      if (record === undefined) return;
      record.holder = this.comm.rank;
      record.attempts++;
      this.settle(await this.runner.run(this.wire(record)), this.comm.rank);
    } while (this.comm.clock.now() < until);
    await this.turns.maybeYield();
  }
}
