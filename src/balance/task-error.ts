/**
 * The error a task's handle rejects with: it names the task (id and handler), the rank that ran it
 * and, for a throw inside the handler, carries the original name, message and stack.
 */
import { ErrorCode, type ErrorCodeValue, TsmpiError } from '../errors.js';
import type { WireError } from './pool-wire.js';

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

  /** The handler threw on `rank`; the original error is the cause. */
  static fromWorker(taskId: number, task: string, rank: number, error: WireError): TaskError {
    const cause = Object.assign(new Error(error.message), { name: error.name, ...(error.stack !== undefined && { stack: error.stack }) });
    return new TaskError(ErrorCode.Task, `${error.name}: ${error.message}`, { taskId, task, rank, operation: 'task', hint: 'the handler threw; its error is the cause', cause });
  }

  static cancelled(taskId: number, task: string, rank: number): TaskError {
    return new TaskError(ErrorCode.Cancelled, 'cancelled', { taskId, task, rank, operation: 'task', hint: 'the task was cancelled before it ran' });
  }
}
