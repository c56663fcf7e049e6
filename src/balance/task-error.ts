/**
 * The error a task's handle rejects with: it names the task (id and handler), the rank that ran it
 * and, for a throw inside the handler, carries what it threw as its cause.
 */
import { ErrorCode, type ErrorCodeValue, TsmpiError } from '../errors.js';
import { inspect } from 'node:util';
import { isWireThrown, thrownFromWire } from './thrown.js';

export interface TaskErrorInit {
  readonly taskId: number;
  /** The handler's name. */
  readonly task: string;
  readonly rank: number;
  readonly operation: string;
  readonly hint?: string;
  readonly cause?: unknown;
}

export class TaskError extends TsmpiError {
  /** The id of the task (as on its handle). */
  readonly taskId: number;
  /** The name of the task's handler. */
  readonly task: string;

  constructor(code: ErrorCodeValue, message: string, init: TaskErrorInit) {
    super(code, `task ${init.taskId} (${init.task}): ${message}`, init);
    this.name = 'TaskError';
    this.taskId = init.taskId;
    this.task = init.task;
  }

  /**
   * The handler threw `thrown` on `rank` (in its wire form when it came from another rank): the
   * cause is what it threw, an Error of its own class or any other value.
   */
  static fromWorker(taskId: number, task: string, rank: number, thrown: unknown): TaskError {
    const cause = isWireThrown(thrown) ? thrownFromWire(thrown) : thrown;
    const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : `threw ${inspect(cause, { depth: 2, breakLength: Infinity })}`;
    return new TaskError(ErrorCode.Task, what, { taskId, task, rank, operation: 'task', hint: 'the handler threw; what it threw is the cause', cause });
  }

  static cancelled(taskId: number, task: string, rank: number): TaskError {
    return new TaskError(ErrorCode.Cancelled, 'cancelled', { taskId, task, rank, operation: 'task', hint: 'the task was cancelled before it ran' });
  }
}
