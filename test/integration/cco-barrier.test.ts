// The barrier: no rank leaves before every rank arrived, over rounds of random arrival delays,
// with barriers started together and an ibarrier beside a barrier; in every launch mode and with
// each algorithm. Ranks of one process share a counter instead of sending messages (the shared
// barrier): a timeline of barriers alone shows no message there, and messages with the
// dissemination barrier (below TSMPI_SHARED_BARRIER_RANKS ranks, or forced).
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const cases: { name: string; args: string[]; env?: Record<string, string> }[] = [
  { name: 'threads, 16 ranks (the default: shared up to 4 cores)', args: ['-n', '16'] },
  { name: 'threads, shared forced', args: ['-n', '8'], env: { TSMPI_COLL_BARRIER: 'shared' } },
  { name: 'threads, dissemination forced', args: ['-n', '8'], env: { TSMPI_COLL_BARRIER: 'dissemination' } },
  { name: 'threads, linear forced', args: ['-n', '5'], env: { TSMPI_COLL_BARRIER: 'linear' } },
  { name: 'two ranks per thread, shared forced', args: ['-n', '8'], env: { TSMPI_RANKS_PER_THREAD: '2', TSMPI_COLL_BARRIER: 'shared' } },
  { name: 'one rank', args: ['-n', '1'] },
  { name: 'two processes of 3 ranks (shared barrier asked, messages used)', args: ['--ranks-per-proc', '3', '-n', '6'], env: { TSMPI_COLL_BARRIER: 'shared' } },
];

for (const c of cases) {
  test(`no rank leaves a barrier before every rank arrived: ${c.name}`, { timeout: 120_000 }, async () => {
    const r = await tsmpi(['run', ...c.args, fixture('barrier-order.ts'), '30'], { ...(c.env ? { env: c.env } : {}), timeoutMs: 100_000 });
    assert.equal(r.code, 0, explain(r));
    assert.match(r.stdout, /barrier order: 30 rounds on \d+ ranks, 0 left early/, explain(r));
  });
}

test('ranks of one process meet in a barrier without messages from TSMPI_SHARED_BARRIER_RANKS on; the dissemination barrier sends them', { timeout: 90_000 }, async () => {
  const flows = async (ranks: number, env: Record<string, string>): Promise<number> => {
    const file = join(tmpdir(), `tsmpi-barrier-${process.pid}-${ranks}-${Object.values(env).join('-')}.json`);
    try {
      const r = await tsmpi(['run', '-n', String(ranks), '--trace', file, fixture('barriers-only.ts')], { env, timeoutMs: 80_000 });
      assert.equal(r.code, 0, explain(r));
      const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: { ph: string; name: string }[] };
      assert.equal(trace.traceEvents.filter((e) => e.ph === 'X' && e.name === 'barrier').length, 5 * ranks);
      return trace.traceEvents.filter((e) => e.ph === 's').length;
    } finally {
      rmSync(file, { force: true });
    }
  };
  // 4 ranks below the threshold: messages, 2 rounds of 4 per barrier.
  assert.equal(await flows(4, { TSMPI_SHARED_BARRIER_RANKS: '5' }), 40);
  assert.equal(await flows(4, { TSMPI_SHARED_BARRIER_RANKS: '4' }), 0);
  assert.equal(await flows(4, { TSMPI_COLL_BARRIER: 'shared' }), 0);
  assert.equal(await flows(4, { TSMPI_COLL_BARRIER: 'dissemination', TSMPI_SHARED_BARRIER_RANKS: '4' }), 40);
});

test('a hang in the shared barrier names a rank that has not arrived', { timeout: 60_000 }, async () => {
  // Ranks 0 and 1 deadlock in receives; 2 and 3 wait in the barrier for them.
  const r = await tsmpi(['run', '-n', '4', '--hang-timeout', '1', fixture('deadlock.ts')], { env: { TSMPI_COLL_BARRIER: 'shared' }, timeoutMs: 50_000 });
  assert.equal(r.code, 124, explain(r));
  assert.match(r.stderr, /rank 2: waiting in barrier from rank [01] on world\n/);
  assert.match(r.stderr, /rank 3: waiting in barrier from rank [01] on world\n/);
});
