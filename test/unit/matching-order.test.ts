// Property test of matching against a direct statement of MPI's rule: an arriving message takes
// the earliest posted receive it matches; a new receive takes the earliest arrived message it
// matches (wildcards included). The reference uses plain arrays; the queues under test use the
// index queues of the hot path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ANY_SOURCE, ANY_TAG, MatchQueues, ReceiveRequest } from '../../src/comm/matching.ts';
import type { RequestDriver } from '../../src/comm/request.ts';

const driver: RequestDriver = {
  testPoll: () => false,
  spinFor: () => {},
  waitUntil: () => Promise.resolve(),
  cancel: () => false,
};

type Event = { kind: 'arrive'; source: number; tag: number } | { kind: 'post'; source: number; tag: number };

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ kind: fc.constant('arrive' as const), source: fc.integer({ min: 0, max: 2 }), tag: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('post' as const), source: fc.integer({ min: -1, max: 2 }), tag: fc.integer({ min: -1, max: 2 }) }),
);

const fits = (wantSource: number, wantTag: number, source: number, tag: number): boolean =>
  (wantSource === ANY_SOURCE || wantSource === source) && (wantTag === ANY_TAG || wantTag === tag);

test('matching: every message goes to the receive MPI ordering says it goes to', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 200 }), (events) => {
      const queues = new MatchQueues();
      const refPosted: { id: number; source: number; tag: number }[] = [];
      const refUnexpected: { id: number; source: number; tag: number }[] = [];
      const got: [number, number][] = [];
      const want: [number, number][] = [];
      let messageId = 0;
      let receiveId = 0;
      const receiveIds = new Map<ReceiveRequest, number>();
      for (const e of events) {
        if (e.kind === 'arrive') {
          const id = messageId++;
          const r = queues.takePosted(e.source, e.tag);
          if (r) got.push([receiveIds.get(r)!, id]);
          else queues.unexpected.push({ source: e.source, tag: e.tag, kind: 0, bytes: 0, data: Uint8Array.of(id), peer: e.source, senderRequest: 0, sequence: id });
          const i = refPosted.findIndex((p) => fits(p.source, p.tag, e.source, e.tag));
          if (i >= 0) want.push([refPosted.splice(i, 1)[0]!.id, id]);
          else refUnexpected.push({ id, source: e.source, tag: e.tag });
        } else {
          const id = receiveId++;
          const request = new ReceiveRequest(driver, 'recv', e.source, e.tag, 0, null, false);
          receiveIds.set(request, id);
          const index = queues.findUnexpected(e.source, e.tag);
          if (index >= 0) got.push([id, queues.takeUnexpectedAt(index).data![0]!]);
          else queues.posted.push(request);
          const j = refUnexpected.findIndex((m) => fits(e.source, e.tag, m.source, m.tag));
          if (j >= 0) want.push([id, refUnexpected.splice(j, 1)[0]!.id]);
          else refPosted.push({ id, source: e.source, tag: e.tag });
        }
      }
      assert.deepStrictEqual(got, want);
      assert.equal(queues.posted.length, refPosted.length);
      assert.equal(queues.unexpected.length, refUnexpected.length);
      // pendingFrom(s): some posted receive could take a message from s (s = ANY_SOURCE: from anyone).
      for (const s of [ANY_SOURCE, 0, 1, 2, 3]) {
        const expected = s === ANY_SOURCE ? refPosted.length > 0 : refPosted.some((p) => p.source === ANY_SOURCE || p.source === s);
        assert.equal(queues.posted.pendingFrom(s), expected, `pendingFrom(${s})`);
      }
    }),
    { numRuns: 500 },
  );
});

test('matching: messages of one (source, tag) are taken in arrival order (non-overtaking)', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 100 }), (tags) => {
      const queues = new MatchQueues();
      tags.forEach((tag, i) => queues.unexpected.push({ source: 1, tag, kind: 0, bytes: 0, data: Uint8Array.of(i), peer: 1, senderRequest: 0, sequence: i }));
      for (const tag of [0, 1, 2, 3]) {
        let last = -1;
        for (;;) {
          const index = queues.findUnexpected(1, tag);
          if (index < 0) break;
          const seq = queues.takeUnexpectedAt(index).data![0]!;
          assert.ok(seq > last);
          last = seq;
        }
      }
      assert.equal(queues.unexpected.length, 0);
    }),
  );
});

test('matching: a cancelled receive leaves the queue', () => {
  const queues = new MatchQueues();
  const a = new ReceiveRequest(driver, 'recv', 1, 1, 0, null, false);
  const b = new ReceiveRequest(driver, 'recv', 1, 1, 0, null, false);
  queues.posted.push(a);
  queues.posted.push(b);
  assert.equal(queues.removePosted(a), true);
  assert.equal(queues.removePosted(a), false);
  assert.equal(queues.takePosted(1, 1), b);
});
