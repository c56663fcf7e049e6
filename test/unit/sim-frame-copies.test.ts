/**
 * The simulated links' payload copies: each stays as it was copied until the receiver releases
 * it, whatever the sender writes meanwhile and whatever else is copied; released copies are
 * reused for later frames of the same length. And the simulation's second V8 gets the young
 * generation of the ranks it hosts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FrameCopies } from '../../src/sim/frame-copies.ts';
import { serialV8Flags } from '../../src/sim/simulate.ts';

type Step = { kind: 'copy'; length: number; offset: number; seed: number } | { kind: 'release'; pick: number } | { kind: 'scribble'; seed: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('copy' as const), length: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 64 }), weight: 1 }, { arbitrary: fc.constantFrom(1024, 4096), weight: 3 }), offset: fc.integer({ min: 0, max: 16 }), seed: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('scribble' as const), seed: fc.integer({ min: 0, max: 255 }) }),
);

test('a copy keeps the bytes it was made of until it is released, and released copies come back', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      const copies = new FrameCopies();
      // One sender buffer, rewritten between frames as a program reuses its send buffer.
      const source = new Uint8Array(4096 + 16);
      const lent: { bytes: Uint8Array; expected: Uint8Array }[] = [];
      const released = new Set<Uint8Array>();
      for (const s of steps) {
        if (s.kind === 'scribble') source.fill(s.seed);
        else if (s.kind === 'copy') {
          for (let i = 0; i < source.length; i++) source[i] = (s.seed + i * 7) & 0xff;
          const bytes = copies.copy(source, s.offset, s.length);
          assert.equal(bytes.length, s.length);
          // A copy in use is never handed out twice.
          assert.ok(!lent.some((l) => l.bytes === bytes));
          // A large copy reuses a released one of its length when there is one.
          const spare = [...released].find((r) => r.length === s.length);
          if (s.length >= 1024 && spare !== undefined) assert.ok(released.has(bytes));
          released.delete(bytes);
          lent.push({ bytes, expected: source.slice(s.offset, s.offset + s.length) });
        } else if (lent.length > 0) {
          const [gone] = lent.splice(s.pick % lent.length, 1);
          copies.release(gone!.bytes);
          if (gone!.bytes.length >= 1024) released.add(gone!.bytes);
        }
        for (const l of lent) assert.deepEqual(l.bytes, l.expected);
      }
    }),
    { numRuns: 300 },
  );
});

test('small payloads are plain copies, and releasing what was not lent keeps nothing', () => {
  const copies = new FrameCopies();
  const small = copies.copy(new Uint8Array([1, 2, 3]), 1, 2);
  assert.deepEqual([...small], [2, 3]);
  copies.release(small);
  copies.release(new Uint8Array(4096));
  assert.equal(copies.held, 0);
  const big = copies.copy(new Uint8Array(2048).fill(9), 0, 2048);
  copies.release(big);
  copies.release(big);
  assert.equal(copies.held, 2048);
});

test('the simulation hosting N ranks in one heap gets a young generation N ranks would have, up to 64 MiB', () => {
  const semi = (np: number, execArgv: string[] = []): string[] => serialV8Flags({ np }, execArgv);
  assert.deepEqual(semi(1), ['--single-threaded', '--max-semi-space-size=16']);
  assert.deepEqual(semi(2), ['--single-threaded', '--max-semi-space-size=32']);
  assert.deepEqual(semi(8), ['--single-threaded', '--max-semi-space-size=64']);
  // The user's own choice stands.
  assert.deepEqual(semi(8, ['--max-semi-space-size=8']), ['--single-threaded']);
});
