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
