/**
 * Reduction operations. A built-in op applies to numbers, bigints, booleans, typed arrays
 * (elementwise) and arrays of those (elementwise); `minloc`/`maxloc` apply to `{ value, index }`
 * pairs and arrays of them (ties take the lower index, as MPI does). A user op is any function
 * of two values; declare whether it commutes, so the algorithms know whether they may reorder.
 * Reductions combine in rank order: result = x0 op x1 op ... op x(p-1).
 */
import { allocateLike, type TypedArray } from './codec.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { combineLoops, type CombineLoop } from './op-kernels.js';

/** Combines `source` into `target` in place, element by element. */
export type InPlaceCombine = (target: TypedArray, source: TypedArray) => void;
/**
 * The in-place combiners of a built-in elementwise op: `target op source`, `source op target`,
 * and `target = a op b`.
 */
interface InPlaceOps {
  combineInto: InPlaceCombine;
  combineOnto: InPlaceCombine;
  combineTo: CombineLoop;
}

/** Ops whose typed-array loops may run in WebAssembly lanes (where the kind allows it). */
const LANE_OPS = new Set(['sum', 'prod', 'band', 'bor', 'bxor']);

/** A (value, index) pair for `minloc` / `maxloc`. */
export interface ValueIndex {
  value: number;
  index: number;
}

export interface ReduceOp<T = unknown> {
  readonly name: string;
  /** True when `a op b == b op a`; algorithms may then reorder operands. */
  readonly commutative: boolean;
  /** Combines an earlier-ranked operand `a` with a later-ranked `b`. Must not modify `b`. */
  readonly combine: (a: T, b: T) => T;
}

/**
 * A built-in op: applies to numbers, bigints, booleans, typed arrays and arrays of them (or to
 * `{ value, index }` pairs for minloc/maxloc), so it fits a reduction of any of those types.
 */
export interface BuiltinOp {
  readonly name: string;
  /** False only for replace and noOp, which take one operand by rank order. */
  readonly commutative: boolean;
  readonly builtin: true;
  /** Combines two operands (see the op's rules); throws ERR_OP for operands it does not apply to. */
  readonly combine: (a: unknown, b: unknown) => unknown;
}

/** What the reductions take: a built-in op or a user op of the value's type. */
export type AnyOp<T> = BuiltinOp | ReduceOp<T>;

type Scalar = number | bigint | boolean;

export function isTypedArray(value: unknown): value is TypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

/** An operand as errors name it: `a Float64Array(4)`, `an array of 3`, `a string`. */
export function describeOperand(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return withArticle(ArrayBuffer.isView(value) ? `${value.constructor.name}(${(value as { length?: number }).length ?? value.byteLength})` : typeof value);
}

/** `what` behind its indefinite article, as errors name operands (`a Float64Array(4)`, `an Int32Array(3)`). */
export function withArticle(what: string): string {
  return `${/^[aeiouAEIOU]/.test(what) ? 'an' : 'a'} ${what}`;
}

function opError(op: string, value: unknown, hint: string): TsmpiError {
  const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : ArrayBuffer.isView(value) ? value.constructor.name : typeof value;
  return new TsmpiError(ErrorCode.Op, `${op} does not apply to ${what}`, { operation: op, hint });
}

/** Builds an elementwise op from scalar functions for numbers and bigints. */
function elementwise(name: string, num: (a: number, b: number) => number, big: ((a: bigint, b: bigint) => bigint) | null, bool?: (a: boolean, b: boolean) => boolean, commutative = true): BuiltinOp {
  const hint = `${name} takes numbers${big ? ', bigints' : ''}${bool ? ', booleans' : ''}, typed arrays or arrays of them, the same shape on every rank`;
  const scalar = (a: Scalar, b: Scalar): Scalar => {
    if (typeof a === 'number' && typeof b === 'number') return num(a, b);
    if (typeof a === 'bigint' && typeof b === 'bigint' && big) return big(a, b);
    if (typeof a === 'boolean' && typeof b === 'boolean' && bool) return bool(a, b);
    throw opError(name, typeof a === typeof b ? a : [a, b], hint);
  };
  const combine = (a: unknown, b: unknown): unknown => {
    if (isTypedArray(a) && isTypedArray(b)) {
      if (a.length !== b.length || a.constructor !== b.constructor) {
        throw new TsmpiError(ErrorCode.Count, `${name} got a ${a.constructor.name}(${a.length}) and a ${b.constructor.name}(${b.length})`, {
          operation: name,
          hint: 'every rank must pass the same kind and length of typed array',
        });
      }
      const out = allocateLike(a, a.length);
      combineTo(out, a, b);
      return out;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) {
        throw new TsmpiError(ErrorCode.Count, `${name} got arrays of length ${a.length} and ${b.length}`, { operation: name, hint: 'every rank must pass arrays of the same length' });
      }
      return a.map((x, i) => combine(x, b[i]));
    }
    return scalar(a as Scalar, b as Scalar);
  };
  const bigLoops = big ? combineLoops(`${name} bigint`, big, LANE_OPS.has(name) ? name : undefined) : undefined;
  const numLoops = combineLoops(name, num, LANE_OPS.has(name) ? name : undefined);
  const combineTo: CombineLoop = (target, a, b) => {
    if (target instanceof BigInt64Array || target instanceof BigUint64Array) {
      if (!bigLoops) throw opError(name, target, hint);
      bigLoops(target, a, b);
      return;
    }
    numLoops(target, a, b);
  };
  const combineInto: InPlaceCombine = (target, source) => combineTo(target, target, source);
  const op: BuiltinOp & InPlaceOps = { name, commutative, builtin: true, combine, combineInto, combineOnto: (target, source) => combineTo(target, source, target), combineTo };
  return op;
}

