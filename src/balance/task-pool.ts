/**
 * A task pool over a communicator (seed 4, and its distributed
 * successor; docs/techniques.md §4). Every rank opens the pool with the same named handlers; the master submits tasks by
 * handler name and gets promises back, the other ranks serve until the master closes it.
 *
 * ```ts
 * const pool = await TaskPool.open(comm, { slice: ({ lo, hi }: Slice) => integrate(lo, hi) });
 * if (pool.isMaster) {
 *   const parts = await pool.map('slice', slices);          // in order
 *   for await (const task of pool.asCompleted(handles)) ...   // every handle as it settles:
 *     // task.status 'fulfilled' (task.value), 'rejected' or 'cancelled' (task.error)
 * }
 * const stats = await pool.close();   // every rank: the master waits for its tasks, workers stop
 * ```
 *
 * Two ways to run it (TSMPI_POOL or `mode`): `central`, the seed's master-worker loop (the master
 * computes too), and `stealing`, per-rank deques with random work stealing. Handlers are found by
 * name on every rank (functions do not travel), arguments and results are any encodable value.
 */
import type { Communicator } from '../comm/communicator.js';
import { ErrorCode, TsmpiError, type ErrorCodeValue } from '../errors.js';
import { defaultDispatchOptions } from '../policy/balance/dispatch.js';
import { Rng } from '../rng.js';
import { runCentralMaster, runCentralWorker } from './central-pool.js';
import { PoolMaster, type TaskRecord } from './pool-master.js';
import { PoolInbox, TaskRunner, type TaskContext, type TaskHandler, type WorkerTotals } from './pool-wire.js';
import { runStealingRank } from './stealing-pool.js';

import { TaskError } from './task-error.js';

export type { TaskContext, TaskHandler } from './pool-wire.js';
export { TaskError };

export type PoolMode = 'central' | 'stealing';

/** The handlers of a pool, by name. */
export type TaskHandlers = Readonly<Record<string, TaskHandler>>;
/** The argument type of handler `K`. */
export type TaskArg<H extends TaskHandlers, K extends keyof H> = H[K] extends (arg: infer A, context: TaskContext) => unknown ? A : never;
/** The result type of handler `K` (awaited). */
export type TaskResult<H extends TaskHandlers, K extends keyof H> = H[K] extends (...args: never[]) => infer R ? Awaited<R> : never;

export interface TaskPoolOptions {
  /** Rank that submits tasks and keeps the books (default 0). */
  master?: number;
  /** `central` (default, or TSMPI_POOL) or `stealing`. */
  mode?: PoolMode;
  /** Whether the master runs tasks too, between its polls (default true, as in the seed). */
  masterComputes?: boolean;
  /** Seconds of queued work to keep at each worker (central) or of own work between polls (default 0.002). */
  horizon?: number;
  /**
   * Central mode: seconds a worker holding tasks may stay silent before it is declared lost; its
   * tasks then run again elsewhere, once (default 0: never). Its later results are ignored.
   */
  lostAfter?: number;
  /** Seed of the stealing victims' choice (default: the rank). */
  seed?: number;
}

export interface SubmitOptions {
  /** Aborting it cancels the task (see TaskHandle.cancel). */
  signal?: AbortSignal;
}

/** What each rank did over the pool's life (available on the master; workers get their own line only). */
export interface PoolStats {
  readonly mode: PoolMode;
  /** Tasks each rank ran, by pool rank (undefined for a worker that was lost). */
  readonly tasksByRank: (number | undefined)[];
  /** Seconds each rank spent inside handlers. */
  readonly busySecondsByRank: (number | undefined)[];
  /** Seconds each rank waited with nothing to run (a worker waiting for the master, a thief for loot). */
  readonly idleSecondsByRank: (number | undefined)[];
}

/** Where a task stands: running or queued, done with a value, failed, or cancelled. */
export type TaskStatus = 'pending' | 'fulfilled' | 'rejected' | 'cancelled';

/**
 * A settled task, as `asCompleted` hands it out: the shape of `Promise.allSettled`'s entries,
 * with cancellation told apart from failure, and the handle itself.
 */
export type SettledTask<R> =
  | { readonly id: number; readonly status: 'fulfilled'; readonly value: R; readonly handle: TaskHandle<R> }
  | { readonly id: number; readonly status: 'rejected' | 'cancelled'; readonly error: TaskError; readonly handle: TaskHandle<R> };

