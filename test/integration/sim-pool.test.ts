// Issue 22: a TaskPool program under `tsmpi sim` costs what its tasks take and ends as a real run
// does: declared compute, a handler that waits on its own timer (setTimeout runs in the rank's
// virtual clock), or a CPU loop; one rank included (the master runs every task, and polls between
// them cost what a poll costs, not a spinning loop's growing price).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

interface PoolRun {
  span: number;
  tasks: number[];
  busy: number[];
}

async function pool(np: number, kind: string, extra: string[] = []): Promise<PoolRun> {
  const result = await tsmpi(['sim', '--quiet', ...extra, '-n', String(np), fixture('pool-sim.ts'), kind, '100', '10'], { timeoutMs: 60_000 });
  assert.equal(result.code, 0, explain(result));
  return JSON.parse(result.stdout.split('\n').find((l) => l.startsWith('{'))!) as PoolRun;
}

for (const kind of ['compute', 'timer']) {
  test(`a pool of 100 tasks of 10 ms (${kind}) takes 1 s of virtual time over the ranks, as it does for real`, { timeout: 120_000 }, async () => {
    for (const np of [1, 2, 4]) {
      // Declared compute: the virtual times are exact, so the figures are too.
      const run = await pool(np, kind, ['--compute', 'declared']);
      assert.equal(run.tasks.reduce((a, b) => a + b, 0), 100);
      for (const [rank, tasks] of run.tasks.entries()) {
        assert.ok(Math.abs(tasks - 100 / np) <= 2, `${np} ranks: rank ${rank} ran ${tasks} tasks`);
        assert.ok(Math.abs(run.busy[rank]! - tasks * 0.01) < 1e-9, `${np} ranks: rank ${rank} busy ${run.busy[rank]} for ${tasks} tasks`);
      }
      // The slowest rank's tasks, plus what polls, messages and the start cost: a few percent.
      const ideal = Math.max(...run.tasks) * 0.01;
      assert.ok(run.span >= ideal && run.span < ideal * 1.05, `${np} ranks: span ${run.span} s for ${ideal} s of tasks`);
    }
  });
}

test('a pool of CPU-bound tasks is charged their measured time', { timeout: 120_000 }, async () => {
  for (const np of [1, 2]) {
    const run = await pool(np, 'spin');
    for (const [rank, tasks] of run.tasks.entries()) assert.ok(run.busy[rank]! >= tasks * 0.01, `rank ${rank}: busy ${run.busy[rank]} for ${tasks} tasks of 10 ms`);
    assert.ok(run.span >= (100 * 0.01) / np, `${np} ranks: span ${run.span}`);
  }
});

test("a program's own setTimeout and setInterval wait in virtual time; clearTimeout cancels", { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '--quiet', '--compute', 'declared', '-n', '2', fixture('sim-timers.ts')], { timeoutMs: 60_000 });
  assert.equal(result.code, 0, explain(result));
  const lines = result.stdout.split('\n').filter((l) => l.startsWith('timers ')).sort();
  // 0.25 s, then ticks at 0.35, 0.45 and 0.55; the barrier after costs no virtual time here.
  assert.deepEqual(lines, ['timers rank 0: timeout at 0.25, 3 ticks by 0.55, cancelled never fired, done at 0.55', 'timers rank 1: timeout at 0.25, 3 ticks by 0.55, cancelled never fired, done at 0.55'], explain(result));
});
