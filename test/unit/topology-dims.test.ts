// Process topologies without communication: computeDims (MPI_Dims_create) against its contract
// and a brute-force search for the most balanced grid, and the Cartesian arithmetic (row-major
// ranks, wrapping, shifts, neighbours) against a direct reference.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { PROC_NULL } from '../../src/comm/matching.ts';
import { computeDims } from '../../src/comm/topology/dims.ts';
import { CartGeometry } from '../../src/comm/topology/cart-geometry.ts';

const product = (xs: readonly number[]): number => xs.reduce((p, x) => p * x, 1);
const nonIncreasing = (xs: readonly number[]): boolean => xs.every((x, i) => i === 0 || xs[i - 1]! >= x);

/** Every non-increasing factorisation of m into k factors (brute force, small m). */
function factorisations(m: number, k: number, cap = m): number[][] {
  if (k === 0) return m === 1 ? [[]] : [];
  const out: number[][] = [];
  for (let f = Math.min(cap, m); f >= 1; f--) {
    if (m % f === 0) for (const rest of factorisations(m / f, k - 1, f)) out.push([f, ...rest]);
  }
  return out;
}

function expectArgError(fn: () => unknown, operation: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof TsmpiError, String(error));
    assert.equal(error.code, ErrorCode.Arg);
    assert.equal(error.operation, operation);
    assert.ok(error.hint.length > 0);
    return true;
  });
}

test('computeDims: the examples of the MPI standard and a few more', () => {
  assert.deepStrictEqual(computeDims(6, 2), [3, 2]);
  assert.deepStrictEqual(computeDims(7, 2), [7, 1]);
  assert.deepStrictEqual(computeDims(6, [0, 3, 0]), [2, 3, 1]);
  expectArgError(() => computeDims(7, [0, 3, 0]), 'computeDims');
  assert.deepStrictEqual(computeDims(12, 3), [3, 2, 2]);
  assert.deepStrictEqual(computeDims(16, 4), [2, 2, 2, 2]);
  assert.deepStrictEqual(computeDims(24, [0, 2, 0]), [4, 2, 3]);
  assert.deepStrictEqual(computeDims(1, 3), [1, 1, 1]);
  assert.deepStrictEqual(computeDims(1, 0), []);
  assert.deepStrictEqual(computeDims(64, [4, 4, 4]), [4, 4, 4]);
  assert.deepStrictEqual(computeDims(1024, 3), [16, 8, 8]);
});

test('computeDims: impossible or malformed requests are ERR_ARG naming computeDims', () => {
  expectArgError(() => computeDims(0, 2), 'computeDims');
  expectArgError(() => computeDims(2.5, 2), 'computeDims');
  expectArgError(() => computeDims(4, -1), 'computeDims');
  expectArgError(() => computeDims(4, 0), 'computeDims');
  expectArgError(() => computeDims(6, [4, 0]), 'computeDims');
  expectArgError(() => computeDims(6, [2, 2]), 'computeDims');
  expectArgError(() => computeDims(6, [2, -1]), 'computeDims');
  expectArgError(() => computeDims(6, [2, 1.5] as number[]), 'computeDims');
});

test('computeDims(n, ndims): the product is n, non-increasing, as balanced as any factorisation', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 4 }), (n, k) => {
      const dims = computeDims(n, k);
      assert.equal(dims.length, k);
      assert.equal(product(dims), n);
      assert.ok(nonIncreasing(dims), `${dims}`);
      const spread = dims[0]! - dims[k - 1]!;
      const best = Math.min(...factorisations(n, k).map((f) => f[0]! - f[k - 1]!));
      assert.equal(spread, best, `computeDims(${n}, ${k}) = [${dims}], a spread of ${best} exists`);
    }),
    { numRuns: 400 },
  );
});

test('computeDims: large rank counts and many dimensions stay quick and exact', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 1, max: 8 }), (n, k) => {
      const dims = computeDims(n, k);
      assert.equal(product(dims), n);
      assert.ok(nonIncreasing(dims));
    }),
    { numRuns: 200 },
  );
  assert.deepStrictEqual(computeDims(2 ** 20, 20), new Array(20).fill(2));
});

