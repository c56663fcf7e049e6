// The launcher's choice of the failure a job ends with (src/bootstrap/first-failure.ts): the
// first cause wins; a consequence (a rank whose link to a dying peer broke) waits for its cause.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureArbiter, type FailureVerdict } from '../../src/bootstrap/first-failure.ts';

function arbiter(): { a: FailureArbiter; verdicts: FailureVerdict[]; fire: () => void; pending: () => number } {
  const verdicts: FailureVerdict[] = [];
  const timers: (() => void)[] = [];
  const a = new FailureArbiter({ graceMs: 1000, schedule: (callback) => void timers.push(callback), onVerdict: (v) => verdicts.push(v) });
  return { a, verdicts, fire: () => timers.splice(0).forEach((t) => t()), pending: () => timers.length };
}

test('a cause decides at once, and only the first one counts', () => {
  const { a, verdicts } = arbiter();
  a.report(2, 3, 'rank 2 exited with code 3', false);
  a.report(0, 5, 'later', false);
  a.exited(1, 143, 'killed');
  assert.deepStrictEqual(verdicts, [{ process: 2, code: 3, why: 'rank 2 exited with code 3' }]);
  assert.equal(a.finish()?.code, 3);
});

test('a consequence heard first yields to the cause that follows within the grace period', () => {
  const { a, verdicts, fire } = arbiter();
  a.report(0, 1, 'link to rank 2 broke', true);
  a.exited(0, 1, 'exited with code 1'); // its exit is a consequence too
  assert.equal(verdicts.length, 0);
  a.report(2, 3, 'rank 2 exited with code 3', false);
  fire();
  assert.deepStrictEqual(verdicts.map((v) => [v.process, v.code]), [[2, 3]]);
});

test('a consequence with no cause decides when the grace period ends, or when every process has ended', () => {
  const timed = arbiter();
  timed.a.report(1, 1, 'link broke', true);
  assert.equal(timed.verdicts.length, 0);
  timed.fire();
  assert.deepStrictEqual(timed.verdicts.map((v) => [v.process, v.code]), [[1, 1]]);
  const ended = arbiter();
  ended.a.report(1, 1, 'link broke', true);
  assert.equal(ended.a.finish()?.code, 1);
  ended.fire();
  assert.equal(ended.verdicts.length, 1, 'decided once');
});

test('a process that dies without a word (kill -9, a crash) is a cause: its exit decides', () => {
  const { a, verdicts, pending } = arbiter();
  a.exited(3, 137, 'was killed by SIGKILL');
  assert.deepStrictEqual(verdicts.map((v) => [v.process, v.code]), [[3, 137]]);
  assert.equal(pending(), 0);
});

test('the exit of a process whose report was a cause does not change the code', () => {
  const { a, verdicts } = arbiter();
  a.report(1, 5, 'abort(5)', false);
  a.exited(1, 5, 'exited with code 5');
  a.exited(0, 143, 'killed by SIGTERM');
  assert.equal(verdicts.length, 1);
  assert.equal(a.verdict?.code, 5);
});

test('nothing failed: no verdict', () => {
  const { a, verdicts } = arbiter();
  assert.equal(a.finish(), undefined);
  assert.equal(verdicts.length, 0);
});
