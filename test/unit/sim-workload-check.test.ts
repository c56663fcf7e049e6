// The matching checker catches what breaks a program: a missing receive, a size mismatch, a
// deadlock of blocking sends, collectives out of order or disagreeing, a wait with no request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Action } from '../../src/sim/replay/actions.ts';
import { checkMatched } from '../../src/sim/workloads/check.ts';
import { stencil2d } from '../../src/sim/workloads/stencil.ts';

const program = (...lists: Action[][]): Map<number, Action[]> => new Map(lists.map((l, r) => [r, l]));

test('check: a missing receive is caught and located', () => {
  const p = stencil2d({ px: 3, py: 1, steps: 2 });
  assert.ok(checkMatched(p).ok);
  // rank 1 forgets its receive from rank 2 in the second step
  const list = p.get(1)!;
  const second = list.findIndex((a, i) => a.op === 'irecv' && a.src === 2 && i > list.findIndex((b) => b.op === 'waitall'));
  list.splice(second, 1);
  const report = checkMatched(p);
  assert.equal(report.ok, false);
  assert.ok(report.problems.some((m) => /rank 2 action \d+ \(isend 1 0 65536\) is never received/.test(m)), report.problems.join('\n'));
  assert.ok(report.problems.some((m) => /rank 2 never gets past/.test(m)));
});

test('check: an extra receive, a size mismatch, an any-source buffer too small', () => {
  const extra = checkMatched(program([{ op: 'recv', src: 1, tag: 0, bytes: 4 }], []));
  assert.ok(extra.problems.some((m) => /rank 0 action 0 \(recv 1 0 4\) never gets a message/.test(m)), extra.problems.join('\n'));
  const size = checkMatched(program([{ op: 'send', dst: 1, tag: 0, bytes: 8 }], [{ op: 'recv', src: 0, tag: 0, bytes: 4 }]));
  assert.deepEqual(size.problems, ['rank 0 action 0 (send 1 0 8) sends 8 bytes to rank 1 action 0 (recv 0 0 4), which expects 4']);
  const buffer = checkMatched(program([{ op: 'send', dst: 1, tag: 0, bytes: 8 }], [{ op: 'recv', src: -1, tag: 0, bytes: 4 }]));
  assert.match(buffer.problems[0]!, /which has a buffer of 4/);
  // a larger any-source buffer, and a receive of unknown size (0), take the message
  assert.ok(checkMatched(program([{ op: 'send', dst: 1, tag: 0, bytes: 8 }], [{ op: 'recv', src: -1, tag: -1, bytes: 64 }])).ok);
  assert.ok(checkMatched(program([{ op: 'send', dst: 1, tag: 0, bytes: 8 }], [{ op: 'recv', src: 0, tag: 0, bytes: 0 }])).ok);
});

test('check: blocking sends to each other deadlock under rendezvous, not under eager', () => {
  const p = program(
    [{ op: 'send', dst: 1, tag: 0, bytes: 1 }, { op: 'recv', src: 1, tag: 0, bytes: 1 }],
    [{ op: 'send', dst: 0, tag: 0, bytes: 1 }, { op: 'recv', src: 0, tag: 0, bytes: 1 }],
  );
  const strict = checkMatched(p);
  assert.equal(strict.ok, false);
  assert.ok(strict.problems.includes('rank 0 never gets past action 0 (send 1 0 1)'), strict.problems.join('\n'));
  assert.ok(checkMatched(p, { protocol: 'eager' }).ok);
});

test('check: messages of one pair and tag match in order; tags keep pairs apart', () => {
  const ok = checkMatched(program(
    [{ op: 'isend', dst: 1, tag: 0, bytes: 1 }, { op: 'isend', dst: 1, tag: 0, bytes: 2 }, { op: 'isend', dst: 1, tag: 5, bytes: 3 }, { op: 'waitall' }],
    [{ op: 'irecv', src: 0, tag: 5, bytes: 3 }, { op: 'irecv', src: 0, tag: 0, bytes: 1 }, { op: 'irecv', src: 0, tag: 0, bytes: 2 }, { op: 'waitall' }],
  ));
  assert.deepEqual(ok.problems, []);
  assert.equal(ok.matched, 3);
  const swapped = checkMatched(program(
    [{ op: 'isend', dst: 1, tag: 0, bytes: 1 }, { op: 'isend', dst: 1, tag: 0, bytes: 2 }, { op: 'waitall' }],
    [{ op: 'irecv', src: 0, tag: 0, bytes: 2 }, { op: 'irecv', src: 0, tag: 0, bytes: 1 }, { op: 'waitall' }],
  ));
  assert.equal(swapped.problems.length, 2, 'non-overtaking: the 1-byte message meets the 2-byte receive');
});

test('check: collectives out of order, disagreeing, or missing on a rank', () => {
  const order = checkMatched(program([{ op: 'barrier' }, { op: 'allreduce', bytes: 8, flops: 1 }], [{ op: 'allreduce', bytes: 8, flops: 1 }, { op: 'barrier' }]));
  assert.match(order.problems[0]!, /collective 0 \(barrier at rank 0 action 0\): rank 1 enters allreduce instead/);
  const root = checkMatched(program([{ op: 'bcast', bytes: 8, root: 0 }], [{ op: 'bcast', bytes: 8, root: 1 }]));
  assert.match(root.problems[0]!, /rank 1 names root 1, rank 0 root 0/);
  const v = checkMatched(program(
    [{ op: 'alltoallv', sendBytes: [0, 5], recvBytes: [0, 7] }],
    [{ op: 'alltoallv', sendBytes: [6, 0], recvBytes: [5, 0] }],
  ));
  // rank 0 -> 1: 5 sent, 5 expected; rank 1 -> 0: 6 sent, 7 expected
  assert.match(v.problems[0]!, /rank 1 sends 6 to rank 0, which expects 7/);
  const missing = checkMatched(program([{ op: 'barrier' }], []));
  assert.ok(missing.problems.some((m) => /collective 0 is entered by ranks 0 but never by 1/.test(m)), missing.problems.join('\n'));
});

test('check: waits name their request; a wait with none is reported; the end waits for everything', () => {
  const ok = checkMatched(program(
    [{ op: 'irecv', src: 1, tag: 3, bytes: 1 }, { op: 'test', src: 1, dst: 0, tag: 3 }, { op: 'wait', src: 1, dst: 0, tag: 3 }],
    [{ op: 'isend', dst: 0, tag: 3, bytes: 1 }], // never waited: completes at the end, as in SimGrid
  ));
  assert.deepEqual(ok.problems, []);
  const stray = checkMatched(program([{ op: 'wait', src: 1, dst: 0, tag: 0 }], []));
  assert.match(stray.problems[0]!, /rank 0 action 0 \(wait 1 0 0\) matches no outstanding request/);
  const bad = checkMatched(program([{ op: 'send', dst: 4, tag: 0, bytes: 1 }]));
  assert.match(bad.problems[0]!, /peer 4 is not a rank of this 1-rank program/);
});
