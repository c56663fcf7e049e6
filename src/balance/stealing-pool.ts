/**
 * The distributed successor of the centralized pool: the master deals each batch of new tasks
 * evenly over every rank's deque (itself included), and a rank that runs dry asks two random
 * victims at once; each gives half of its deque, from the tail (the owner runs from the head, so
 * thieves take the work it would reach last). The master still keeps the books: results go to
 * it, and it stops everyone once every task has settled. After a full round of failed steals a
 * rank sleeps (1 ms, doubling to 20 ms) or until a message comes, so idle ranks do not flood each
 * other on 2 cores.
 */
import type { Communicator } from '../comm/communicator.js';
import type { Rng } from '../rng.js';
import type { PoolMaster } from './pool-master.js';
import { EventLoopTurns, PoolInbox, PoolTag, TaskRunner, type Arrival, type WireOutcome, type WireResults, type WireTask, type WorkerTotals, outcomeForWire } from './pool-wire.js';
import { TaskDeque } from './task-deque.js';

export interface StealingOptions {
  /** Seconds of own work between two looks at the inbox. */
  readonly slice: number;
  readonly rng: Rng;
}

const PARK_FIRST_MS = 1;
const STEAL_FANOUT = 2;
const PARK_MAX_MS = 20;

/**
 * Runs one rank of a work-stealing pool until the master stops it. On the master (`master` given)
 * it also deals tasks and settles results, and returns each worker's totals by rank.
 */
