// Two real endpoints over one shared-memory arena in this thread (nothing here waits: receives
// are tested, and the sender's iprobe polls it).
// - A blocking collective's send that its link takes at once goes without a request
//   (Endpoint.sendNow). It must never overtake: not a frame still queued before it, not the first
//   frame that opens the link; and a message it cannot write now is left to isend, whole.
// - A receive that takes its frame in its own poll leaves the ring's tail for a later poll to
//   publish: a sender with more queued than the ring holds still gets every message through.
// - A collective's receive whose message is the next frame of its link, and that no posted
//   receive or earlier message could take, is taken at once (Endpoint.receiveNow).
// - A burst of small nonblocking sends between two polls of the sender (or job ends): the first
//   frame is visible at once, the rest once the sender polls, its job ends (a microtask), another
//   kind of send follows, or they fill PUBLISH_BATCH_BYTES.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Communicator } from '../../src/comm/communicator.ts';
import { Endpoint } from '../../src/comm/endpoint.ts';
import type { Request } from '../../src/comm/request.ts';
import { readSettings } from '../../src/config/tunables.ts';
import { FRAME_HEADER_BYTES } from '../../src/transport/link.ts';
import { PUBLISH_BATCH_BYTES } from '../../src/transport/publish-batch.ts';
import { recordBytes } from '../../src/transport/shm-ring.ts';
import { ProgressEngine } from '../../src/transport/progress.ts';
import { allocateShmArena } from '../../src/transport/shm-arena.ts';
import { ShmTransport } from '../../src/transport/shm-transport.ts';

const RING_BYTES = 16 * 1024;

function pair() {
  const arena = allocateShmArena(2, RING_BYTES);
  const settings = readSettings({ TSMPI_SPIN_US: '0' }, { localRanks: 2 });
  return [0, 1].map((rank) => {
    const transport = new ShmTransport(arena, rank, [0, 1], 2);
    const endpoint = new Endpoint(transport, settings, (host) => new ProgressEngine(host, transport.control, transport.slot, 0, { sleepLimitMs: settings.sleepLimitMs }));
    const comm = new Communicator({ endpoint, context: 0, group: Int32Array.from([0, 1]), rank, settings, selfContext: 2, predefined: true });
    return { endpoint, comm };
  });
}

/** Polls both ranks (through test) until every receive is done; bounded, never waits. */
function drain(receives: Request<unknown>[], sender: { comm: Communicator }): void {
  // The sender's iprobe polls it: its queued frames go out as the ring makes room.
  for (let round = 0; round < 10_000 && !receives.every((r) => r.done); round++) {
    for (const r of receives) r.test();
    sender.comm.iprobe(1, 999);
  }
}

const message = (value: number, bytes = 8): Uint8Array => new Uint8Array(bytes).fill(value);

test('sendNow: not before the link is opened, then in order with isend, exact payloads', () => {
  const [a, b] = pair();
  assert.equal(a!.endpoint.sendNow(0, 1, 0, 5, message(1)), false, 'no link yet: the first send opens it through isend');
  const sent: boolean[] = [];
  const first = a!.comm.isend(message(1), 1, 5);
  assert.ok(first.done, 'a small isend completes at once');
  for (let v = 2; v <= 6; v++) sent.push(a!.endpoint.sendNow(0, 1, 0, 5, message(v)));
  assert.deepEqual(sent, [true, true, true, true, true]);
  const last = a!.comm.isend(message(7), 1, 5);
  const into = Array.from({ length: 7 }, () => new Uint8Array(8));
  const receives = into.map((buffer) => b!.comm.irecvInto(buffer, 0, 5));
  drain(receives, a!);
  assert.ok(last.done);
  assert.deepEqual(into.map((buffer) => buffer[0]), [1, 2, 3, 4, 5, 6, 7], 'arrival order is send order');
  assert.ok(into.every((buffer) => buffer.every((x) => x === buffer[0])), 'payloads whole');
});

