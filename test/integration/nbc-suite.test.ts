// Nonblocking collectives (test/fixtures/nbc-suite.ts) on threads, processes, both, and the
// simulator: each i-form against its blocking twin, several in flight, progress by test() alone
// while computing (threads: no await in the loop), progress of a rank blocked in a receive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, runFixture, tsmpi } from '../helpers/run-job.ts';

const CHECKS = 5;
const COMMUNICATORS = 4;
const okLines = (stdout: string): number => stdout.split('\n').filter((line) => line.startsWith('nbc ok ')).length;

for (const np of [1, 2, 3, 4, 7]) {
  test(`nonblocking collectives on ${np} thread rank${np > 1 ? 's' : ''}`, { timeout: 300_000 }, async () => {
    const result = await runFixture('nbc-suite.ts', np);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

// Over TCP, socket data arrives only while a rank awaits: the polling loop yields (--yield).
for (const [np, mode] of [[3, ['--procs']], [4, ['--ranks-per-proc', '2']]] as const) {
  test(`nonblocking collectives on ${np} ranks with ${mode.join(' ')}`, { timeout: 300_000 }, async () => {
    const result = await tsmpi(['run', '-n', String(np), ...mode, fixture('nbc-suite.ts'), '--yield']);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

for (const np of [4, 5]) {
  test(`nonblocking collectives under tsmpi sim on ${np} ranks`, { timeout: 300_000 }, async () => {
    const result = await tsmpi(['sim', '-n', String(np), '--quiet', fixture('nbc-suite.ts'), '--yield']);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

test('a rank polling test() for 3 s without awaiting, over TCP, gets a warning naming the fix', { timeout: 120_000 }, async () => {
  // Connections opened at init: the loop then only keeps the message out, not the handshake.
  const result = await tsmpi(['run', '-n', '2', '--procs', fixture('poll-without-await.ts')], { env: { TSMPI_TCP_CONNECT: 'eager' } });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /got late/, explain(result));
  const warnings = result.stderr.split('\n').filter((line) => line.includes('has polled with test() for 3 s without awaiting'));
  assert.equal(warnings.length, 1, explain(result));
  assert.match(warnings[0]!, /rank 0 .*await comm\.sleep\(0\)/);
});
