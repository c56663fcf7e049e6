// The process's staging regions and staging barrier in the control area (control-block.ts): the
// regions lie after everything else, apart, inside the buffer, 4-256 KiB each, cut in the same
// two halves by every staged collective; the staging
// barrier counts apart from the world's barrier, so ranks entering one in any interleaving never
// release the other; each rank's staged shape is its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocateControlArea, BarrierCounter, ControlArea, stagingRegionBytes } from '../../src/transport/control-block.ts';
import { exchangeLayout } from '../../src/comm/staged-exchange.ts';
import { stagingHalfBytes } from '../../src/comm/staged-request.ts';

test('staging regions: one per rank and a result region, disjoint, inside the buffer, in whole pages of 4-256 KiB', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8192 }), (slots) => {
      const bytes = stagingRegionBytes(slots);
      assert.ok(bytes >= 4096 && bytes <= 256 * 1024 && bytes % 4096 === 0, `${slots} slots: ${bytes}`);
      // 4 MiB over the regions (the ranks' and the result's), unless the least region is more.
      assert.ok((slots + 1) * bytes <= Math.max(4 * 1024 * 1024, (slots + 1) * 4096), `${slots} slots: ${bytes} each`);
      if (slots <= 64) {
        const sab = allocateControlArea(slots);
        const area = new ControlArea(sab, slots);
        assert.equal(area.stagingBytes, bytes);
        for (let s = 0; s <= slots; s++) assert.equal(area.stagingOffset(s), area.stagingBase + s * bytes);
        assert.equal(area.stagingOffset(slots) + bytes, sab.byteLength);
      }
    }),
  );
});

test('the staging barrier and the world barrier count apart, whatever order the ranks enter them in', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 8 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 200 }), fc.array(fc.nat(), { minLength: 1, maxLength: 200 }), (slots, counters, picks) => {
      const sab = allocateControlArea(slots);
      const views = Array.from({ length: slots }, () => new ControlArea(sab, slots));
      // entered[counter][rank]: barriers of that counter the rank has entered; each rank enters
      // the next of a counter only once its previous one of that counter has passed.
      const entered = [new Array<number>(slots).fill(0), new Array<number>(slots).fill(0)];
      const waiting: (number | undefined)[][] = [new Array(slots).fill(undefined), new Array(slots).fill(undefined)];
      for (let step = 0; step < counters.length; step++) {
        const counter = counters[step]! ? BarrierCounter.Staging : BarrierCounter.World;
        const rank = picks[step % picks.length]! % slots;
        const generation = waiting[counter]![rank];
        if (generation !== undefined && !views[rank]!.barrierPassed(generation, counter)) continue;
        const next = views[rank]!.enterBarrier(rank, slots, counter);
        entered[counter]![rank]!++;
        waiting[counter]![rank] = next < 0 ? undefined : next;
        // A barrier of a counter is passed exactly when every rank has entered that many of it.
        for (const c of [BarrierCounter.World, BarrierCounter.Staging]) {
          for (let r = 0; r < slots; r++) {
            const g = waiting[c]![r];
            if (g === undefined) continue;
            const released = entered[c]!.every((n) => n >= entered[c]![r]!);
            assert.equal(views[r]!.barrierPassed(g, c), released, `counter ${c}, rank ${r}`);
          }
        }
      }
    }),
  );
});

test('each rank stages its own shape', () => {
  const sab = allocateControlArea(3);
  const views = [0, 1, 2].map(() => new ControlArea(sab, 3));
  views[0]!.setStaged(0, 800, 4);
  views[2]!.setStaged(2, 24, 7);
  assert.deepEqual([0, 1, 2].map((s) => [views[1]!.stagedBytes(s), views[1]!.stagedKind(s)]), [[800, 4], [0, 0], [24, 7]]);
});

test("a staged alltoallv's half region: a header of every rank's send bytes, then a 64-byte-aligned slot per rank inside the half, or none where a slot would be under 64 bytes", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 4096 }), (size) => {
      const regionBytes = stagingRegionBytes(size);
      const { halfBytes, headerBytes, slotBytes } = exchangeLayout(regionBytes, size);
      assert.ok(2 * halfBytes <= regionBytes);
      assert.ok(headerBytes >= 4 * (size + 1) && headerBytes % 64 === 0);
      assert.equal(slotBytes % 64, 0);
      if (slotBytes === 0) {
        assert.ok(headerBytes + size * 64 > halfBytes, `${size} ranks: a slot of 64 bytes would fit`);
        return;
      }
      assert.ok(headerBytes + size * slotBytes <= halfBytes);
      // The largest aligned slot: one more 64 bytes per rank would not fit.
      assert.ok(headerBytes + size * (slotBytes + 64) > halfBytes);
    }),
  );
  // 8 ranks: 256 KiB regions, halves of 128 KiB, 16,320-byte slots after a 64-byte header.
  // 1000 ranks: regions of 4 KiB (the least).
  assert.deepEqual(exchangeLayout(stagingRegionBytes(8), 8), { halfBytes: 131072, headerBytes: 64, slotBytes: 16320 });
  assert.equal(stagingRegionBytes(1000), 4096);
});

test("every staged collective cuts a region into the same two halves: the exchange's are the shared cut, 64-byte aligned, the second ending inside the region", () => {
  // Rounds of consecutive calls alternate halves; a half of another size would overlap the half a
  // slower rank still reads (a gather's 128 KiB halves of a 1 MiB region, tried once, corrupted an alltoallv).
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8192 }), fc.integer({ min: 1, max: 64 }), (slots, size) => {
      const regionBytes = stagingRegionBytes(slots);
      const half = stagingHalfBytes(regionBytes);
      assert.equal(exchangeLayout(regionBytes, size).halfBytes, half);
      assert.ok(half % 64 === 0 && 2 * half <= regionBytes && 2 * (half + 64) > regionBytes, `${regionBytes}: halves of ${half}`);
    }),
  );
});