function locOp(name: 'minloc' | 'maxloc', better: (a: number, b: number) => boolean): BuiltinOp {
  const hint = `${name} takes { value, index } pairs or arrays of them`;
  const pair = (a: ValueIndex, b: ValueIndex): ValueIndex => {
    if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null || typeof a.value !== 'number' || typeof b.value !== 'number') {
      throw opError(name, a, hint);
    }
    if (better(a.value, b.value)) return { value: a.value, index: a.index };
    if (better(b.value, a.value)) return { value: b.value, index: b.index };
    return { value: a.value, index: Math.min(a.index, b.index) };
  };
  return {
    name,
    commutative: true,
    builtin: true,
    combine: (a: unknown, b: unknown) => {
      if (Array.isArray(a) && Array.isArray(b)) return a.map((x, i) => pair(x as ValueIndex, b[i] as ValueIndex));
      return pair(a as ValueIndex, b as ValueIndex);
    },
  };
}

/** The built-in reduction operations. */
export const Op = {
  sum: elementwise('sum', (a, b) => a + b, (a, b) => a + b),
  prod: elementwise('prod', (a, b) => a * b, (a, b) => a * b),
  min: elementwise('min', (a, b) => (b < a ? b : a), (a, b) => (b < a ? b : a)),
  max: elementwise('max', (a, b) => (b > a ? b : a), (a, b) => (b > a ? b : a)),
  land: elementwise('land', (a, b) => (a !== 0 && b !== 0 ? 1 : 0), (a, b) => (a !== 0n && b !== 0n ? 1n : 0n), (a, b) => a && b),
  lor: elementwise('lor', (a, b) => (a !== 0 || b !== 0 ? 1 : 0), (a, b) => (a !== 0n || b !== 0n ? 1n : 0n), (a, b) => a || b),
  band: elementwise('band', (a, b) => a & b, (a, b) => a & b, (a, b) => a && b),
  bor: elementwise('bor', (a, b) => a | b, (a, b) => a | b, (a, b) => a || b),
  lxor: elementwise('lxor', (a, b) => ((a !== 0) !== (b !== 0) ? 1 : 0), (a, b) => ((a !== 0n) !== (b !== 0n) ? 1n : 0n), (a, b) => a !== b),
  bxor: elementwise('bxor', (a, b) => a ^ b, (a, b) => a ^ b, (a, b) => a !== b),
  /**
   * The later operand (MPI_REPLACE): in an accumulate the origin's value replaces the target's;
   * in a reduction, combined in rank order, the last rank's value.
   */
  replace: elementwise('replace', (_a, b) => b, (_a, b) => b, (_a, b) => b, false),
  /**
   * The earlier operand (MPI_NO_OP): fetchAndOp reads the target's value and changes nothing; a
   * reduction yields rank 0's value.
   */
  noOp: elementwise('noOp', (a) => a, (a) => a, (a) => a, false),
  minloc: locOp('minloc', (a, b) => a < b),
  maxloc: locOp('maxloc', (a, b) => a > b),
  /**
   * A user-defined operation.
   * @example
   * ```ts
   * const concat = Op.create((a: string, b: string) => a + b, { commutative: false });
   * ```
   */
  create<T>(combine: (a: T, b: T) => T, options: { commutative?: boolean; name?: string } = {}): ReduceOp<T> {
    if (typeof combine !== 'function') {
      throw new TsmpiError(ErrorCode.Arg, 'Op.create needs a function (a, b) => result', { operation: 'Op.create', hint: 'pass a function of two values' });
    }
    return { name: options.name ?? (combine.name || 'user'), commutative: options.commutative ?? false, combine };
  },
} as const;

/** The in-place typed-array combiner of a built-in op, if it has one (used by large-array algorithms). */
export function inPlaceCombiner(op: AnyOp<unknown>): InPlaceCombine | undefined {
  const candidate = (op as Partial<InPlaceOps>).combineInto;
  return typeof candidate === 'function' ? candidate : undefined;
}

/**
 * The same op's combiner with the operands the other way round, `target = source op target` (the
 * array in hand holds the later operand), where it has one: so that both ranks of a pair combine
 * in rank order and get the same bits (max(-0, +0) and max(NaN, 1) depend on the order).
 */
export function inPlaceCombinerOnto(op: AnyOp<unknown>): InPlaceCombine | undefined {
  const candidate = (op as Partial<InPlaceOps>).combineOnto;
  return typeof candidate === 'function' ? candidate : undefined;
}

/** `target = a op b` elementwise for a built-in op, if it has typed-array loops (target may be a or b). */
export function combinerTo(op: AnyOp<unknown>): CombineLoop | undefined {
  const candidate = (op as Partial<InPlaceOps>).combineTo;
  return typeof candidate === 'function' ? candidate : undefined;
}

/** Checks that `op` is a usable reduction op (names the operation in the error). */
export function checkOp(op: unknown, operation: string, rank: number): asserts op is ReduceOp {
  if (typeof op !== 'object' || op === null || typeof (op as ReduceOp).combine !== 'function' || typeof (op as ReduceOp).commutative !== 'boolean') {
    throw new TsmpiError(ErrorCode.Op, 'the reduction op is not an Op', { rank, operation, hint: 'pass Op.sum, Op.max, ... or Op.create((a, b) => ...)' });
  }
}
