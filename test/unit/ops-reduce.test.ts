// Reduction operations: elementwise results against a scalar reference, MPI's tie rule for
// minloc/maxloc, and the errors a user can cause.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { Op, combinerTo, inPlaceCombiner, inPlaceCombinerOnto, type BuiltinOp } from '../../src/comm/ops.ts';
import { SIMD_FROM_ELEMENTS } from '../../src/comm/op-kernels.ts';

const scalar: Record<string, (a: number, b: number) => number> = {
  sum: (a, b) => a + b,
  prod: (a, b) => a * b,
  // Of equal operands (0 and -0) the first: MPI leaves the choice open.
  min: (a, b) => (b < a ? b : a),
  max: (a, b) => (b > a ? b : a),
  band: (a, b) => a & b,
  bor: (a, b) => a | b,
  land: (a, b) => (a && b ? 1 : 0),
  lor: (a, b) => (a || b ? 1 : 0),
  lxor: (a, b) => (!a !== !b ? 1 : 0),
  bxor: (a, b) => a ^ b,
};

type NumberArrayCtor = { new (length: number): Int32Array; of(...xs: number[]): Int32Array; name: string };
const numberKinds = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array] as unknown as NumberArrayCtor[];

test('ops: each kind of typed array combines in place as its element stores would (own loop per op and kind)', () => {
  // Kinds and ops in a random order, so a loop compiled for one kind is never reused for another.
  const case_ = fc.record({
    op: fc.constantFrom(...Object.keys(scalar)),
    kind: fc.constantFrom(...numberKinds),
    pairs: fc.array(fc.tuple(fc.double({ min: -70000, max: 70000, noNaN: true }), fc.double({ min: -70000, max: 70000, noNaN: true })), { maxLength: 20 }),
  });
  fc.assert(
    fc.property(case_, ({ op: name, kind, pairs }) => {
      const op = (Op as unknown as Record<string, BuiltinOp>)[name]!;
      const f = scalar[name]!;
      const a = new kind(pairs.length);
      const b = new kind(pairs.length);
      pairs.forEach(([x, y], i) => ((a[i] = x), (b[i] = y)));
      const expected = new kind(pairs.length);
      for (let i = 0; i < pairs.length; i++) expected[i] = f(a[i]!, b[i]!);
      inPlaceCombiner(op)!(a, b);
      assert.deepStrictEqual(a, expected, `${name} on ${kind.name}`);
    }),
    { numRuns: 400 },
  );
  const big = BigInt64Array.of(2n ** 63n - 1n, -5n);
  inPlaceCombiner(Op.sum)!(big, BigInt64Array.of(1n, 7n));
  assert.deepStrictEqual(big, BigInt64Array.of(-(2n ** 63n), 2n), 'bigint sums wrap as BigInt64Array stores do');
  const ubig = BigUint64Array.of(6n);
  inPlaceCombiner(Op.bxor)!(ubig, BigUint64Array.of(3n));
  assert.deepStrictEqual(ubig, BigUint64Array.of(5n));
});

test('ops: long arrays (WebAssembly lane loops where an op and kind have one) combine to the scalar loop\'s values, into either operand or a third array', () => {
  type Kind = { new (length: number): ArrayLike<number | bigint> & { [i: number]: number | bigint }; name: string };
  const kinds = [...numberKinds, BigInt64Array, BigUint64Array] as unknown as Kind[];
  const bigScalar: Record<string, (a: bigint, b: bigint) => bigint> = { sum: (a, b) => a + b, prod: (a, b) => a * b, min: (a, b) => (b < a ? b : a), band: (a, b) => a & b, bor: (a, b) => a | b, bxor: (a, b) => a ^ b };
  // Values the lanes could get wrong: signed zeros, infinities, NaN, wrap-around and large products.
  const specials = [0, -0, 1, -1, 0.5, 255, 256, 65535, 2 ** 31 - 1, -(2 ** 31), 2 ** 32 - 1, 3.4e38, -3.4e38, 1e-45, Infinity, -Infinity, NaN, 1.7976931348623157e308];
  const case_ = fc.record({
    op: fc.constantFrom('sum', 'prod', 'band', 'bor', 'bxor', 'min'),
    kind: fc.constantFrom(...kinds),
    // Across the threshold, a chunk's length (32 KiB of elements) and tails of every lane count.
    length: fc.oneof(fc.integer({ min: SIMD_FROM_ELEMENTS - 3, max: SIMD_FROM_ELEMENTS + 40 }), fc.integer({ min: 4090, max: 4200 }), fc.integer({ min: 16380, max: 33000 })),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    target: fc.constantFrom('a', 'b', 'third'),
  });
  fc.assert(
    fc.property(case_, ({ op: name, kind, length, seed, target }) => {
      const big = kind === (BigInt64Array as unknown) || kind === (BigUint64Array as unknown);
      let state = seed;
      const next = (): number => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return state;
      };
      const value = (): number | bigint => {
        const r = next();
        if (big) return (BigInt(r) << 33n) ^ BigInt(next()) ^ (r & 1 ? -1n << 62n : 0n);
        return r % 7 === 0 ? specials[r % specials.length]! : ((r / 2 ** 32) - 0.5) * 2 ** (r % 40);
      };
      const a = new kind(length);
      const b = new kind(length);
      for (let i = 0; i < length; i++) ((a[i] = value()), (b[i] = value()));
      const expected = new kind(length);
      const f = (big ? bigScalar[name] : scalar[name]) as unknown as (x: number | bigint, y: number | bigint) => number | bigint;
      for (let i = 0; i < length; i++) expected[i] = f(a[i]!, b[i]!);
      const into = target === 'a' ? a : target === 'b' ? b : new kind(length);
      combinerTo((Op as unknown as Record<string, BuiltinOp>)[name]!)!(into as never, a as never, b as never);
      for (let i = 0; i < length; i++) {
        if (!Object.is(into[i], expected[i])) assert.fail(`${name} on ${kind.name}(${length}) into ${target}: element ${i} is ${into[i]}, the scalar op gives ${expected[i]}`);
      }
    }),
    { numRuns: 120 },
  );
});