export async function runStealingRank(
  comm: Communicator,
  inbox: PoolInbox,
  runner: TaskRunner,
  masterRank: number,
  options: StealingOptions,
  master?: PoolMaster,
): Promise<(WorkerTotals | undefined)[]> {
  // The rank's clock, in ms (virtual under the simulator).
  const nowMs = (): number => comm.clock.now() * 1000;
  const deque = new TaskDeque<WireTask>();
  const totals: (WorkerTotals | undefined)[] = new Array(comm.size).fill(undefined);
  /** Steal requests sent and not answered. */
  let stealsOut = 0;
  let failures = 0;
  let parkMs = PARK_FIRST_MS;
  let parkedUntil = 0;
  let stopped = false;
  let stopSent = false;
  let finals = 0;
  let dealAt = 0;
  let outcomes: WireOutcome[] = [];
  let seconds = 0;
  let lastFlush = nowMs();
  const sliceMs = options.slice * 1000;
  const turns = new EventLoopTurns(comm);

  const handle = (arrival: Arrival): void => {
    switch (arrival.tag) {
      case PoolTag.Tasks:
        for (const task of arrival.value as WireTask[]) deque.pushBack(task);
        failures = 0;
        parkMs = PARK_FIRST_MS;
        parkedUntil = 0;
        break;
      case PoolTag.Steal: {
        const give = Math.ceil(deque.length / 2);
        comm.isend(deque.takeBack(give), arrival.source, PoolTag.Loot);
        break;
      }
      case PoolTag.Loot: {
        stealsOut--;
        const loot = arrival.value as WireTask[];
        if (loot.length === 0) {
          failures++;
          break;
        }
        for (const task of loot) deque.pushBack(task);
        failures = 0;
        parkMs = PARK_FIRST_MS;
        break;
      }
      case PoolTag.Cancel:
        for (const id of arrival.value as number[]) runner.cancelled.add(id);
        break;
      case PoolTag.Stop:
        stopped = true;
        break;
      case PoolTag.Results:
        for (const outcome of (arrival.value as WireResults).outcomes) master?.settle(outcome, arrival.source);
        break;
      case PoolTag.Final:
        totals[arrival.source] = arrival.value as WorkerTotals;
        finals++;
        break;
    }
  };

  const flush = (): void => {
    if (outcomes.length > 0) comm.isend({ seconds, outcomes } satisfies WireResults, masterRank, PoolTag.Results);
    outcomes = [];
    seconds = 0;
    lastFlush = nowMs();
  };

  // The master's extra duties: deal new tasks in even blocks, pass cancellations on, stop at the end.
  const deal = (m: PoolMaster): void => {
    if (m.cancelledOut.length > 0) {
      // Where a dealt task is now (stolen or not) only its holder knows: every rank is told.
      const ids = m.cancelledOut.splice(0).map((record) => record.id);
      for (const id of ids) deque.removeFirst((t) => t[0] === id);
      for (let r = 0; r < comm.size; r++) if (r !== comm.rank) comm.isend(ids, r, PoolTag.Cancel);
    }
    const n = m.queue.length;
    if (n === 0) return;
    const ranks = m.computes || comm.size === 1 ? comm.size : comm.size - 1;
    const records = m.queue.takeFront(n);
    let next = 0;
    for (let k = 0; k < ranks; k++) {
      const count = Math.floor(n / ranks) + (k < n % ranks ? 1 : 0);
      if (count === 0) continue;
      let rank = (dealAt + k) % comm.size;
      if (!m.computes && comm.size > 1 && rank === comm.rank) rank = (rank + ranks) % comm.size;
      const block = records.slice(next, next + count).map((r) => {
        r.holder = rank;
        r.attempts++;
        return m.wire(r);
      });
      next += count;
      if (rank === comm.rank) for (const task of block) deque.pushBack(task);
      else comm.isend(block, rank, PoolTag.Tasks);
    }
    dealAt = (dealAt + n) % comm.size;
  };

  for (;;) {
    let progressed = false;
    for (let arrival = inbox.poll(); arrival !== undefined; arrival = inbox.poll()) {
      handle(arrival);
      progressed = true;
    }
    if (master !== undefined) {
      deal(master);
      if (master.finished && !stopSent) {
        for (let r = 0; r < comm.size; r++) if (r !== comm.rank) comm.isend(0, r, PoolTag.Stop);
        stopSent = true;
      }
      if (stopSent && finals === comm.size - 1) break;
    }
    if (deque.length > 0) {
      const until = nowMs() + sliceMs;
      do {
        const task = deque.popFront()!;
        const started = nowMs();
        const outcome = await runner.run(task);
        seconds += (nowMs() - started) / 1000;
        if (master !== undefined) master.settle(outcome, comm.rank);
        else outcomes.push(outcomeForWire(outcome));
      } while (deque.length > 0 && nowMs() < until);
      if (nowMs() - lastFlush >= sliceMs) flush();
      await turns.maybeYield();
      continue;
    }
    if (master === undefined) {
      flush();
      if (stopped) break;
    }
    if (progressed) continue;
    const now = nowMs();
    if (failures >= comm.size - 1 && stealsOut === 0 && parkedUntil === 0) {
      parkedUntil = now + parkMs;
      parkMs = Math.min(parkMs * 2, PARK_MAX_MS);
    }
    if (parkedUntil !== 0 && now >= parkedUntil) {
      parkedUntil = 0;
      failures = 0;
    }
    const steals = master === undefined || master.computes;
    if (steals && stealsOut === 0 && !stopSent && comm.size > 1 && parkedUntil === 0) {
      // Two victims at once: a victim answers only between its own tasks, so one slow victim
      // would keep the thief idle for a whole task of its own.
      for (const peer of options.rng.sample(comm.size - 1, Math.min(STEAL_FANOUT, comm.size - 1))) {
        comm.isend(0, peer >= comm.rank ? peer + 1 : peer, PoolTag.Steal);
        stealsOut++;
      }
    }
    const waits: Promise<unknown>[] = [inbox.ready()];
    if (master !== undefined) waits.push(master.kicked());
    if (parkedUntil !== 0) waits.push(comm.sleep(Math.max(1, parkedUntil - now) / 1000));
    await runner.idle(Promise.race(waits));
  }
  if (master === undefined) await comm.send(runner.totals(), masterRank, PoolTag.Final);
  return totals;
}