/**
 * A submitted task: awaitable (its result), with its id, a way to cancel it, and, once it has
 * settled, how: `status`, and `value` or `error`.
 */
export class TaskHandle<R> implements PromiseLike<R> {
  /** Settles with the handler's result, or rejects with a TaskError naming this id. */
  readonly result: Promise<R>;
  /** Resolves once the task settles, with how (never rejects). */
  readonly settled: Promise<SettledTask<R>>;
  #status: TaskStatus = 'pending';
  #value: R | undefined;
  #error: TaskError | undefined;

  /** @internal */
  constructor(
    readonly id: number,
    result: Promise<R>,
    private readonly canceller: (id: number) => boolean,
  ) {
    this.result = result;
    this.settled = result.then(
      (value): SettledTask<R> => {
        this.#value = value;
        this.#status = 'fulfilled';
        return { id, status: 'fulfilled', value, handle: this };
      },
      (cause: unknown): SettledTask<R> => {
        const error = cause instanceof TaskError ? cause : new TaskError(ErrorCode.Task, String(cause), { taskId: id, task: '?', rank: -1, operation: 'task', cause });
        const status = error.code === ErrorCode.Cancelled ? 'cancelled' : 'rejected';
        this.#error = error;
        this.#status = status;
        return { id, status, error, handle: this };
      },
    );
  }

  /** 'pending' until the task settles; then 'fulfilled', 'rejected' (its handler threw, or it was lost) or 'cancelled'. */
  get status(): TaskStatus {
    return this.#status;
  }

  /** The handler's result once the status is 'fulfilled' (undefined before, and for failures). */
  get value(): R | undefined {
    return this.#value;
  }

  /** Why it did not complete, once the status is 'rejected' or 'cancelled' (a TaskError). */
  get error(): TaskError | undefined {
    return this.#error;
  }

  then<A = R, B = never>(onfulfilled?: ((value: R) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.result.then(onfulfilled, onrejected);
  }

  /**
   * Cancels the task: a queued task never runs; one already handed out is skipped by its worker if
   * it has not started (a running handler is not interrupted, its result is dropped). The handle
   * rejects with TSMPI_ERR_CANCELLED. Returns false when the task had already settled.
   */
  cancel(): boolean {
    return this.canceller(this.id);
  }
}

export class TaskPool<H extends TaskHandlers> {
  readonly mode: PoolMode;
  readonly masterRank: number;
  private readonly names: string[];
  private readonly index: Map<string, number>;
  private nextId = 0;
  private readonly master: PoolMaster | undefined;
  private readonly running: Promise<(WorkerTotals | undefined)[]>;
  private failure: unknown;
  private closed = false;
  /** The unsettled handles of each AbortSignal given to submit. */
  private readonly bySignal = new WeakMap<AbortSignal, Set<TaskHandle<unknown>>>();

  private constructor(
    private readonly comm: Communicator,
    handlers: H,
    options: Required<Omit<TaskPoolOptions, 'seed'>> & { seed: number },
  ) {
    this.mode = options.mode;
    this.masterRank = options.master;
    this.names = Object.keys(handlers).sort();
    this.index = new Map(this.names.map((n, i) => [n, i]));
    const runner = new TaskRunner(
      this.names.map((n) => handlers[n]!),
      comm.rank,
      comm.clock,
      this.names,
      comm.tracer,
    );
    const inbox = new PoolInbox(comm);
    const dispatch = { ...defaultDispatchOptions, horizon: options.horizon };
    if (comm.rank === options.master) {
      this.master = new PoolMaster(comm, runner, this.names, options.masterComputes || comm.size === 1);
      const loop =
        options.mode === 'central'
          ? runCentralMaster(this.master, inbox, { dispatch, lostAfter: options.lostAfter })
          : runStealingRank(comm, inbox, runner, options.master, { slice: options.horizon / 4, rng: new Rng(options.seed) }, this.master);
      this.running = loop
        .then((totals) => {
          totals[comm.rank] = runner.totals();
          return totals;
        })
        .catch((error: unknown) => this.abandon(error))
        .finally(() => inbox.close());
    } else {
      const loop =
        options.mode === 'central'
          ? runCentralWorker(comm, inbox, runner, options.master, dispatch).then(() => [])
          : runStealingRank(comm, inbox, runner, options.master, { slice: options.horizon / 4, rng: new Rng(options.seed) });
      this.running = loop
        .then(() => {
          const own: (WorkerTotals | undefined)[] = new Array(comm.size).fill(undefined);
          own[comm.rank] = runner.totals();
          return own;
        })
        .finally(() => inbox.close());
    }
  }