test('ops: typed arrays reduce elementwise like the scalar op', () => {
  for (const [name, f] of Object.entries(scalar)) {
    const op = (Op as unknown as Record<string, BuiltinOp>)[name]!;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -1000, max: 1000 })), { maxLength: 40 }), (pairs) => {
        const a = Int32Array.from(pairs, (p) => p[0]);
        const b = Int32Array.from(pairs, (p) => p[1]);
        const before = a.slice();
        const out = op.combine(a, b) as Int32Array;
        assert.deepStrictEqual(Array.from(out), pairs.map(([x, y]) => f(x, y) | 0), name);
        assert.deepStrictEqual(a, before, `${name} does not modify its left operand`);
        assert.equal(op.combine(pairs[0]?.[0] ?? 1, pairs[0]?.[1] ?? 2), f(pairs[0]?.[0] ?? 1, pairs[0]?.[1] ?? 2));
      }),
      { numRuns: 50 },
    );
  }
});

test('ops: bigints, booleans and nested arrays', () => {
  assert.equal(Op.sum.combine(2n ** 70n, 1n), 2n ** 70n + 1n);
  assert.deepStrictEqual(Op.max.combine(BigInt64Array.of(1n, 5n), BigInt64Array.of(3n, 2n)), BigInt64Array.of(3n, 5n));
  assert.equal(Op.land.combine(true, false), false);
  assert.equal(Op.lor.combine(false, true), true);
  assert.deepStrictEqual(Op.sum.combine([1, [2, 3]], [10, [20, 30]]), [11, [22, 33]]);
  const combineInto = inPlaceCombiner(Op.sum)!;
  const target = Float64Array.of(1, 2);
  combineInto(target, Float64Array.of(0.5, 0.5));
  assert.deepStrictEqual(target, Float64Array.of(1.5, 2.5));
});

test('ops: minloc and maxloc keep the lowest index on ties', () => {
  assert.deepStrictEqual(Op.minloc.combine({ value: 1, index: 4 }, { value: 1, index: 2 }), { value: 1, index: 2 });
  assert.deepStrictEqual(Op.minloc.combine({ value: 0, index: 9 }, { value: 1, index: 2 }), { value: 0, index: 9 });
  assert.deepStrictEqual(Op.maxloc.combine({ value: 7, index: 3 }, { value: 7, index: 1 }), { value: 7, index: 1 });
  assert.deepStrictEqual(Op.maxloc.combine([{ value: 1, index: 0 }], [{ value: 2, index: 1 }]), [{ value: 2, index: 1 }]);
});

test('ops: user ops carry their commutativity', () => {
  const concat = Op.create((a: string, b: string) => a + b);
  assert.equal(concat.commutative, false);
  assert.equal(concat.combine('a', 'b'), 'ab');
  assert.equal(Op.create((a: number, b: number) => a + b, { commutative: true }).commutative, true);
  assert.throws(() => Op.create('nope' as unknown as (a: number, b: number) => number), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Arg);
});

test('ops: misuse throws ERR_OP or ERR_COUNT with a hint', () => {
  const cases: [string, () => unknown, string][] = [
    ['sum of strings', () => Op.sum.combine('a', 'b'), ErrorCode.Op],
    ['sum of a number and a bigint', () => Op.sum.combine(1, 2n), ErrorCode.Op],
    ['band of floats arrays of different kinds', () => Op.band.combine(Float64Array.of(1), Int32Array.of(1)), ErrorCode.Count],
    ['sum of arrays of different lengths', () => Op.sum.combine([1, 2], [1]), ErrorCode.Count],
    ['minloc of numbers', () => Op.minloc.combine(1, 2), ErrorCode.Op],
  ];
  for (const [what, fn, code] of cases) {
    assert.throws(fn, (e: unknown) => e instanceof TsmpiError && e.code === code && e.hint.length > 0, what);
  }
});

test('in-place combiners: onto puts the source first, into the target, to the bit (property)', () => {
  // -0, NaN and ties make max and min depend on the order; sum of floats rounds the same both ways.
  const element = fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, 1, -1));
  const bits = (a: Float64Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');
  for (const name of ['sum', 'max', 'min', 'replace', 'noOp'] as const) {
    const op = Op[name];
    const into = inPlaceCombiner(op)!;
    const onto = inPlaceCombinerOnto(op)!;
    fc.assert(
      fc.property(fc.array(fc.tuple(element, element), { minLength: 1, maxLength: 16 }), (pairs) => {
        const first = Float64Array.from(pairs, ([a]) => a);
        const second = Float64Array.from(pairs, ([, b]) => b);
        const viaOnto = second.slice();
        onto(viaOnto, first);
        const viaInto = first.slice();
        into(viaInto, second);
        assert.equal(bits(viaOnto), bits(viaInto), name);
      }),
    );
  }
  // The order shows: max(-0, +0) keeps the first.
  const t = Float64Array.of(0);
  inPlaceCombinerOnto(Op.max)!(t, Float64Array.of(-0));
  assert.ok(Object.is(t[0], -0));
});
