// No lost wake-ups: ranks that always sleep (TSMPI_SPIN_US=0), with the sleep safety net turned
// off (TSMPI_SLEEP_MAX_MS huge), finish hundreds of barriers, allreduces and first contacts. A lost
// wake-up would hang and the hang timeout would end the job with 124.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

for (const np of [2, 5, 8]) {
  test(`no lost wake-ups on ${np} sleeping ranks`, { timeout: 120_000 }, async () => {
    const result = await tsmpi(['run', '-n', String(np), '--hang-timeout', '10', fixture('wakeups.ts'), '200'], {
      env: { TSMPI_SPIN_US: '0', TSMPI_SLEEP_MAX_MS: '3600000' },
      timeoutMs: 100_000,
    });
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /wakeups ok 200/);
  });
}

test('spinning ranks (the fast path) and oversubscribed ranks agree', { timeout: 120_000 }, async () => {
  const result = await tsmpi(['run', '-n', '3', fixture('wakeups.ts'), '100'], { env: { TSMPI_SPIN_US: '50' } });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /wakeups ok 100/);
});

for (const flags of [[], ['--procs']]) {
  test(`a message to self wakes a rank whose waits sleep (${flags.length === 0 ? 'threads' : '--procs'})`, { timeout: 120_000 }, async () => {
    const result = await tsmpi(['run', '-n', '2', ...flags, '--hang-timeout', '10', fixture('self-while-asleep.ts'), '20'], {
      env: { TSMPI_SPIN_US: '0', TSMPI_SLEEP_MAX_MS: '3600000' },
      timeoutMs: 100_000,
    });
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /self while asleep ok 20/);
  });
}

test('a conveyor over --procs closes without waiting for the sleep safety net', { timeout: 120_000 }, async () => {
  // Its buffers to the rank itself went through the self link while the rank slept on sockets.
  const result = await tsmpi(['run', '-n', '2', '--procs', '--hang-timeout', '10', 'examples/exchange.ts', '20000'], {
    env: { TSMPI_SLEEP_MAX_MS: '3600000' },
    timeoutMs: 100_000,
  });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /conveyor: 2 ranks, 40000 items, histogram ok/);
});

test('ranks that yield between polls finish thousands of allreduces: a wait that starts as a wait loop ends gets a loop of its own', { timeout: 180_000 }, async () => {
  // 8 rank threads yield on a 2-core machine by default; TSMPI_YIELD_US makes them yield anywhere.
  const result = await tsmpi(['run', '-n', '8', '--hang-timeout', '20', fixture('yield-allreduces.ts'), '4000'], {
    env: { TSMPI_YIELD_US: '2000' },
    timeoutMs: 160_000,
  });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /yield allreduces ok 4000/);
});
