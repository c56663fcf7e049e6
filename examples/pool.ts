/**
 * A task pool with tasks of uneven cost, a task that fails and a task that is cancelled.
 *
 *   npx tsmpi run -n 4 examples/pool.ts [N] [tasks]          (default 2000000 64)
 *   TSMPI_POOL=stealing npx tsmpi run -n 4 examples/pool.ts    (work stealing instead of master-worker)
 *
 * Counts the primes below N by trial division, in `tasks` equal ranges: later ranges cost more
 * (bigger numbers need more divisions), so a static split would leave the first ranks idle.
 * Rank 0 submits every range with `pool.submit`, then:
 * - one task gets a reversed range on purpose: its handler throws a RangeError, the task is
 *   reported as 'rejected' and the loop carries on;
 * - one task is cancelled before the loop: it is reported as 'cancelled' and never runs.
 * `pool.asCompleted` yields every task as it settles, whatever its outcome. Afterwards the master
 * resubmits the two missing ranges (fixed), so the count is exact. Every rank calls `pool.close()`.
 */
import { init, TaskPool, wtime, type TaskHandle } from 'tsmpi';

const comm = await init();
const start = wtime();
const N = Number(process.argv[2] ?? 2_000_000);
const taskCount = Number(process.argv[3] ?? 64);
if (!(Number.isSafeInteger(N) && N >= 0 && Number.isInteger(taskCount) && taskCount >= 2)) {
  throw new RangeError(`usage: pool.ts [N >= 0] [tasks >= 2]; got ${process.argv.slice(2).join(' ')}`);
}

interface Range {
  lo: number;
  hi: number;
}

/** The primes in [lo, hi), by trial division with odd divisors up to the square root. */
function countPrimes({ lo, hi }: Range): number {
  if (!(Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && 0 <= lo && lo <= hi)) throw new RangeError(`bad range [${lo}, ${hi})`);
  let count = 0;
  for (let n = Math.max(lo, 2); n < hi; n++) {
    if (n % 2 === 0) {
      if (n === 2) count++;
      continue;
    }
    let prime = true;
    for (let d = 3; d * d <= n; d += 2) {
      if (n % d === 0) {
        prime = false;
        break;
      }
    }
    if (prime) count++;
  }
  return count;
}

// Every rank opens the pool with the same handlers (functions do not travel, names do).
const pool = await TaskPool.open(comm, { countPrimes });

if (pool.isMaster) {
  const width = Math.ceil(N / taskCount);
  const ranges: Range[] = Array.from({ length: taskCount }, (_, k) => ({ lo: Math.min(N, k * width), hi: Math.min(N, (k + 1) * width) }));
  const BAD = 13 % taskCount;
  const CANCELLED = (BAD + Math.ceil(taskCount / 2)) % taskCount;

  const handles: TaskHandle<number>[] = ranges.map((range, k) =>
    // The deliberate mistake: task BAD gets its range reversed (unless it is empty).
    pool.submit('countPrimes', k === BAD && range.hi > range.lo ? { lo: range.hi, hi: range.lo } : range),
  );
  // Tasks are handed out from the event loop, so nothing has started yet: this one never runs.
  handles[CANCELLED]!.cancel();

  let primes = 0;
  let done = 0;
  const failed: string[] = [];
  const cancelled: number[] = [];
  const redo: number[] = [];
  for await (const task of pool.asCompleted(handles)) {
    if (task.status === 'fulfilled') {
      primes += task.value;
      done++;
    } else if (task.status === 'rejected') {
      // task.error is a TaskError; its cause is the handler's own error (name and message kept).
      const error = task.error;
      const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : error.message;
      failed.push(`task ${task.id}: ${cause}`);
      redo.push(task.id);
    } else {
      cancelled.push(task.id);
      redo.push(task.id);
    }
  }
  // Task ids are submission order, so handle k computed ranges[k]: run the missing ones again.
  redo.sort((a, b) => a - b);
  const again = await Promise.all(redo.map((id) => pool.submit('countPrimes', ranges[id]!)));
  primes += again.reduce((a, b) => a + b, 0);

  console.log(
    `pool: ${taskCount} tasks, ${done} done, ${failed.length} failed (${failed.join('; ')}), ${cancelled.length} cancelled (${cancelled.map((id) => `task ${id}`).join(', ')}), ${redo.length} resubmitted; primes below ${N}: ${primes}`,
  );
}

const stats = await pool.close(); // every rank: the master waits for its tasks, workers stop serving
if (pool.isMaster) {
  // Which rank ran how many depends on timing and load: not a deterministic line.
  const perRank = stats.tasksByRank.map((n, r) => `rank ${r}: ${n ?? 'lost'} (${(stats.busySecondsByRank[r] ?? 0).toFixed(3)} s)`).join(', ');
  console.log(`pool tasks per rank (${stats.mode}): ${perRank}`);
  // The master's span (virtual under tsmpi sim): what `npm run bench -- predict` compares.
  console.log(`pool time: ${(wtime() - start).toFixed(3)} s`);
}
