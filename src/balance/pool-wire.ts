/**
 * What the ranks of a task pool say to each other, on the pool's private communicator, and the
 * two pieces every rank of a pool uses: the inbox (one receive always posted, so messages are
 * taken between tasks without blocking) and the task runner (runs a task by its handler's index,
 * times it, turns a throw into an error record).
 */
import type { RankTrace } from '../trace/rank-trace.js';
import { thrownToWire } from './thrown.js';
import type { Clock } from '../clock.js';
import type { Communicator } from '../comm/communicator.js';
import { ANY_SOURCE, ANY_TAG } from '../comm/communicator.js';
import type { Request } from '../comm/request.js';

/** Message tags on the pool's communicator. */
export const PoolTag = {
  /** master -> worker: WireTask[] to run (central), or dealt to the worker's deque (stealing). */
  Tasks: 1,
  /** worker -> master: WireResults. */
  Results: 2,
  /** master -> worker: task ids to skip if not started. */
  Cancel: 3,
  /** master -> worker: every task is done; answer with Final and leave. */
  Stop: 4,
  /** worker -> master: WorkerTotals, the last message of a worker. */
  Final: 5,
  /** thief -> victim: give me work (stealing). */
  Steal: 6,
  /** victim -> thief: WireTask[] from the tail of the victim's deque, maybe empty (stealing). */
  Loot: 7,
} as const;

/** A task on the wire: [id, handler index, argument]. */
export type WireTask = [id: number, handler: number, arg: unknown];

/**
 * The outcome of one task: [id, 0, value] done, [id, 1, thrown] threw (what the handler threw;
 * in its wire form, thrown.ts, once it crosses ranks), [id, 2] skipped (cancelled).
 */
export type WireOutcome = [id: number, kind: 0, value: unknown] | [id: number, kind: 1, thrown: unknown] | [id: number, kind: 2];

/** An outcome ready to cross ranks: a thrown value in its wire form. */
export function outcomeForWire(outcome: WireOutcome): WireOutcome {
  return outcome[1] === 1 ? [outcome[0], 1, thrownToWire(outcome[2])] : outcome;
}

/** A batch of outcomes and the seconds the worker spent running them. */
export interface WireResults {
  readonly seconds: number;
  readonly outcomes: WireOutcome[];
}

/** What a worker did over the pool's life. */
export interface WorkerTotals {
  readonly tasks: number;
  readonly busySeconds: number;
  /** Seconds spent waiting with nothing to run. */
  readonly idleSeconds: number;
}

/** What a task handler gets besides its argument. */
export interface TaskContext {
  /** The task's id (the same one its handle and its errors carry). */
  readonly id: number;
  /** The rank running it, in the pool's communicator. */
  readonly rank: number;
}

// The handler signature: `arg: never` so that any one-argument function fits (parameters are contravariant).
export type TaskHandler = (arg: never, context: TaskContext) => unknown;

/**
 * Lets other work run: socket data (TCP peers) and timers are only handled in the event loop, and
 * a loop of synchronous handlers awaiting each other never gets back to it on its own (under the
 * simulator: the other ranks). Two turns: a turn taken from inside a task may run before the
 * loop's next poll for I/O.
 */
export async function yieldTurns(comm: Communicator): Promise<void> {
  await comm.sleep(0);
  await comm.sleep(0);
}

/** Seconds of tasks between two trips through the event loop (each costs ~0.1 ms with 8 ranks on 2 cores). */
const YIELD_EVERY = 0.004;

/** Yields (see yieldTurns) when YIELD_EVERY seconds of the rank's clock have passed since it last did. */
export class EventLoopTurns {
  private readonly comm: Communicator;
  private last: number;

  constructor(comm: Communicator) {
    this.comm = comm;
    this.last = comm.clock.now();
  }

  async maybeYield(): Promise<void> {
    if (this.comm.clock.now() - this.last < YIELD_EVERY) return;
    await yieldTurns(this.comm);
    this.last = this.comm.clock.now();
  }
}

export interface Arrival {
  readonly source: number;
  readonly tag: number;
  readonly value: unknown;
}

/** One posted receive for any source and tag, reposted after each arrival. */
export class PoolInbox {
  private posted: Request<unknown> | undefined;
  private waiting: Promise<unknown> | undefined;
  private closed = false;

  constructor(private readonly comm: Communicator) {
    this.posted = comm.irecv(ANY_SOURCE, ANY_TAG);
  }

  /** The next message if one has arrived (makes progress once); never blocks. */
  poll(): Arrival | undefined {
    const request = this.posted;
    if (request === undefined || !request.test()) return undefined;
    return this.take(request);
  }

  /** Resolves when a message is there to poll (or at once when one already is). */
  ready(): Promise<unknown> {
    if (this.posted === undefined) return new Promise(() => {});
    this.waiting ??= this.posted.wait().catch(() => undefined);
    return this.waiting;
  }

  /** Withdraws the posted receive (the pool is over for this rank). */
  close(): void {
    this.closed = true;
    this.posted?.cancel();
    this.posted = undefined;
  }

  private take(request: Request<unknown>): Arrival {
    this.waiting = undefined;
    this.posted = this.closed ? undefined : this.comm.irecv(ANY_SOURCE, ANY_TAG);
    // A failed receive (transport error, abort) has no status: its error goes to the pool's loop.
    const status = request.status;
    if (status === undefined) throw request.error;
    return { source: status.source, tag: status.tag, value: request.result };
  }
}

/** Runs tasks by handler index and turns each into an outcome. */
export class TaskRunner {
  tasks = 0;
  busySeconds = 0;
  idleSeconds = 0;
  readonly cancelled = new Set<number>();

  /** `clock`: the rank's (busy and idle seconds are its time, virtual under the simulator). */
  constructor(
    private readonly handlers: readonly TaskHandler[],
    private readonly rank: number,
    private readonly clock: Clock,
    /** Handler names (by index), and the rank's timeline recorder when it traces: a slice per task. */
    private readonly names: readonly string[] = [],
    private readonly tracer: RankTrace | undefined = undefined,
  ) {}

  /** Waits for `event` with nothing to run, counting the time as idle. */
  async idle(event: Promise<unknown>): Promise<void> {
    const started = this.clock.now();
    await event;
    this.idleSeconds += this.clock.now() - started;
  }

  /** What this rank did, for the pool's statistics. */
  totals(): WorkerTotals {
    return { tasks: this.tasks, busySeconds: this.busySeconds, idleSeconds: this.idleSeconds };
  }

  async run(task: WireTask): Promise<WireOutcome> {
    const [id, index, arg] = task;
    if (this.cancelled.delete(id)) return [id, 2];
    const started = this.clock.now();
    const slice = this.tracer?.begin(`task ${this.names[index] ?? index}`, 'pool', -1, id) ?? 0;
    try {
      let value = this.handlers[index]!(arg as never, { id, rank: this.rank });
      if (value instanceof Promise) value = await value;
      return [id, 0, value];
    } catch (thrown) {
      return [id, 1, thrown];
    } finally {
      this.tasks++;
      this.busySeconds += this.clock.now() - started;
      this.tracer?.end(slice);
    }
  }
}