  /**
   * Opens a pool on every rank of `comm` (collective: it duplicates the communicator and checks
   * that every rank registered the same handler names).
   */
  static async open<H extends TaskHandlers>(comm: Communicator, handlers: H, options: TaskPoolOptions = {}): Promise<TaskPool<H>> {
    const master = options.master ?? 0;
    const fail = (message: string, hint: string): TsmpiError => new TsmpiError(ErrorCode.Arg, message, { rank: comm.rank, operation: 'TaskPool.open', hint });
    if (!Number.isInteger(master) || master < 0 || master >= comm.size) throw fail(`master ${String(master)} is not a rank of this communicator (size ${comm.size})`, 'pass a rank in 0 .. size-1');
    const mode = options.mode ?? comm.settings.poolMode;
    if (mode !== 'central' && mode !== 'stealing') throw fail(`mode ${JSON.stringify(mode)} is unknown`, "use 'central' or 'stealing'");
    for (const [name, fn] of Object.entries(handlers)) if (typeof fn !== 'function') throw fail(`handler ${JSON.stringify(name)} is not a function`, 'pass { name: (arg) => result, ... }');
    const horizon = options.horizon ?? defaultDispatchOptions.horizon;
    if (!(horizon > 0)) throw fail(`horizon ${String(horizon)} is not a positive number of seconds`, 'use e.g. 0.002');
    const lostAfter = options.lostAfter ?? 0;
    if (!(lostAfter >= 0)) throw fail(`lostAfter ${String(lostAfter)} is not a number of seconds >= 0`, 'use 0 to never give up on a worker');
    const names = Object.keys(handlers).sort();
    const all = await comm.allgather(names.join('\u0000'));
    const differing = all.findIndex((n) => n !== all[master]);
    if (differing >= 0) {
      throw fail(
        `rank ${differing} registered handlers [${all[differing]!.split('\u0000').join(', ')}] but the master (rank ${master}) registered [${all[master]!.split('\u0000').join(', ')}]`,
        'open the pool with the same handler names on every rank',
      );
    }
    const poolComm = await comm.dup();
    return new TaskPool(poolComm, handlers, { master, mode, masterComputes: options.masterComputes ?? true, horizon, lostAfter, seed: options.seed ?? 0x9e3779b9 + comm.rank });
  }

  /** True on the rank that submits tasks. */
  get isMaster(): boolean {
    return this.master !== undefined;
  }

  /** Tasks submitted and not settled yet (master). */
  get pending(): number {
    return this.master?.unsettled ?? 0;
  }

  /** Submits one task; only the master may. */
  submit<K extends keyof H & string>(name: K, arg: TaskArg<H, K>, options: SubmitOptions = {}): TaskHandle<TaskResult<H, K>> {
    const master = this.requireMaster('submit');
    const handler = this.index.get(name);
    if (handler === undefined) throw this.error(ErrorCode.Arg, `no handler named ${JSON.stringify(name)}`, 'submit', `register it in TaskPool.open; known: ${this.names.join(', ')}`);
    const id = this.nextId++;
    let resolve!: (value: unknown) => void;
    let reject!: (error: unknown) => void;
    const result = new Promise<TaskResult<H, K>>((res, rej) => {
      resolve = res as (value: unknown) => void;
      reject = rej;
    });
    result.catch(() => {}); // a rejection is the handle's to report, not an unhandled one
    const record: TaskRecord = { id, handler, arg, holder: -1, attempts: 0, settled: false, resolve, reject };
    master.records.set(id, record);
    master.queue.pushBack(record);
    master.kick();
    const handle = new TaskHandle<TaskResult<H, K>>(id, result, (taskId) => this.cancel(taskId));
    if (options.signal !== undefined) {
      if (options.signal.aborted) handle.cancel();
      else this.cancelOnAbort(options.signal, handle);
    }
    return handle;
  }

