// The task pool (seed 4 and its work-stealing successor) on real ranks: every task runs exactly
// once and every result arrives (in order from map, as completed from asCompleted), with 0 tasks,
// fewer tasks than ranks, tasks added while running, handler errors carrying the task id,
// cancellation of queued tasks, a master that does not compute, and a worker gone silent whose
// task runs again exactly once. Threads, one process per rank (TCP), and the pi example.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { explain, runFixture, tsmpi } from '../helpers/run-job.ts';

interface Report {
  case: string;
  mode: string;
  ok: boolean;
  tasksByRank: (number | null)[];
  retried: number[];
  failed?: number;
  submitted?: number;
}

async function runCase(name: string, mode: string, np: number, launch: string[] = []): Promise<Report> {
  const result = await tsmpi(['run', '-n', String(np), ...launch, 'test/fixtures/pool-suite.ts', name, mode], { timeoutMs: 90_000 });
  assert.equal(result.code, 0, explain(result));
  const line = result.stdout.trim().split('\n').find((l) => l.startsWith('{'));
  assert.ok(line, explain(result));
  const report = JSON.parse(line) as Report;
  assert.equal(report.ok, true);
  return report;
}

const sum = (counts: (number | null)[]): number => counts.reduce<number>((a, b) => a + (b ?? 0), 0);

for (const mode of ['central', 'stealing']) {
  describe(`task pool, ${mode}, 4 ranks on threads`, () => {
    test('500 tasks: each runs once, results in order, every rank took part', async () => {
      const r = await runCase('once', mode, 4);
      assert.equal(sum(r.tasksByRank), 500);
      assert.ok(r.tasksByRank.every((n) => (n ?? 0) > 0), JSON.stringify(r.tasksByRank));
    });
    test('no tasks at all: the pool opens and closes', async () => {
      assert.deepStrictEqual((await runCase('empty', mode, 4)).tasksByRank, [0, 0, 0, 0]);
    });
    test('fewer tasks than ranks', async () => {
      assert.equal(sum((await runCase('fewer', mode, 4)).tasksByRank), 2);
    });
    test('tasks submitted while others run (asCompleted drives a second wave)', async () => {
      const r = await runCase('growing', mode, 4);
      assert.equal(r.submitted, 60);
      assert.equal(sum(r.tasksByRank), 60);
    });
    test('a throwing handler rejects only its own task, with its id and the cause', async () => {
      const r = await runCase('errors', mode, 4);
      assert.equal(r.failed, 9); // ids 3, 10, ..., 59
      assert.equal(sum(r.tasksByRank), 60);
    });
    test('what a handler throws is the cause, whichever rank ran it: Error classes with their fields, objects, strings (issue 22)', async () => {
      const r = (await runCase('thrown', mode, 4)) as Report & { ranTasks: number[] };
      assert.ok(r.ranTasks.length >= 2 && r.ranTasks.includes(0), `the master and workers ran them: ${JSON.stringify(r.ranTasks)}`);
    });
    test('one AbortSignal shared by 30 submits: one listener, no MaxListenersExceededWarning (issue 22)', async () => {
      const result = await tsmpi(['run', '-n', '3', 'test/fixtures/pool-suite.ts', 'signal', mode], { timeoutMs: 60_000 });
      assert.equal(result.code, 0, explain(result));
      assert.doesNotMatch(result.stderr, /MaxListenersExceeded/, explain(result));
      assert.match(result.stdout, /"ok":true/, explain(result));
    });
    test('asCompleted yields every task once, as it settles: values, errors and cancellations (issue 12)', async () => {
      const r = (await runCase('settled', mode, 4)) as Report & { statuses: number[]; lateCancel: boolean };
      // 40 tasks: 30-34 cancelled first; of the rest, 3, 10, 17, 24, 38 throw (x % 7 === 3).
      const [fulfilled, rejected, cancelled] = r.statuses;
      assert.equal(rejected, 5);
      assert.equal(cancelled, 5 + (r.lateCancel ? 1 : 0));
      assert.equal(fulfilled! + rejected! + cancelled!, 40);
    });
    test('cancelled queued tasks never run; the rest do', async () => {
      assert.equal(sum((await runCase('cancel', mode, 4)).tasksByRank), 50);
    });
    test('masterComputes: false leaves the master out', async () => {
      const r = await runCase('nomaster', mode, 4);
      assert.equal(r.tasksByRank[0], 0);
      assert.equal(sum(r.tasksByRank), 50);
    });
    test('a worker cannot submit', async () => {
      await runCase('worker-submit', mode, 3);
    });
  });
}

describe('task pool, central', () => {
  test('a worker silent past lostAfter: its task runs again elsewhere, exactly once more', async () => {
    const r = await runCase('lost', 'central', 4);
    assert.equal(r.tasksByRank[2], null);
    assert.equal(r.retried.length, 1);
  });
  test('handler names must agree: every rank fails, naming the odd one', async () => {
    const result = await runFixture('pool-mismatch.ts', 3);
    assert.notEqual(result.code, 0);
    assert.doesNotMatch(result.stdout, /opened/);
    assert.match(result.stderr, /TaskPool\.open: rank 1 registered handlers \[cube, square\] but the master \(rank 0\) registered \[square\]/);
  });
});

describe('task pool across processes (TCP)', () => {
  for (const mode of ['central', 'stealing']) {
    test(`${mode}: exactly once, growing, cancel with one process per rank`, async () => {
      assert.equal(sum((await runCase('once', mode, 4, ['--procs'])).tasksByRank), 500);
      assert.equal(sum((await runCase('growing', mode, 3, ['--procs'])).tasksByRank), 60);
      assert.equal(sum((await runCase('cancel', mode, 3, ['--procs'])).tasksByRank), 50);
    });
  }
  test('central: a silent worker process', async () => {
    const r = await runCase('lost', 'central', 4, ['--procs']);
    assert.equal(r.tasksByRank[2], null);
  });
});

describe('examples/pi.ts --pool', () => {
  for (const [mode, launch] of [['central', []], ['stealing', []], ['central', ['--procs']], ['stealing', ['--procs']]] as const) {
    test(`${mode} ${launch.join(' ') || 'threads'}: pi to 1e-9 and each rank's task count`, async () => {
      const result = await tsmpi(['run', '-n', '4', ...launch, 'examples/pi.ts', '--pool', '2000000', '100'], { env: { TSMPI_POOL: mode } });
      assert.equal(result.code, 0, explain(result));
      const pi = /pi is approximately (\d\.\d+)/.exec(result.stdout);
      assert.ok(pi && Math.abs(Number(pi[1]) - Math.PI) < 1e-9, explain(result));
      const counts = new RegExp(`tasks per rank \\(${mode}\\): rank 0: (\\d+), rank 1: (\\d+), rank 2: (\\d+), rank 3: (\\d+)`).exec(result.stdout);
      assert.ok(counts, explain(result));
      assert.equal(counts.slice(1).reduce((a, b) => a + Number(b), 0), 100);
    });
  }
});
