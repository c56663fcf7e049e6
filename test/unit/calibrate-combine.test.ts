/**
 * Repeated calibration runs combined by medians: one slow run among three changes nothing, and
 * runs that disagree on what they measured are refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { combineProbes, combineWakes, medianOf, type ProbeResult } from '../../src/calibrate/combine.ts';

const SIZES = [0, 16, 1024, 65536, 1048576];

function run(scale: number, cold: number[]): ProbeResult {
  return {
    figures: SIZES.map((bytes) => ({ bytes, oneWay: scale * (1e-6 + bytes * 1e-10), streamPeriod: scale * bytes * 5e-11, send: scale * 2e-7, recv: scale * 3e-7 })),
    speed: 1e9 / scale,
    eagerLimit: 65536,
    tcpEagerLimit: 65536,
    cold: cold.map((c) => c * scale),
    coldFrames: cold.map((_, k) => 200 * (k + 1)),
    polls: { test: scale * 3e-8, iprobe: scale * 6e-8 },
    link: { first: scale * 4e-3, warm: scale * 2e-4 },
    sleeping: { oneWay: scale * 4e-5, cpuPerRoundTrip: scale * 5e-5 },
    crowded: [{ ranksPerCore: 2, hop: scale * 6e-5 }, { ranksPerCore: 4, hop: scale * 9e-5 }],
    sizedCold: [2048, 65536].map((bytes) => ({ bytes, cold: cold.map((c) => c * scale * (bytes >> 10)), coldFrames: cold.map((_, k) => 100 * (k + 1)) })),
  };
}

test('one slow run among three is outvoted: every figure, chunk, poll and the speed are the steady runs\'', () => {
  fc.assert(
    fc.property(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), fc.integer({ min: 0, max: 2 }), fc.array(fc.double({ min: 1e-6, max: 1e-3, noNaN: true }), { minLength: 3, maxLength: 30 }), (slow, at, cold) => {
      const runs = [run(1, cold), run(1, cold)];
      runs.splice(at, 0, run(slow, cold));
      const { figures, ...rest } = combineProbes(runs);
      const { figures: steady, ...steadyRest } = run(1, cold);
      assert.deepEqual(rest, steadyRest);
      assert.deepEqual(
        figures.map(({ oneWayRuns: _runs, ...f }) => f),
        steady,
      );
      // Each run's one-way time is kept, in run order, the slow one included.
      assert.deepEqual(
        figures.map((f) => f.oneWayRuns),
        steady.map((f) => runs.map((r) => r.figures.find((g) => g.bytes === f.bytes)!.oneWay)),
      );
    }),
  );
});

test('the median of each figure over the runs, chunk by chunk over the shortest fresh curve', () => {
  const combined = combineProbes([run(1, [5, 4, 3, 2]), run(3, [5, 4, 3]), run(2, [5, 4, 3, 2, 1])]);
  assert.deepEqual(
    combined.figures.map(({ oneWayRuns: _runs, ...f }) => f),
    run(2, []).figures,
  );
  assert.deepEqual(combined.figures[1]!.oneWayRuns, [1, 3, 2].map((k) => k * (1e-6 + 16 * 1e-10)));
  assert.deepEqual(combined.cold, [10, 8, 6]);
  assert.deepEqual(combined.coldFrames, [200, 400, 600]);
  assert.equal(combined.speed, 5e8);
  assert.deepEqual(combined.polls, { test: 6e-8, iprobe: 12e-8 });
  assert.deepEqual(combined.link, { first: 8e-3, warm: 4e-4 });
  assert.deepEqual(combined.crowded, [{ ranksPerCore: 2, hop: 12e-5 }, { ranksPerCore: 4, hop: 18e-5 }]);
  // Each sized curve likewise, by its size, over the shortest.
  assert.deepEqual(combined.sizedCold, [
    { bytes: 2048, cold: [20, 16, 12], coldFrames: [100, 200, 300] },
    { bytes: 65536, cold: [640, 512, 384], coldFrames: [100, 200, 300] },
  ]);
  assert.equal(medianOf([4, 1, 3, 2]), 2.5);
});

test('runs that measured different sizes are refused, naming the size', () => {
  const short = { ...run(1, [1, 1, 1]), figures: run(1, []).figures.filter((f) => f.bytes !== 1024) };
  assert.throws(() => combineProbes([run(1, [1, 1, 1]), short]), /1024 B is missing/);
  assert.throws(() => combineProbes([]), /no probe run/);
});

test('wake-ups: the median sleeping one-way time and ring hop per ranks per core', () => {
  const w = (k: number) => ({ sleepingOneWay: 10e-6 * k, rings: [{ ranksPerCore: 2, hop: 50e-6 * k }, { ranksPerCore: 4, hop: 80e-6 * k }] });
  assert.deepEqual(combineWakes([w(1), w(40), w(1.5)]), w(1.5));
});
