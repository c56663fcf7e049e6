// The process's staging regions and staging barrier in the control area (control-block.ts): the
// regions lie after everything else, apart, inside the buffer, 4 KiB-1 MiB each (a gather or
// reduction fills 4-256 KiB of one a round); the staging
// barrier counts apart from the world's barrier, so ranks entering one in any interleaving never
// release the other; each rank's staged shape is its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocateControlArea, BarrierCounter, ControlArea, stagingRegionBytes, stagingRoundBytes } from '../../src/transport/control-block.ts';
import { exchangeLayout } from '../../src/comm/staged-exchange.ts';

test('staging regions: one per rank and a result region, disjoint, inside the buffer, in whole pages of 4 KiB-1 MiB; a round of a gather or reduction within its region', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8192 }), (slots) => {
      const bytes = stagingRegionBytes(slots);
      assert.ok(bytes >= 4096 && bytes <= 1024 * 1024 && bytes % 4096 === 0, `${slots} slots: ${bytes}`);
      // 16 MiB over the regions (the ranks' and the result's), unless the least region is more.
      assert.ok((slots + 1) * bytes <= Math.max(16 * 1024 * 1024, (slots + 1) * 4096), `${slots} slots: ${bytes} each`);
      const round = stagingRoundBytes(slots);
      assert.ok(round >= 4096 && round <= 256 * 1024 && round % 4096 === 0 && round <= bytes, `${slots} slots: rounds of ${round} in regions of ${bytes}`);
      if (slots <= 64) {
        const sab = allocateControlArea(slots);
        const area = new ControlArea(sab, slots);
        assert.equal(area.stagingBytes, bytes);
        assert.equal(area.stagingRoundBytes, round);
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
  // 8 ranks: 1 MiB regions, halves of 512 KiB, 65,472-byte slots after a 64-byte header (a 1 MiB
  // alltoall's 128 KiB blocks in 3 rounds); a gather or reduction fills 256 KiB of a region a round.
  assert.deepEqual(exchangeLayout(stagingRegionBytes(8), 8), { halfBytes: 524288, headerBytes: 64, slotBytes: 65472 });
  assert.equal(stagingRoundBytes(8), 256 * 1024);
  // 1000 ranks: regions of 16 KiB (16 MiB over 1001), rounds of 4 KiB (the least).
  assert.deepEqual([stagingRegionBytes(1000), stagingRoundBytes(1000)], [16384, 4096]);
});