test('sendNow: a full ring or a queue before it leaves the message to isend; nothing lost or reordered', () => {
  const [a, b] = pair();
  a!.comm.isend(message(0, 100), 1, 6);
  let value = 1;
  // Fill the ring with messages sent now, until the ring refuses one.
  while (a!.endpoint.sendNow(0, 1, 0, 6, message(value % 256, 100))) value++;
  const refused = value;
  assert.ok(refused > 20 && refused < RING_BYTES / 100, `the ring took ${refused - 1} messages`);
  // The refused one goes through isend: queued (backlogged) behind the full ring.
  const queued = a!.comm.isend(message(refused % 256, 100), 1, 6);
  assert.equal(queued.done, false, 'queued behind the full ring');
  // While a frame is queued, sendNow must not jump ahead, even once the ring has room.
  const into = Array.from({ length: refused + 3 }, () => new Uint8Array(100));
  const receives = into.map((buffer) => b!.comm.irecvInto(buffer, 0, 6));
  for (let i = 0; i < 5; i++) receives[i]!.test();
  assert.equal(a!.endpoint.sendNow(0, 1, 0, 6, message((refused + 1) % 256, 100)), false, 'a frame is queued before it');
  a!.comm.isend(message((refused + 1) % 256, 100), 1, 6);
  drain(receives.slice(0, refused + 2), a!);
  assert.ok(queued.done);
  // The queue has drained: sendNow sends again, behind everything.
  assert.equal(a!.endpoint.sendNow(0, 1, 0, 6, message((refused + 2) % 256, 100)), true);
  drain(receives, a!);
  assert.deepEqual(into.map((buffer) => buffer[0]), into.map((_, i) => i % 256), 'every message, in order');
});

test('sendNow: above the eager limit, or not a typed array, it sends nothing', () => {
  const [a] = pair();
  a!.comm.isend(message(0), 1, 7);
  const big = new Uint8Array(readSettings({}, { localRanks: 2 }).eagerLimit + 1);
  assert.equal(a!.endpoint.sendNow(0, 1, 0, 7, big), false, 'above the eager limit');
  assert.equal(a!.endpoint.sendNow(0, 1, 0, 7, new DataView(new ArrayBuffer(8))), true, 'a DataView is raw bytes too');
});

test('receives taking one frame each from a full ring: the sender\'s queue drains through, in order', () => {
  const [a, b] = pair();
  const count = 600;
  const sends = Array.from({ length: count }, (_, i) => a!.comm.isend(message(i % 256, 100), 1, 8));
  assert.ok(!sends.at(-1)!.done, 'more than the ring holds is queued');
  const got: number[] = [];
  for (let i = 0; i < count; i++) {
    const into = new Uint8Array(100);
    const receive = b!.comm.irecvInto(into, 0, 8);
    for (let round = 0; round < 100 && !receive.done; round++) {
      a!.comm.iprobe(1, 999);
      receive.test();
    }
    assert.ok(receive.done, `receive ${i} completed`);
    got.push(into[0]!);
  }
  assert.deepEqual(got, got.map((_, i) => i % 256));
  a!.comm.iprobe(1, 999);
  assert.ok(sends.every((s) => s.done), 'every send left');
});

test('receiveNow takes a message that is the next frame and that nothing else could take; otherwise it leaves it', async () => {
  const [a, b] = pair();
  const got = new Uint8Array(8);
  // No link yet on the receiving side: nothing to take.
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 5, got), -1);
  a!.comm.isend(message(1), 1, 5);
  b!.comm.iprobe(0, 999); // the receiver finds its writer (the link is made)
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 5, got), -1, 'it was polled into the unexpected queue by that probe');
  const first = b!.comm.irecvInto(got, 0, 5);
  assert.ok(first.done && got[0] === 1);

  // Next frame has another tag: not taken, and order holds for both.
  a!.comm.isend(message(2), 1, 5);
  a!.comm.isend(message(3), 1, 6);
  a!.comm.iprobe(1, 999); // the sender's poll publishes the rest of its burst
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 6, got), -1, 'the next frame is tag 5');
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 5, got), 8);
  assert.equal(got[0], 2);
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 6, got), 8);
  assert.equal(got[0], 3);

  // A receive posted for that source comes first, whatever its tag.
  const pending = b!.comm.irecvInto(new Uint8Array(8), 0, 7);
  a!.comm.isend(message(4), 1, 5);
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 5, got), -1, 'a receive is posted for that source');
  a!.comm.isend(message(5), 1, 7);
  const later = b!.comm.irecvInto(got, 0, 5);
  drain([pending, later], a!);
  assert.equal(got[0], 4);

  // Too long for the buffer, or an encoded value: left for the posted receive and its error.
  a!.comm.isend(message(6, 16), 1, 5);
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 5, got), -1, 'does not fit');
  await assert.rejects(b!.comm.irecvInto(got, 0, 5).wait(), /does not fit/);
  a!.comm.isend({ not: 'bytes' }, 1, 5);
  assert.equal(b!.endpoint.receiveNow(0, 0, 0, 5, got), -1, 'an encoded value');
});

