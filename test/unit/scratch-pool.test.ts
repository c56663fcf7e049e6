// The scratch pool hands out buffers large enough, never one buffer to two holders, keeps
// buffers of every size for reuse within its caps, and the allocator defaults a launcher adds yield to the user's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ScratchPool } from '../../src/comm/scratch-pool.ts';
import { withAllocatorDefaults } from '../../src/bootstrap/allocator-env.ts';

const KIB = 1024;

test('scratch pool: random take/give sequences never share a buffer and respect the caps', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.record({ take: fc.integer({ min: 1, max: 3 * 1024 * KIB }) }), fc.record({ give: fc.nat() })), { minLength: 1, maxLength: 200 }),
      (ops) => {
        const pool = new ScratchPool();
        const out: ArrayBuffer[] = [];
        const everGiven = new Set<ArrayBuffer>();
        for (const op of ops) {
          if ('take' in op) {
            const buffer = pool.take(op.take);
            assert.ok(buffer.byteLength >= op.take, `asked for ${op.take} bytes, got ${buffer.byteLength}`);
            assert.ok(!out.includes(buffer), 'a buffer still held was handed out again');
            out.push(buffer);
          } else if (out.length > 0) {
            const [buffer] = out.splice(op.give % out.length, 1);
            pool.give(buffer!);
            everGiven.add(buffer!);
          }
        }
      },
    ),
  );
});

test('scratch pool: a given-back buffer comes back for a take of its size class, small ones too', () => {
  const pool = new ScratchPool();
  const large = pool.take(600 * KIB);
  assert.equal(large.byteLength, 1024 * KIB, 'sizes round up to a power of two');
  pool.give(large);
  assert.equal(pool.take(1000 * KIB), large);
  assert.notEqual(pool.take(1000 * KIB), large, 'the pool had one such buffer, already taken');
  const small = pool.take(1000);
  assert.equal(small.byteLength, 1024);
  pool.give(small);
  assert.equal(pool.take(1000), small);
  assert.equal(pool.take(1).byteLength, 64, 'the smallest class is 64 bytes');
  const odd = new ArrayBuffer(1000);
  pool.give(odd);
  assert.notEqual(pool.take(1000), odd, 'take hands out size classes only');
  assert.equal(pool.takeExact(1000), odd, 'takeExact hands out a buffer of that exact length');
  assert.equal(pool.takeExact(1000).byteLength, 1000, 'and makes one when none is kept');
});

test('scratch pool: takeExact gives exactly the length asked, never one buffer to two holders', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.record({ take: fc.integer({ min: 1, max: 5000 }) }), fc.record({ give: fc.nat() })), { maxLength: 200 }), (ops) => {
      const pool = new ScratchPool();
      const out: ArrayBuffer[] = [];
      for (const op of ops) {
        if ('take' in op) {
          const buffer = pool.takeExact(op.take);
          assert.equal(buffer.byteLength, op.take);
          assert.ok(!out.includes(buffer), 'a buffer still held was handed out again');
          out.push(buffer);
        } else if (out.length > 0) pool.give(out.splice(op.give % out.length, 1)[0]!);
      }
    }),
  );
});

test('scratch pool: keeps at most 256 distinct lengths', () => {
  const pool = new ScratchPool();
  const buffers = Array.from({ length: 300 }, (_, i) => pool.takeExact(1000 + i));
  for (const buffer of buffers) pool.give(buffer);
  const again = Array.from({ length: 300 }, (_, i) => pool.takeExact(1000 + i));
  assert.equal(again.filter((b, i) => b === buffers[i]).length, 256);
});

test('scratch pool: keeps 4 buffers per large class, up to 1 MiB of a small class (at most 64), and 64 MiB in all', () => {
  const kept = (bytes: number, count: number): number => {
    const pool = new ScratchPool();
    const taken = Array.from({ length: count }, () => pool.take(bytes));
    for (const buffer of taken) pool.give(buffer);
    const again = Array.from({ length: count }, () => pool.take(bytes));
    return again.filter((b) => taken.includes(b)).length;
  };
  assert.equal(kept(256 * KIB, 5), 4);
  assert.equal(kept(64 * KIB, 20), 16);
  assert.equal(kept(64, 100), 64);
  const pool = new ScratchPool();
  const big = Array.from({ length: 3 }, () => pool.take(32 * 1024 * KIB));
  for (const buffer of big) pool.give(buffer);
  const bigAgain = Array.from({ length: 3 }, () => pool.take(32 * 1024 * KIB));
  assert.equal(bigAgain.filter((b) => big.includes(b)).length, 2, 'two 32 MiB buffers fill the 64 MiB cap');
});

test('allocator defaults: added when unset, the user\'s value wins, the rest of the environment kept', () => {
  const env = withAllocatorDefaults({ PATH: '/bin', MALLOC_TRIM_THRESHOLD_: '1' });
  assert.equal(env.PATH, '/bin');
  assert.equal(env.MALLOC_TRIM_THRESHOLD_, '1');
  assert.equal(env.MALLOC_MMAP_THRESHOLD_, String(64 * 1024 * 1024));
  const input = { HOME: '/root' };
  const withDefaults = withAllocatorDefaults(input);
  assert.equal(withDefaults.MALLOC_TRIM_THRESHOLD_, String(256 * 1024 * 1024));
  assert.deepEqual(input, { HOME: '/root' }, 'the input is not changed');
});
