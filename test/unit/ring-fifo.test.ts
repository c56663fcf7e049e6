// Property tests of the shared-memory ring: records come out in order, intact, across wrap-around,
// and the ring refuses a record only when it really has no room.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ShmRing, recordBytes, ringRegionBytes } from '../../src/transport/shm-ring.ts';

const CAPACITY = 1024;

test('ring: FIFO order and contents under random produce/consume interleavings', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.record({ op: fc.constant('put' as const), size: fc.integer({ min: 0, max: CAPACITY / 2 - 8 }) }), fc.record({ op: fc.constant('take' as const), size: fc.constant(0) })), {
        minLength: 1,
        maxLength: 300,
      }),
      (ops) => {
        const sab = new SharedArrayBuffer(ringRegionBytes(CAPACITY) + 64);
        const producer = new ShmRing(sab, 64, CAPACITY);
        const consumer = new ShmRing(sab, 64, CAPACITY);
        const model: Uint8Array[] = [];
        let used = 0;
        let serial = 0;
        for (const { op, size } of ops) {
          if (op === 'put') {
            const at = producer.reserve(size);
            if (at < 0) {
              // A refusal needs a non-empty ring, and (need <= capacity / 2, a wrap wastes less than
              // `need`) more than half of it taken by what is queued plus the new record.
              assert.ok(used > 0, 'an empty ring refused a record');
              assert.ok(used + recordBytes(size) > CAPACITY / 2, `refused a ${size}-byte record with ${used} bytes used`);
              continue;
            }
            const body = new Uint8Array(size).map((_, i) => (serial + i * 7) & 0xff);
            serial++;
            producer.u8.set(body, at);
            producer.commit(size);
            model.push(body);
            used = producer.usedBytes();
          } else {
            const at = consumer.peek();
            if (model.length === 0) {
              assert.equal(at, -1, 'an empty ring has nothing to peek');
              continue;
            }
            assert.ok(at >= 0, 'a published record is visible');
            const want = model.shift()!;
            assert.equal(consumer.bodyLengthAt(at), want.length);
            assert.deepStrictEqual(consumer.u8.slice(at, at + want.length), want);
            consumer.release(at);
            used = producer.usedBytes();
          }
        }
        // Drain: everything still queued comes out in order.
        for (const want of model) {
          const at = consumer.peek();
          assert.ok(at >= 0);
          assert.deepStrictEqual(consumer.u8.slice(at, at + want.length), want);
          consumer.release(at);
        }
        assert.equal(consumer.peek(), -1);
        assert.equal(producer.usedBytes(), 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('ring: a producer that waits for space is told when the consumer frees some', () => {
  const sab = new SharedArrayBuffer(ringRegionBytes(CAPACITY));
  const producer = new ShmRing(sab, 0, CAPACITY);
  const consumer = new ShmRing(sab, 0, CAPACITY);
  while (producer.reserve(300) >= 0) producer.commit(300);
  producer.setProducerWaiting();
  const at = consumer.peek();
  assert.equal(consumer.release(at), true, 'the first release reports the waiting producer');
  const next = consumer.peek();
  assert.equal(consumer.release(next), false, 'the flag is cleared once reported');
  assert.ok(producer.reserve(300) >= 0, 'room again after the release');
});

test('ring: rejects bad geometry', () => {
  assert.throws(() => new ShmRing(new SharedArrayBuffer(8192), 0, 1000), /power of two/);
  assert.throws(() => new ShmRing(new SharedArrayBuffer(8192), 4, 1024), /64-byte aligned/);
});

test('ring: records taken without publishing stay the consumer\'s; the producer sees their room only once tail is published', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('put' as const, 'take' as const, 'publish' as const), { minLength: 1, maxLength: 300 }),
      fc.array(fc.integer({ min: 0, max: CAPACITY / 4 }), { minLength: 1, maxLength: 20 }),
      (ops, sizes) => {
        const sab = new SharedArrayBuffer(ringRegionBytes(CAPACITY));
        const producer = new ShmRing(sab, 0, CAPACITY);
        const consumer = new ShmRing(sab, 0, CAPACITY);
        const model: Uint8Array[] = [];
        let serial = 0;
        let taken = 0;
        let unpublished = 0;
        for (const op of ops) {
          if (op === 'put') {
            const size = sizes[serial % sizes.length]!;
            const at = producer.reserve(size);
            if (at < 0) {
              // Refused only when what is queued or taken-but-unpublished leaves no room.
              assert.ok(producer.usedBytes() + recordBytes(size) > CAPACITY / 2, `refused ${size} bytes with ${producer.usedBytes()} in use`);
              continue;
            }
            const body = new Uint8Array(size).map((_, i) => (serial + i * 5) & 0xff);
            serial++;
            producer.u8.set(body, at);
            producer.commit(size);
            model.push(body);
          } else if (op === 'take') {
            const at = consumer.peek();
            if (model.length === 0) continue;
            const want = model.shift()!;
            assert.deepStrictEqual(consumer.u8.slice(at, at + want.length), want);
            const before = producer.usedBytes();
            const full = consumer.take(at);
            unpublished += consumer.recordLengthAt(at);
            taken++;
            assert.equal(full, unpublished >= CAPACITY / 16, 'take asks for a publication at a sixteenth of the ring');
            assert.equal(producer.usedBytes(), before, 'a take alone frees nothing for the producer');
            if (full) {
              consumer.publishTail();
              unpublished = 0;
            }
          } else {
            consumer.publishTail();
            unpublished = 0;
            // Published: what the producer sees in use is what is still queued (and at most one
            // wrap's waste between those records); nothing queued, nothing in use.
            const queued = model.reduce((sum, b) => sum + recordBytes(b.length), 0);
            const used = producer.usedBytes();
            assert.ok(used >= queued && used - queued < CAPACITY / 2, `${used} bytes in use for ${queued} queued`);
            if (model.length === 0) assert.equal(used, 0);
          }
        }
        for (const want of model) {
          const at = consumer.peek();
          assert.deepStrictEqual(consumer.u8.slice(at, at + want.length), want);
          consumer.take(at);
        }
        consumer.publishTail();
        assert.equal(consumer.peek(), -1);
        assert.equal(producer.usedBytes(), 0, `everything taken (${taken} records) is free once published`);
      },
    ),
    { numRuns: 300 },
  );
});

test('ring: a waiting producer is reported by the publication of what was taken, once', () => {
  const sab = new SharedArrayBuffer(ringRegionBytes(CAPACITY));
  const producer = new ShmRing(sab, 0, CAPACITY);
  const consumer = new ShmRing(sab, 0, CAPACITY);
  while (producer.reserve(40) >= 0) producer.commit(40);
  producer.setProducerWaiting();
  const used = producer.usedBytes();
  consumer.take(consumer.peek());
  consumer.take(consumer.peek());
  assert.equal(producer.usedBytes(), used, 'taken, not yet published');
  assert.equal(consumer.publishTail(), true, 'the publication reports the waiting producer');
  assert.equal(producer.usedBytes(), used - 2 * recordBytes(40));
  assert.equal(consumer.publishTail(), false, 'nothing taken since: nothing to publish');
  consumer.take(consumer.peek());
  assert.equal(consumer.publishTail(), false, 'the flag is cleared once reported');
});