test('receiveNow: one call in eight goes the posted way, and every message still arrives in order', () => {
  const [a, b] = pair();
  a!.comm.isend(message(0), 1, 5);
  b!.comm.irecvInto(new Uint8Array(8), 0, 5).test();
  for (let i = 1; i <= 32; i++) a!.comm.isend(message(i), 1, 5);
  a!.comm.iprobe(1, 999); // the sender's poll publishes the rest of its burst
  const got: number[] = [];
  let posted = 0;
  const into = new Uint8Array(8);
  for (let i = 1; i <= 32; i++) {
    if (b!.endpoint.receiveNow(0, 0, 0, 5, into) === 8) got.push(into[0]!);
    else {
      posted++;
      const r = b!.comm.irecvInto(into, 0, 5);
      r.test();
      assert.ok(r.done);
      got.push(into[0]!);
    }
  }
  assert.deepEqual(got, Array.from({ length: 32 }, (_, i) => i + 1));
  assert.equal(posted, 4, 'the 8th, 16th, 24th and 32nd');
});


test('a burst of small isends: the first frame at once, the rest when the sender polls, its job ends, another send follows, or they fill a batch', async () => {
  const [a, b] = pair();
  const into = new Uint8Array(8);
  // The receiver's iprobe polls it (its own sends, none here, are all it publishes).
  const take = (): number => {
    if (b!.comm.iprobe(0, 5) === undefined) return -1;
    const receive = b!.comm.irecvInto(into, 0, 5);
    receive.test();
    assert.ok(receive.done);
    return into[0]!;
  };
  a!.comm.isend(message(0), 1, 5);
  b!.comm.irecvInto(into, 0, 5).test(); // the link is made and its first frame taken
  a!.comm.iprobe(1, 999);

  // Held until the sender's job ends: a microtask queued by the first frame held back.
  for (let v = 1; v <= 3; v++) a!.comm.isend(message(v), 1, 5);
  assert.equal(take(), 1, 'the first frame of the burst is visible at once');
  assert.equal(take(), -1, 'the rest are held back');
  await Promise.resolve();
  assert.deepEqual([take(), take(), take()], [2, 3, -1], 'published at the end of the job, in order');

  // The job's end began a new burst: its first frame goes at once, the rest wait for the poll.
  for (let v = 4; v <= 6; v++) a!.comm.isend(message(v), 1, 5);
  assert.deepEqual([take(), take()], [4, -1]);
  a!.comm.iprobe(1, 999);
  assert.deepEqual([take(), take(), take()], [5, 6, -1], 'published by the sender poll');

  // A frame that is not a nonblocking send's (a blocking send's) goes at once, with what was held.
  a!.comm.isend(message(7), 1, 5);
  a!.comm.isend(message(8), 1, 5);
  assert.deepEqual([take(), take()], [7, -1]);
  void a!.comm.send(message(9), 1, 5);
  assert.deepEqual([take(), take(), take()], [8, 9, -1], 'a blocking send publishes the burst before it');

  // A job with one isend, then another job: its first isend goes at once, poll or not.
  await Promise.resolve();
  a!.comm.isend(message(100), 1, 5);
  await Promise.resolve();
  a!.comm.isend(message(101), 1, 5);
  assert.deepEqual([take(), take(), take()], [100, 101, -1], 'each the first of its job');
  // A blocking send does not start a burst: the isend after it goes at once.
  await Promise.resolve();
  void a!.comm.send(message(102), 1, 5);
  a!.comm.isend(message(103), 1, 5);
  assert.deepEqual([take(), take(), take()], [102, 103, -1]);

  // A long burst publishes each time what it holds fills a batch.
  await Promise.resolve();
  const perBatch = Math.ceil(PUBLISH_BATCH_BYTES / recordBytes(FRAME_HEADER_BYTES + 8));
  const count = 2 * perBatch + 3;
  for (let i = 0; i < count; i++) a!.comm.isend(message(10 + i), 1, 5);
  const seen: number[] = [];
  for (let v = take(); v >= 0; v = take()) seen.push(v);
  assert.deepEqual(seen, Array.from({ length: 1 + 2 * perBatch }, (_, i) => 10 + i), 'the first, then two whole batches');
  await Promise.resolve();
  for (let v = take(); v >= 0; v = take()) seen.push(v);
  assert.deepEqual(seen, Array.from({ length: count }, (_, i) => 10 + i), 'nothing lost, in order');
});
