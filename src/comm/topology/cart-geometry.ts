/**
 * The arithmetic of a Cartesian grid, without communication: ranks are numbered in row-major
 * order (the last coordinate varies fastest), as MPI numbers them; periodic dimensions wrap.
 */
import { ErrorCode, TsmpiError } from '../../errors.js';
import { PROC_NULL } from '../matching.js';

/** The ranks `disp` steps down (`source`) and up (`dest`) a dimension; PROC_NULL off a non-periodic edge. */
export interface CartShift {
  source: number;
  dest: number;
}

export class CartGeometry {
  readonly dims: readonly number[];
  readonly periods: readonly boolean[];
  /** Number of grid points: the product of the dims (1 for no dimension). */
  readonly size: number;
  /** Rank distance of one step along each dimension. */
  readonly #strides: number[];
  /** The world rank errors name (-1 where there is none). */
  readonly #errorRank: number;

  constructor(dims: readonly number[], periods: readonly boolean[], errorRank = -1) {
    this.dims = Object.freeze([...dims]);
    this.periods = Object.freeze([...periods]);
    this.#errorRank = errorRank;
    this.#strides = new Array<number>(dims.length);
    let stride = 1;
    for (let d = dims.length - 1; d >= 0; d--) {
      this.#strides[d] = stride;
      stride *= dims[d]!;
    }
    this.size = stride;
  }

  get ndim(): number {
    return this.dims.length;
  }

  /** The coordinates of grid rank `rank`. */
  coordsOf(rank: number, operation = 'coordsOf'): number[] {
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.size) {
      throw this.#error(ErrorCode.Rank, `rank ${String(rank)} is not in the ${this.#shape()} grid`, operation, `pass a rank from 0 to ${this.size - 1}`);
    }
    return this.#strides.map((stride, d) => Math.floor(rank / stride) % this.dims[d]!);
  }

  /** The rank at `coords`; periodic dimensions wrap, a non-periodic coordinate must be in range. */
  rankOf(coords: readonly number[], operation = 'cartRank'): number {
    if (!Array.isArray(coords) || coords.length !== this.ndim || !coords.every((c) => Number.isSafeInteger(c))) {
      throw this.#error(ErrorCode.Arg, `coords ${JSON.stringify(coords)} are not ${this.ndim} integers`, operation, `pass one integer coordinate per dimension of the ${this.#shape()} grid`);
    }
    let rank = 0;
    for (let d = 0; d < this.ndim; d++) {
      const c = this.#wrap(d, coords[d]!);
      if (c === undefined) {
        throw this.#error(
          ErrorCode.Arg,
          `coordinate ${coords[d]} of dimension ${d} is outside 0..${this.dims[d]! - 1} and the dimension is not periodic`,
          operation,
          'pass coordinates inside the grid, or make the dimension periodic in createCart',
        );
      }
      rank += c * this.#strides[d]!;
    }
    return rank;
  }

  /** The ranks `disp` steps down and up dimension `direction` from `rank` (MPI_Cart_shift). */
  shift(rank: number, direction: number, disp: number, operation = 'shift'): CartShift {
    if (!Number.isInteger(direction) || direction < 0 || direction >= this.ndim) {
      throw this.#error(ErrorCode.Arg, `direction ${String(direction)} is not a dimension of the ${this.#shape()} grid`, operation, this.ndim > 0 ? `pass a dimension from 0 to ${this.ndim - 1}` : 'a grid without dimensions has no neighbours');
    }
    if (!Number.isSafeInteger(disp)) throw this.#error(ErrorCode.Arg, `displacement ${String(disp)} is not an integer`, operation, 'pass an integer number of steps (negative: the other way)');
    const at = this.coordsOf(rank, operation)[direction]!;
    return { source: this.#step(rank, direction, at, -disp), dest: this.#step(rank, direction, at, disp) };
  }

  /**
   * The neighbours of `rank` in MPI's order: for each dimension, one step down then one step up
   * (PROC_NULL off a non-periodic edge). In-neighbours and out-neighbours are the same list.
   */
  neighbors(rank: number): number[] {
    const out: number[] = [];
    for (let d = 0; d < this.ndim; d++) {
      const { source, dest } = this.shift(rank, d, 1, 'neighbors');
      out.push(source, dest);
    }
    return out;
  }

  #step(rank: number, d: number, at: number, disp: number): number {
    const c = this.#wrap(d, at + disp);
    return c === undefined ? PROC_NULL : rank + (c - at) * this.#strides[d]!;
  }

  /** Coordinate `c` of dimension `d` inside the grid, wrapped if periodic; undefined if off the edge. */
  #wrap(d: number, c: number): number | undefined {
    const n = this.dims[d]!;
    if (this.periods[d]) return ((c % n) + n) % n;
    return c >= 0 && c < n ? c : undefined;
  }

  #shape(): string {
    return this.ndim === 0 ? '0-dimensional' : this.dims.join('x');
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, message, { rank: this.#errorRank, operation, hint });
  }
}

/**
 * Checks createCart's arguments against a communicator of `size` ranks and returns them as
 * arrays (a single boolean `periods` applies to every dimension).
 */
export function cartShape(dims: readonly number[], periods: boolean | readonly boolean[], size: number, errorRank: number): { dims: number[]; periods: boolean[] } {
  const error = (message: string, hint: string): TsmpiError => new TsmpiError(ErrorCode.Arg, message, { rank: errorRank, operation: 'createCart', hint });
  if (!Array.isArray(dims) || !dims.every((d) => Number.isSafeInteger(d) && d >= 1)) {
    throw error(`dims ${JSON.stringify(dims)} is not an array of positive integers`, 'pass the size of each dimension, e.g. computeDims(comm.size, 2)');
  }
  const all = typeof periods === 'boolean' ? dims.map(() => periods) : periods;
  if (!Array.isArray(all) || all.length !== dims.length || !all.every((p) => typeof p === 'boolean')) {
    throw error(`periods ${JSON.stringify(periods)} is not ${dims.length} booleans`, 'pass one boolean per dimension (true: it wraps around), or one boolean for all');
  }
  const cells = dims.reduce((product, d) => product * d, 1);
  if (cells > size) {
    throw error(`a ${dims.join('x')} grid needs ${cells} ranks but the communicator has ${size}`, `pass dims whose product is at most ${size}, e.g. computeDims(${size}, ${dims.length})`);
  }
  return { dims: [...dims], periods: [...all] };
}