test('computeDims(n, dims): fixed entries kept, zeros filled non-increasing, product n', () => {
  const entry = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 }));
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 120 }), (given, free) => {
      const zeros = given.filter((d) => d === 0).length;
      const n = product(given.filter((d) => d > 0)) * (zeros > 0 ? free : 1);
      const dims = computeDims(n, given);
      assert.equal(dims.length, given.length);
      assert.equal(product(dims), n);
      given.forEach((d, i) => {
        if (d > 0) assert.equal(dims[i], d, `fixed entry ${i} of [${given}] changed: [${dims}]`);
      });
      assert.ok(nonIncreasing(dims.filter((_, i) => given[i] === 0)), `[${given}] -> [${dims}]`);
    }),
    { numRuns: 400 },
  );
});

/** The reference: coordinates of rank r in a row-major grid, computed digit by digit. */
function referenceCoords(dims: readonly number[], rank: number): number[] {
  const coords = new Array<number>(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    coords[d] = rank % dims[d]!;
    rank = Math.floor(rank / dims[d]!);
  }
  return coords;
}

function referenceRank(dims: readonly number[], coords: readonly number[]): number {
  let rank = 0;
  for (let d = 0; d < dims.length; d++) rank = rank * dims[d]! + coords[d]!;
  return rank;
}

/** The rank `disp` steps along `direction` from `rank`, or PROC_NULL off a non-periodic edge. */
function referenceStep(dims: readonly number[], periods: readonly boolean[], rank: number, direction: number, disp: number): number {
  const coords = referenceCoords(dims, rank);
  let c = coords[direction]! + disp;
  if (periods[direction]) {
    while (c < 0) c += dims[direction]!;
    while (c >= dims[direction]!) c -= dims[direction]!;
  } else if (c < 0 || c >= dims[direction]!) {
    return PROC_NULL;
  }
  coords[direction] = c;
  return referenceRank(dims, coords);
}

const grid = fc
  .array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 })
  .chain((dims) => fc.tuple(fc.constant(dims), fc.array(fc.boolean(), { minLength: dims.length, maxLength: dims.length })));

test('cart: rank <-> coords round trip in row-major order; periodic coordinates wrap', () => {
  fc.assert(
    fc.property(grid, fc.integer({ min: -3, max: 3 }), ([dims, periods], wraps) => {
      const g = new CartGeometry(dims, periods);
      assert.equal(g.size, product(dims));
      for (let r = 0; r < g.size; r++) {
        const coords = g.coordsOf(r);
        assert.deepStrictEqual(coords, referenceCoords(dims, r));
        assert.equal(g.rankOf(coords), r);
        const shifted = coords.map((c, d) => (periods[d] ? c + wraps * dims[d]! : c));
        assert.equal(g.rankOf(shifted), r);
      }
    }),
    { numRuns: 200 },
  );
});

test('cart: a non-periodic coordinate off the grid, a bad rank or direction are errors', () => {
  const g = new CartGeometry([3, 4], [true, false]);
  assert.equal(g.rankOf([-1, 2]), g.rankOf([2, 2]));
  expectArgError(() => g.rankOf([0, 4]), 'cartRank');
  expectArgError(() => g.rankOf([0, -1]), 'cartRank');
  expectArgError(() => g.rankOf([0]), 'cartRank');
  expectArgError(() => g.shift(0, 2, 1), 'shift');
  expectArgError(() => g.shift(0, 0, 0.5), 'shift');
  assert.throws(() => g.coordsOf(12), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Rank);
});

test('cart: shift and neighbours agree with the reference, PROC_NULL at non-periodic edges', () => {
  fc.assert(
    fc.property(grid, fc.integer({ min: -7, max: 7 }), ([dims, periods], disp) => {
      const g = new CartGeometry(dims, periods);
      for (let r = 0; r < g.size; r++) {
        for (let d = 0; d < dims.length; d++) {
          const { source, dest } = g.shift(r, d, disp);
          assert.equal(dest, referenceStep(dims, periods, r, d, disp), `dest of ${r} along ${d} by ${disp} in [${dims}] [${periods}]`);
          assert.equal(source, referenceStep(dims, periods, r, d, -disp));
        }
        const expected = dims.flatMap((_, d) => [referenceStep(dims, periods, r, d, -1), referenceStep(dims, periods, r, d, 1)]);
        assert.deepStrictEqual(g.neighbors(r), expected);
      }
    }),
    { numRuns: 200 },
  );
});

test('cart: a grid without dimensions has one rank and no neighbours', () => {
  const g = new CartGeometry([], []);
  assert.equal(g.size, 1);
  assert.deepStrictEqual(g.coordsOf(0), []);
  assert.equal(g.rankOf([]), 0);
  assert.deepStrictEqual(g.neighbors(0), []);
});
