/**
 * The centralized pool of seed 4 (docs/techniques.md §4): the master hands tasks out,
 * takes results as they come (the seed's Iprobe -> Recv -> Isend loop), computes tasks itself
 * between its polls, accepts new tasks while running, and stops the workers once the pool is
 * empty and every task has settled.
 *
 * Beyond the seed: a worker holds a few tasks ahead (dispatch.ts: enough to cover a round trip,
 * never more than its capacity-weighted half of what is left), results come back a batch at a
 * time, and a worker silent for `lostAfter` seconds while holding tasks is declared lost: its
 * tasks are queued again once (a second loss fails them with the task's id).
 */
import { ErrorCode } from '../errors.js';
import { tasksToSend, type DispatchOptions } from '../policy/balance/dispatch.js';
import type { PoolMaster } from './pool-master.js';
import { EventLoopTurns, PoolInbox, PoolTag, TaskRunner, type Arrival, type WireResults, type WireTask, type WorkerTotals, outcomeForWire } from './pool-wire.js';
import { TaskDeque } from './task-deque.js';
import type { Communicator } from '../comm/communicator.js';

export interface CentralOptions {
  readonly dispatch: DispatchOptions;
  /** Seconds without a word from a worker holding tasks before it is declared lost; 0: never. */
  readonly lostAfter: number;
}

interface WorkerView {
  readonly rank: number;
  readonly held: Set<number>;
  secondsPerTask: number | undefined;
  lastHeard: number;
  lost: boolean;
}

/** Runs the master until close() and the last task; returns each worker's totals (by rank; undefined for lost ones). */
export async function runCentralMaster(master: PoolMaster, inbox: PoolInbox, options: CentralOptions): Promise<(WorkerTotals | undefined)[]> {
  const comm = master.comm;
  // The rank's clock, in ms (virtual under the simulator).
  const nowMs = (): number => comm.clock.now() * 1000;
  const workers: WorkerView[] = [];
  for (let r = 0; r < comm.size; r++) if (r !== comm.rank) workers.push({ rank: r, held: new Set(), secondsPerTask: undefined, lastHeard: nowMs(), lost: false });
  const byRank = new Map(workers.map((w) => [w.rank, w]));
  const totals: (WorkerTotals | undefined)[] = new Array(comm.size).fill(undefined);
  const live = (): WorkerView[] => workers.filter((w) => !w.lost);
  const masterSpeed = { secondsPerTask: undefined as number | undefined };

  const handle = (arrival: Arrival): void => {
    const worker = byRank.get(arrival.source)!;
    worker.lastHeard = nowMs();
    if (arrival.tag !== PoolTag.Results) return;
    const results = arrival.value as WireResults;
    const done = results.outcomes.length;
    if (done > 0) {
      const perTask = results.seconds / done;
      worker.secondsPerTask = worker.secondsPerTask === undefined ? perTask : 0.5 * worker.secondsPerTask + 0.5 * perTask;
    }
    for (const outcome of results.outcomes) {
      // A lost worker's tasks were queued again: the retry is the run that counts.
      if (worker.lost) continue;
      worker.held.delete(outcome[0]);
      master.settle(outcome, worker.rank);
    }
  };

  const dispatch = (): void => {
    const alive = live();
    // While the master runs a task of its own it hands nothing out: keep every worker stocked for
    // longer than one of the master's tasks (the seed's master computes between its polls).
    const horizon = master.computes ? Math.max(options.dispatch.horizon, 1.5 * (masterSpeed.secondsPerTask ?? 0)) : options.dispatch.horizon;
    const dispatchOptions = { ...options.dispatch, horizon };
    // Tasks per second of every rank that computes, for the factoring share.
    let speedSum = 0;
    for (const w of alive) speedSum += 1 / (w.secondsPerTask ?? 1e-3);
    if (master.computes) speedSum += 1 / (masterSpeed.secondsPerTask ?? 1e-3);
    for (const w of alive) {
      const rate = 1 / (w.secondsPerTask ?? 1e-3);
      const count = tasksToSend(
        { secondsPerTask: w.secondsPerTask, share: rate / speedSum, queued: master.queue.length, inFlight: w.held.size, othersPerSecond: speedSum - rate, othersCount: alive.length - 1 + (master.computes ? 1 : 0) },
        dispatchOptions,
      );
      if (count === 0) continue;
      // The silence clock of a worker starts when it has something to answer for.
      if (w.held.size === 0) w.lastHeard = nowMs();
      const batch: WireTask[] = [];
      for (const record of master.queue.takeFront(count)) {
        record.holder = w.rank;
        record.attempts++;
        w.held.add(record.id);
        batch.push(master.wire(record));
      }
      comm.isend(batch, w.rank, PoolTag.Tasks);
    }
  };

  const notifyCancels = (): void => {
    if (master.cancelledOut.length === 0) return;
    const byHolder = new Map<number, number[]>();
    for (const record of master.cancelledOut.splice(0)) {
      const w = byRank.get(record.holder);
      if (w === undefined || !w.held.delete(record.id) || w.lost) continue;
      const list = byHolder.get(w.rank);
      if (list === undefined) byHolder.set(w.rank, [record.id]);
      else list.push(record.id);
    }
    for (const [rank, list] of byHolder) comm.isend(list, rank, PoolTag.Cancel);
  };

  const checkLost = (): void => {
    if (options.lostAfter <= 0) return;
    const now = nowMs();
    for (const w of workers) {
      if (w.lost || w.held.size === 0 || now - w.lastHeard < options.lostAfter * 1000) continue;
      w.lost = true;
      // Should it wake up, it skips what it holds and has not started: those run elsewhere now.
      comm.isend([...w.held], w.rank, PoolTag.Cancel);
      for (const id of w.held) {
        const record = master.records.get(id);
        if (record === undefined) continue;
        if (record.attempts >= 2) {
          master.fail(record, ErrorCode.Task, `rank ${w.rank}, which held it, was silent for ${options.lostAfter} s, and it was already retried once`, 'raise lostAfter if tasks can legitimately take this long');
        } else {
          record.holder = -1;
          master.queue.pushFront(record);
        }
      }
      w.held.clear();
    }
  };

  for (;;) {
    let progressed = false;
    for (let arrival = inbox.poll(); arrival !== undefined; arrival = inbox.poll()) {
      handle(arrival);
      progressed = true;
    }
    notifyCancels();
    checkLost();
    dispatch();
    if (master.finished) break;
    if (master.computes && master.queue.length > 0) {
      const before = master.runner.tasks;
      const started = nowMs();
      await master.computeFor(Math.max(options.dispatch.horizon / 4, 1e-4));
      const ran = master.runner.tasks - before;
      if (ran > 0) {
        const perTask = (nowMs() - started) / 1000 / ran;
        masterSpeed.secondsPerTask = masterSpeed.secondsPerTask === undefined ? perTask : 0.5 * masterSpeed.secondsPerTask + 0.5 * perTask;
      }
      continue;
    }
    if (progressed) continue;
    if (master.queue.length > 0 && live().length === 0) {
      // Nobody left to run them: the master must, whatever it was told.
      await master.computeFor(options.dispatch.horizon);
      continue;
    }
    const waits: Promise<unknown>[] = [inbox.ready(), master.kicked()];
    if (options.lostAfter > 0 && workers.some((w) => !w.lost && w.held.size > 0)) {
      waits.push(comm.sleep(Math.max(0.001, options.lostAfter / 4)));
    }
    await master.runner.idle(Promise.race(waits));
  }

  // Stop every worker still with us, then collect their totals.
  for (const w of workers) comm.isend(0, w.rank, PoolTag.Stop);
  let waiting = live().length;
  while (waiting > 0) {
    const arrival = inbox.poll();
    if (arrival === undefined) {
      await inbox.ready();
      continue;
    }
    if (arrival.tag === PoolTag.Final && !byRank.get(arrival.source)!.lost) {
      totals[arrival.source] = arrival.value as WorkerTotals;
      waiting--;
    }
  }
  return totals;
}

