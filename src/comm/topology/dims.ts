/**
 * computeDims (MPI_Dims_create): a balanced grid for `nnodes` ranks. The free dimensions get the
 * factorisation of what the fixed ones leave whose largest and smallest factors differ least
 * (MPICH's rule), in non-increasing order; fixed (non-zero) entries stay where they are.
 */
import { ErrorCode, TsmpiError } from '../../errors.js';

const OPERATION = 'computeDims';

function argError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { operation: OPERATION, hint });
}

/**
 * Dimensions of a Cartesian grid of `nnodes` ranks: `ndims` balanced sizes, or `dims` with its
 * zero entries filled and its non-zero entries kept. The product of the result is `nnodes`.
 * @throws {TsmpiError} ERR_ARG when no such grid exists (the fixed entries do not divide nnodes)
 * @example
 * ```ts
 * computeDims(12, 2);         // [4, 3]
 * computeDims(24, [0, 2, 0]); // [4, 2, 3]
 * const cart = await comm.createCart(computeDims(comm.size, 2));
 * ```
 */
export function computeDims(nnodes: number, dims: number | readonly number[]): number[] {
  if (!Number.isSafeInteger(nnodes) || nnodes < 1) throw argError(`nnodes ${String(nnodes)} is not a positive integer`, 'pass the number of ranks, e.g. comm.size');
  let given: number[];
  if (typeof dims === 'number') {
    if (!Number.isSafeInteger(dims) || dims < 0) throw argError(`ndims ${String(dims)} is not a non-negative integer`, 'pass the number of dimensions, or an array of sizes with 0 for the free ones');
    given = new Array<number>(dims).fill(0);
  } else if (Array.isArray(dims) && dims.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    given = [...dims];
  } else {
    throw argError(`dims ${JSON.stringify(dims)} is not an array of non-negative integers`, 'pass sizes >= 1 for the fixed dimensions and 0 for the free ones');
  }
  const fixed = given.reduce((product, d) => (d > 0 ? product * d : product), 1);
  const free = given.filter((d) => d === 0).length;
  if (nnodes % fixed !== 0 || (free === 0 && fixed !== nnodes)) {
    throw argError(
      `the fixed dimensions [${given.join(', ')}] (product ${fixed}) cannot make a grid of ${nnodes} ranks`,
      free === 0 ? `make the sizes multiply to ${nnodes}, or leave some 0 to be filled` : `make the product of the non-zero entries divide ${nnodes}`,
    );
  }
  const factors = balancedFactors(nnodes / fixed, free);
  let next = 0;
  return given.map((d) => (d > 0 ? d : factors[next++]!));
}

/**
 * `m` as a product of `k` factors in non-increasing order, the largest and smallest as close as
 * possible (ties: the smaller largest factor). An exhaustive search over divisors, pruned by the
 * best spread found so far: grids have few dimensions and rank counts have few divisors.
 */
export function balancedFactors(m: number, k: number): number[] {
  if (k === 0) return [];
  const divisors = divisorsOf(m).reverse();
  let best: number[] = [];
  let bestSpread = Infinity;
  const current: number[] = [];
  const search = (rest: number, slots: number, cap: number): void => {
    if (slots === 1) {
      if (rest > cap) return;
      const spread = current.length === 0 ? 0 : current[0]! - rest;
      if (spread < bestSpread || (spread === bestSpread && (current[0] ?? rest) < (best[0] ?? Infinity))) {
        bestSpread = spread;
        best = [...current, rest];
      }
      return;
    }
    for (const f of divisors) {
      if (f > cap || rest % f !== 0) continue;
      // Factors come largest first: once f^slots < rest the rest cannot fit under f, and once
      // the spread down to f is no better than the best, smaller f only widen it.
      if (f ** slots < rest) break;
      if (current.length > 0 && current[0]! - f > bestSpread) break;
      current.push(f);
      search(rest / f, slots - 1, f);
      current.pop();
    }
  };
  search(m, k, m);
  return best;
}

/** The divisors of `m` (m >= 1) in increasing order. */
function divisorsOf(m: number): number[] {
  const small: number[] = [];
  const large: number[] = [];
  for (let d = 1; d * d <= m; d++) {
    if (m % d !== 0) continue;
    small.push(d);
    if (d * d !== m) large.push(m / d);
  }
  return small.concat(large.reverse());
}
