// bcastInto calls (and bcast calls, when TSMPI_COLL_BCAST=shared) on a world of more than 2 ranks
// that are all threads of one process go through the process's broadcast slots (shared-bcast.ts): no messages in the timeline, the binomial tree's
// messages when forced or across processes; a hang in one names its root. The results are
// checked by the collectives suite (cco-suite.test.ts), runs longer than the slots included.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

test('bcastInto on a world of threads sends no message, nor bcast when forced; forced binomial, 2 ranks and 2 processes send the tree\'s', { timeout: 120_000 }, async () => {
  const flows = async (args: string[], env: Record<string, string>): Promise<number> => {
    const file = join(tmpdir(), `tsmpi-bcast-${process.pid}-${args.join('')}-${Object.values(env).join('-')}.json`);
    try {
      const r = await tsmpi(['run', ...args, '--trace', file, fixture('bcasts-only.ts')], { env, timeoutMs: 80_000 });
      assert.equal(r.code, 0, explain(r));
      const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: { ph: string; name: string }[] };
      const ranks = Number(args[args.indexOf('-n') + 1]);
      assert.equal(trace.traceEvents.filter((e) => e.ph === 'X' && e.name === 'bcastInto').length, 5 * ranks);
      assert.equal(trace.traceEvents.filter((e) => e.ph === 'X' && e.name === 'bcast').length, 5 * ranks);
      return trace.traceEvents.filter((e) => e.ph === 's').length;
    } finally {
      rmSync(file, { force: true });
    }
  };
  // 4 ranks: bcastInto through the slots, bcast of a value in the tree (3 messages each) unless forced.
  assert.equal(await flows(['-n', '4'], {}), 15);
  assert.equal(await flows(['-n', '4'], { TSMPI_COLL_BCAST: 'shared' }), 0);
  assert.equal(await flows(['-n', '4'], { TSMPI_COLL_BCAST: 'binomial' }), 30);
  assert.equal(await flows(['-n', '2'], {}), 10);
  assert.equal(await flows(['-n', '4', '--ranks-per-proc', '2'], { TSMPI_COLL_BCAST: 'shared' }), 30);
});

test('a hang in a shared broadcast names its root', { timeout: 60_000 }, async () => {
  // Ranks 0 and 1 deadlock in receives; 2 and 3 wait for rank 0's broadcast.
  const r = await tsmpi(['run', '-n', '4', '--hang-timeout', '1', fixture('deadlock.ts'), 'bcast'], { timeoutMs: 50_000 });
  assert.equal(r.code, 124, explain(r));
  assert.match(r.stderr, /rank 2: waiting in bcastInto from rank 0 on world\n/);
  assert.match(r.stderr, /rank 3: waiting in bcastInto from rank 0 on world\n/);
});

test('a shared broadcast whose root ended fails on the readers, naming the root, as the tree does', { timeout: 60_000 }, async () => {
  for (const env of [{}, { TSMPI_COLL_BCAST: 'binomial' }] as Record<string, string>[]) {
    const r = await tsmpi(['run', '-n', '4', fixture('bcast-root-ended.ts')], { env, timeoutMs: 50_000 });
    assert.equal(r.code, 1, explain(r));
    assert.match(r.stderr, /rank [123], bcastInto: bcastInto from rank 0 on world: world rank 0 exited \(code 0\), so this can never complete/, explain(r));
    assert.doesNotMatch(r.stdout, /rank [123] done/, explain(r));
  }
});

test('ranks that share a thread broadcast through the slots too: bcastInto and forced bcast pass the suite\'s checks', { timeout: 180_000 }, async () => {
  // Runs longer than the slots, where a root waits for readers that run only when it yields the
  // thread. (The lost wake-up found there delayed, but did not break, them: the engine's own test,
  // test/unit/progress-sleep.test.ts, catches it.)
  for (const [check, env] of [
    ['bcastInto', { TSMPI_RANKS_PER_THREAD: '2' }],
    ['bcast', { TSMPI_RANKS_PER_THREAD: '4', TSMPI_COLL_BCAST: 'shared' }],
  ] as [string, Record<string, string>][]) {
    const r = await tsmpi(['run', '-n', '8', fixture('cco-suite.ts'), check], { env, timeoutMs: 150_000 });
    assert.equal(r.code, 0, explain(r));
    assert.equal(r.stdout.split('\n').filter((line) => line.startsWith(`cco ok ${check} `)).length, 4, explain(r));
  }
});

for (const late of ['readers-late', 'root-late']) {
  test(`a shared bcastInto whose reader's buffer is the wrong length fails there alone, and the next ones pair up (${late})`, { timeout: 60_000 }, async () => {
    const r = await tsmpi(['run', '-n', '3', fixture('bcast-lengths.ts'), late], { timeoutMs: 50_000 });
    assert.equal(r.code, 0, explain(r));
    const lines = new Map(r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number; lines: string[] }).map((j) => [j.rank, j.lines]));
    const fine = (label: string): string => `${label}: 8 bytes of ${label.length}`;
    assert.deepEqual(lines.get(0), [fine('even'), fine('long'), fine('shorter'), fine('after')], explain(r));
    assert.deepEqual(lines.get(1), [fine('even'), fine('long'), 'shorter: TSMPI_ERR_TRUNCATE rank 1, bcastInto: the 8-byte broadcast of rank 0 does not fit the 4-byte buffer (hint: pass buffers of the same byte length on every rank of a bcastInto)', fine('after')], explain(r));
    assert.deepEqual(lines.get(2), [fine('even'), 'long: TSMPI_ERR_COUNT rank 2, bcastInto: the 8-byte broadcast of rank 0 does not fill the 16-byte buffer (hint: pass buffers of the same byte length on every rank of a bcastInto)', fine('shorter'), fine('after')], explain(r));
  });
}