/** A worker of the centralized pool: runs what it is sent, sends results back, until told to stop. */
export async function runCentralWorker(comm: Communicator, inbox: PoolInbox, runner: TaskRunner, masterRank: number, dispatch: DispatchOptions): Promise<void> {
  const nowMs = (): number => comm.clock.now() * 1000;
  const deque = new TaskDeque<WireTask>();
  let stopped = false;
  let outcomes: WireResults['outcomes'] = [];
  let seconds = 0;
  const flushEvery = Math.max(dispatch.horizon / 2, 1e-4) * 1000;
  let lastFlush = nowMs();
  const turns = new EventLoopTurns(comm);

  const take = (arrival: Arrival): void => {
    if (arrival.tag === PoolTag.Tasks) for (const task of arrival.value as WireTask[]) deque.pushBack(task);
    else if (arrival.tag === PoolTag.Cancel) for (const id of arrival.value as number[]) runner.cancelled.add(id);
    else if (arrival.tag === PoolTag.Stop) stopped = true;
  };
  const drain = (): void => {
    for (let arrival = inbox.poll(); arrival !== undefined; arrival = inbox.poll()) take(arrival);
  };
  const flush = (): void => {
    if (outcomes.length > 0) comm.isend({ seconds, outcomes } satisfies WireResults, masterRank, PoolTag.Results);
    outcomes = [];
    seconds = 0;
    lastFlush = nowMs();
  };

  for (;;) {
    drain();
    if (deque.length === 0) {
      flush();
      if (stopped) break;
      await runner.idle(inbox.ready());
      continue;
    }
    while (deque.length > 0) {
      const task = deque.popFront()!;
      const started = nowMs();
      outcomes.push(outcomeForWire(await runner.run(task)));
      const now = nowMs();
      seconds += (now - started) / 1000;
      if (now - lastFlush >= flushEvery) flush();
      await turns.maybeYield();
      drain();
    }
  }
  await comm.send(runner.totals(), masterRank, PoolTag.Final);
}
