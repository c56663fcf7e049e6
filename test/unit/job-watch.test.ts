// The hang watch's judgement (src/bootstrap/job-watch.ts): when a job that makes no progress is
// reported or aborted, job-wide across processes, ranks lingering after their program returned
// included; and what a lingering rank's line says keeps it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confirmedStall, JobWatch, LINGER_WARN_SECONDS, stallVerdict, type StallVerdict } from '../../src/bootstrap/job-watch.ts';
import { lingeringLine } from '../../src/bootstrap/rank-host.ts';

const limits = { hangTimeout: 0, hangWarn: 60 };

test('a warning needs every live rank stalled, waiting in tsmpi or lingering, for the warning time', () => {
  assert.deepEqual(stallVerdict({ live: 3, waiting: 2, lingering: 0 }, 100, limits, false), { act: 'none' }, 'one rank still computes');
  assert.deepEqual(stallVerdict({ live: 3, waiting: 3, lingering: 0 }, 59.9, limits, false), { act: 'none' });
  assert.deepEqual(stallVerdict({ live: 3, waiting: 3, lingering: 0 }, 60, limits, false), { act: 'warn', stalledSeconds: 60, cause: 'waits', confirm: false });
  assert.deepEqual(stallVerdict({ live: 3, waiting: 2, lingering: 1 }, 60, limits, false), { act: 'warn', stalledSeconds: 60, cause: 'waits', confirm: true }, 'the lingering rank made every rank stalled: to be confirmed');
  assert.deepEqual(stallVerdict({ live: 3, waiting: 3, lingering: 0 }, 600, limits, true), { act: 'none' }, 'once');
  assert.deepEqual(stallVerdict({ live: 0, waiting: 0, lingering: 0 }, 600, limits, false), { act: 'none' }, 'nothing live');
  assert.deepEqual(stallVerdict({ live: 3, waiting: 3, lingering: 0 }, 600, { hangTimeout: 0, hangWarn: 0 }, false), { act: 'none' }, 'warning off');
});

test('ranks that only linger are reported sooner: after the linger time, or the warning time when shorter', () => {
  assert.deepEqual(stallVerdict({ live: 1, waiting: 0, lingering: 1 }, LINGER_WARN_SECONDS - 0.1, limits, false), { act: 'none' });
  assert.deepEqual(stallVerdict({ live: 1, waiting: 0, lingering: 1 }, LINGER_WARN_SECONDS, limits, false), { act: 'warn', stalledSeconds: LINGER_WARN_SECONDS, cause: 'lingers', confirm: true });
  assert.deepEqual(stallVerdict({ live: 2, waiting: 0, lingering: 2 }, 2, { hangTimeout: 0, hangWarn: 2 }, false), { act: 'warn', stalledSeconds: 2, cause: 'lingers', confirm: true });
  assert.deepEqual(stallVerdict({ live: 2, waiting: 0, lingering: 1 }, 600, limits, false), { act: 'none' }, 'the other rank runs');
});

test('the hang timeout aborts when any rank waits or lingers, whatever the others do', () => {
  const timeout = { hangTimeout: 5, hangWarn: 60 };
  assert.deepEqual(stallVerdict({ live: 4, waiting: 1, lingering: 0 }, 5, timeout, true), { act: 'abort', stalledSeconds: 5, cause: 'waits', confirm: false });
  assert.deepEqual(stallVerdict({ live: 4, waiting: 1, lingering: 2 }, 5, timeout, true), { act: 'abort', stalledSeconds: 5, cause: 'waits', confirm: false }, 'a rank waiting in tsmpi is enough, as before');
  assert.deepEqual(stallVerdict({ live: 4, waiting: 0, lingering: 1 }, 5, timeout, false), { act: 'abort', stalledSeconds: 5, cause: 'lingers', confirm: true });
  assert.deepEqual(stallVerdict({ live: 4, waiting: 0, lingering: 0 }, 500, timeout, false), { act: 'none' }, 'all compute');
  assert.deepEqual(stallVerdict({ live: 4, waiting: 1, lingering: 0 }, 4.9, timeout, false), { act: 'none' });
});

test('the job-wide watch adds up processes, and any change of a total is progress', () => {
  const watch = new JobWatch(0, 3, 0);
  watch.report(0, { total: 10, live: 1, waiting: 0, lingering: 1 }, 0);
  watch.report(1, { total: 7, live: 2, waiting: 1 }, 0);
  assert.deepEqual(watch.check(2_000), { act: 'none' }, 'process 1 has a rank computing');
  watch.report(1, { total: 8, live: 2, waiting: 2 }, 2_500);
  assert.deepEqual(watch.check(5_000), { act: 'none' }, 'its total changed at 2.5 s');
  assert.deepEqual(watch.check(5_500), { act: 'warn', stalledSeconds: 3, cause: 'waits', confirm: true }, 'process 0 lingers: to be confirmed');
  watch.warnedNow();
  assert.deepEqual(watch.check(50_000), { act: 'none' }, 'once');
  const lingering = new JobWatch(0, 3, 0);
  lingering.report(0, { total: 1, live: 1, waiting: 0, lingering: 1 }, 0);
  lingering.report(1, { total: 1, live: 0, waiting: 0 }, 0);
  assert.deepEqual(lingering.check(3_000), { act: 'warn', stalledSeconds: 3, cause: 'lingers', confirm: true });
  assert.deepEqual(lingering.check(4_000), { act: 'warn', stalledSeconds: 4, cause: 'lingers', confirm: true }, 'not marked warned until a report is printed');
});

test("a lingering rank's line names what keeps its thread, counted, without tsmpi's own resources", () => {
  assert.match(lingeringLine(['Timeout', 'MessagePort', 'Timeout', 'TCPServerWrap', 'Immediate', 'CloseReq']), /: the program's Timeout x2, TCPServerWrap keeps it alive \(/);
  assert.match(lingeringLine(['Immediate']), /: something the program started keeps it alive \(/);
  assert.match(lingeringLine([]), /process\.exit\(0\)$/);
});

test('a stall that lingering ranks made stands only when no rank was found at work', () => {
  const lingers: StallVerdict = { act: 'abort', stalledSeconds: 5, cause: 'lingers', confirm: true };
  const idle = [[0, '  rank 0: exited with code 0'], [1, '  rank 1: its program returned ...', false]] as const;
  assert.equal(confirmedStall(lingers, idle), true);
  assert.equal(confirmedStall(lingers, [...idle, [2, '  rank 2: running, busy', true]]), false, 'a rank at work');
  assert.equal(confirmedStall({ ...lingers, confirm: false }, [[2, '  rank 2: running, busy', true]]), true, 'a verdict that needs no confirmation');
});
