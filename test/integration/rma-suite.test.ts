// One-sided windows (test/fixtures/rma-suite.ts) on threads, processes, both, and the simulator:
// fence epochs, request-based operations and getAccumulate, post/start/complete/wait, dynamic windows, atomics, exclusive locks, random programs against a sequential model, shared
// windows (refused across processes), errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, runFixture, tsmpi } from '../helpers/run-job.ts';

const CHECKS = 11;
const COMMUNICATORS = 3;
const okLines = (stdout: string): number => stdout.split('\n').filter((line) => line.startsWith('rma ok ')).length;

for (const np of [1, 2, 3, 4, 6]) {
  test(`windows on ${np} thread rank${np > 1 ? 's' : ''}`, { timeout: 300_000 }, async () => {
    const result = await runFixture('rma-suite.ts', np);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

for (const [np, mode] of [[3, ['--procs']], [4, ['--ranks-per-proc', '2']]] as const) {
  test(`windows on ${np} ranks with ${mode.join(' ')} (active messages over TCP)`, { timeout: 300_000 }, async () => {
    const result = await tsmpi(['run', '-n', String(np), ...mode, fixture('rma-suite.ts'), '--no-shared']);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

// One host per rank: messages in virtual time, and allocateShared refused; 4 ranks on one host:
// shared windows.
for (const [np, placement, extra] of [[3, [], ['--no-shared']], [4, ['--ranks-per-host', '4'], []]] as const) {
  test(`windows under tsmpi sim on ${np} ranks ${placement.length ? 'on one host' : 'on a host each'}`, { timeout: 300_000 }, async () => {
    const result = await tsmpi(['sim', '-n', String(np), ...placement, '--quiet', fixture('rma-suite.ts'), ...extra]);
    assert.equal(result.code, 0, explain(result));
    assert.equal(okLines(result.stdout), CHECKS * COMMUNICATORS, explain(result));
  });
}

// The "done when": PROC_NULL, createCart/shift, iallreduce and Win.allocate + fence + put
// in one program, the same checksum on every launch (each rank also checks its block bit for bit).
const launches: [string, string[]][] = [
  ['4 threads', ['run', '-n', '4']],
  ['6 threads', ['run', '-n', '6']],
  ['3 processes', ['run', '-n', '3', '--procs']],
  ['2 processes of 2 threads', ['run', '-n', '4', '--ranks-per-proc', '2']],
  ['the simulator, 6 ranks', ['sim', '-n', '6', '--quiet']],
];
for (const [name, args] of launches) {
  test(`the stencil with windows gives the sequential field on ${name}`, { timeout: 300_000 }, async () => {
    const result = await tsmpi([...args, fixture('stencil-rma.ts')]);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /^stencil ok 30 380\.022280338870$/m, explain(result));
  });
}