  /**
   * Cancels `handle` when `signal` aborts. One listener per signal and pool, whatever the number
   * of tasks sharing it (a listener per task made Node warn past ten: MaxListenersExceededWarning).
   */
  private cancelOnAbort(signal: AbortSignal, handle: TaskHandle<unknown>): void {
    let handles = this.bySignal.get(signal);
    if (handles === undefined) {
      const tracked = new Set<TaskHandle<unknown>>();
      handles = tracked;
      this.bySignal.set(signal, tracked);
      signal.addEventListener(
        'abort',
        () => {
          this.bySignal.delete(signal);
          for (const h of tracked) h.cancel();
        },
        { once: true },
      );
    }
    handles.add(handle);
    void handle.settled.then(() => handles.delete(handle));
  }

  /** Runs `name` on every argument; the results in argument order (rejects with the first failure in order). */
  map<K extends keyof H & string>(name: K, args: Iterable<TaskArg<H, K>>): Promise<TaskResult<H, K>[]> {
    const handles = Array.from(args, (arg) => this.submit(name, arg));
    return Promise.all(handles.map((h) => h.result));
  }

  /**
   * Yields every task once it has settled, in the order they settle, whatever the outcome:
   * `{ id, status: 'fulfilled', value, handle }`, or `{ id, status: 'rejected' | 'cancelled',
   * error, handle }` (error: a TaskError). It never throws for a task, so one loop sees every
   * value, failure and cancellation, tasks cancelled before the loop included.
   * @example
   * ```ts
   * for await (const task of pool.asCompleted(handles)) {
   *   if (task.status === 'fulfilled') total += task.value;
   *   else console.error(`task ${task.id} ${task.status}: ${task.error.message}`);
   * }
   * ```
   */
  async *asCompleted<R>(handles: Iterable<TaskHandle<R>>): AsyncGenerator<SettledTask<R>, void, undefined> {
    const ready: SettledTask<R>[] = [];
    let wake: (() => void) | undefined;
    let count = 0;
    for (const h of handles) {
      count++;
      void h.settled.then((settled) => {
        ready.push(settled);
        wake?.();
      });
    }
    for (let yielded = 0; yielded < count; yielded++) {
      while (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      yield ready.shift()!;
    }
  }

  /**
   * Closes the pool (every rank calls it). On the master it waits until every task submitted has
   * settled, then stops the workers; on a worker it serves tasks until then. Returns what each rank
   * did (the whole table on the master).
   */
  async close(): Promise<PoolStats> {
    if (!this.closed) {
      this.closed = true;
      if (this.master) {
        this.master.closing = true;
        this.master.kick();
      }
    }
    const totals = await this.running;
    // The pool's private communicator goes with it (its queues and name).
    if (!this.comm.freed) this.comm.free();
    if (this.failure !== undefined) throw this.failure;
    return {
      mode: this.mode,
      tasksByRank: totals.map((t) => t?.tasks),
      busySecondsByRank: totals.map((t) => t?.busySeconds),
      idleSecondsByRank: totals.map((t) => t?.idleSeconds),
    };
  }

  private cancel(id: number): boolean {
    const master = this.master!;
    const record = master.records.get(id);
    if (record === undefined || record.settled) return false;
    if (record.holder === -1) master.queue.removeFirst((r) => r.id === id);
    else master.cancelledOut.push(record);
    master.settle([id, 2], this.comm.rank);
    master.kick();
    return true;
  }

  private abandon(error: unknown): (WorkerTotals | undefined)[] {
    this.failure = error;
    const master = this.master!;
    for (const record of [...master.records.values()]) {
      master.fail(record, ErrorCode.Task, `the pool failed: ${error instanceof Error ? error.message : String(error)}`, 'see the error the pool failed with');
    }
    return [];
  }

  private requireMaster(operation: string): PoolMaster {
    if (this.closed) throw this.error(ErrorCode.Closed, 'the pool is closed', operation, 'submit before close()');
    if (this.master === undefined) throw this.error(ErrorCode.Arg, `only the master (rank ${this.masterRank}) submits tasks`, operation, 'guard the submitting code with `if (pool.isMaster)`');
    return this.master;
  }

  private error(code: ErrorCodeValue, message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, message, { rank: this.comm.rank, operation: `TaskPool.${operation}`, hint });
  }
}
