// The process's broadcast slots in the control area (control-block.ts): ranks that each take the
// broadcasts in sequence, in any interleaving, read every payload exactly as its root published
// it; a root is held back exactly while the slot it needs still has readers; nothing deadlocks
// and nothing is read twice; sleepers are woken by a publish and by the last reader.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocateControlArea, BCAST_SLOT_BYTES, BCAST_SLOTS, ControlArea } from '../../src/transport/control-block.ts';

const payload = (sequence: number, length: number): Uint8Array => Uint8Array.from({ length }, (_, k) => (sequence * 31 + k * 7) & 0xff);

test('every rank reads every broadcast as published, in sequence, whatever the interleaving; a root waits only for readers of its slot', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 6 }),
      fc.integer({ min: 1, max: 3 * BCAST_SLOTS }),
      fc.array(fc.nat(), { minLength: 0, maxLength: 2000 }),
      fc.array(fc.integer({ min: 0, max: BCAST_SLOT_BYTES }), { minLength: 1, maxLength: 20 }),
      fc.nat(),
      (slots, count, picks, lengths, rootSeed) => {
        const sab = allocateControlArea(slots);
        // Each rank has its own view of the area, as each rank thread does.
        const views = Array.from({ length: slots }, () => new ControlArea(sab, slots));
        const rootOf = (n: number): number => (n * 5 + rootSeed) % slots;
        const lengthOf = (n: number): number => lengths[n % lengths.length]!;
        const next = new Array<number>(slots).fill(0);
        /** Readers that took broadcast n. */
        const took = new Map<number, number>();
        const act = (rank: number): boolean => {
          const n = next[rank]!;
          if (n >= count) return false;
          const view = views[rank]!;
          if (rootOf(n) === rank) {
            // The slot is free once every reader of the broadcast BCAST_SLOTS before took it.
            const free = n < BCAST_SLOTS || took.get(n - BCAST_SLOTS) === slots - 1;
            const published = view.publishBcast(n, rank, payload(n, lengthOf(n)), 0, lengthOf(n), lengthOf(n), 0, slots - 1);
            assert.equal(published, free, `broadcast ${n} from rank ${rank}: published ${published}, slot free ${free}`);
            if (published) next[rank]!++;
            return published;
          }
          const length = view.bcastLength(n);
          if (length < 0) return false;
          assert.equal(length, lengthOf(n));
          assert.equal(view.bcastRoot(n), rootOf(n));
          const into = new Uint8Array(length + 3).fill(0xee);
          view.takeBcast(n, into, 0, length);
          assert.deepEqual(into.subarray(0, length), payload(n, length), `rank ${rank} read broadcast ${n}`);
          assert.deepEqual([...into.subarray(length)], [0xee, 0xee, 0xee], 'nothing past the payload is written');
          took.set(n, (took.get(n) ?? 0) + 1);
          next[rank]!++;
          return true;
        };
        for (const pick of picks) act(pick % slots);
        // Then every rank in turn until all are through: some rank can always act.
        for (let rounds = 0; next.some((n) => n < count); rounds++) {
          assert.ok(rounds <= count * slots, `stuck at ${next.join(',')}`);
          let moved = false;
          for (let rank = 0; rank < slots; rank++) moved = act(rank) || moved;
          assert.ok(moved, `no rank can act at ${next.join(',')}`);
        }
        for (let n = 0; n < count; n++) assert.equal(took.get(n) ?? 0, slots - 1, `broadcast ${n} read by every other rank once`);
      },
    ),
    { numRuns: 150 },
  );
});

test('a publish wakes the ranks that sleep, and the last reader wakes a root waiting for the slot', () => {
  const slots = 3;
  const sab = allocateControlArea(slots);
  const views = Array.from({ length: slots }, () => new ControlArea(sab, slots));
  const bell = (slot: number): number => views[0]!.doorbell(slot);
  // Ranks 1 and 2 sleep; rank 0 publishes.
  views[1]!.setSleeping(1, true);
  views[2]!.setSleeping(2, true);
  const before = [bell(1), bell(2)];
  assert.equal(views[0]!.publishBcast(0, 0, payload(0, 8), 0, 8, 8, 0, 2), true);
  assert.deepEqual([bell(1), bell(2)], [before[0]! + 1, before[1]! + 1]);
  // Fill the ring from rank 0; the slot of broadcast 0 is then needed again.
  for (let n = 1; n < BCAST_SLOTS; n++) assert.equal(views[0]!.publishBcast(n, 0, payload(n, 8), 0, 8, 8, 0, 2), true);
  assert.equal(views[0]!.publishBcast(BCAST_SLOTS, 0, payload(BCAST_SLOTS, 8), 0, 8, 8, 0, 2), false);
  views[0]!.setSleeping(0, true);
  const rootBell = bell(0);
  views[1]!.takeBcast(0, new Uint8Array(8), 0, 8);
  assert.equal(bell(0), rootBell, 'one reader left: the root sleeps on');
  views[2]!.takeBcast(0, new Uint8Array(8), 0, 8);
  assert.equal(bell(0), rootBell + 1, 'the last reader woke the root');
  assert.equal(views[0]!.publishBcast(BCAST_SLOTS, 0, payload(BCAST_SLOTS, 8), 0, 8, 8, 0, 2), true);
});
