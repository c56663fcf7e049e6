/**
 * Elementwise loops of the built-in reduction ops over typed arrays, one compiled function per
 * (op, array kind). One loop shared by every op and kind sees another combining function and
 * another element kind at each call: V8 then neither inlines the op nor specialises the element
 * access: summing two 1 MiB Float64Arrays took ~0.9 ms that way, ~0.15 ms in a loop of the pair's
 * own (the allreduce rows of `npm run bench -- collectives` show the difference). `new Function`
 * is how a loop gets its own feedback: closures made from one function literal share theirs.
 * Long arrays of the ops and kinds that have one go through a WebAssembly lane loop instead
 * (simd-kernels.ts).
 */
import type { TypedArray } from './codec.js';
import { simdCombine, type SimdCombine } from './simd-kernels.js';

/**
 * target[i] = a[i] op b[i] for i below target.length (a and b at least as long, of target's kind;
 * target may be a or b: each element is read before it is written).
 */
export type CombineLoop = (target: TypedArray, a: TypedArray, b: TypedArray) => void;

/**
 * Arrays at least this long take the lane loop where there is one: from here on they clearly pay
 * (sums of doubles, ns per element: 1.8 against 2.9 for the scalar loop at 512, 1.0 against 3.0
 * at 4096), where at 256 the two were within 15% (2.7 against 3.2) and the lanes' fixed cost of
 * calls and copies grows as arrays shrink (`npm run bench -- reduce-kernels`).
 */
export const SIMD_FROM_ELEMENTS = 512;

/**
 * The loop applying `scalar` to each element pair for arrays like `target`; `key` names the op
 * (one op, one scalar function). Stores into the typed array wrap and round as its kind does.
 */
function scalarLoop<S>(key: string, target: TypedArray, scalar: (a: S, b: S) => S): CombineLoop {
  const id = `${key} ${target.constructor.name}`;
  // The id in a comment keeps V8's eval cache from handing back another pair's function.
  const make = new Function('f', `// ${id}\nreturn function combineLoop(t, a, b) { const n = t.length; for (let i = 0; i < n; i++) t[i] = f(a[i], b[i]); };`) as (f: (a: S, b: S) => S) => CombineLoop;
  return make(scalar);
}

interface KindLoops {
  scalar: CombineLoop;
  lanes: SimdCombine | undefined;
}

/**
 * The combine of one op (`key`, `scalar`; `simdName` the op whose lane kernels apply, if any),
 * its loops looked up by the array's constructor: one Map probe per combine, where a string key
 * cost a concatenation and a hash per call (a 2-rank allreduce of one double spent 7% of its time
 * building the key).
 */
export function combineLoops<S>(key: string, scalar: (a: S, b: S) => S, simdName?: string): CombineLoop {
  const byKind = new Map<unknown, KindLoops>();
  return (target, a, b) => {
    let loops = byKind.get(target.constructor);
    if (loops === undefined) {
      loops = { scalar: scalarLoop(key, target, scalar), lanes: simdName === undefined ? undefined : simdCombine(simdName, target) };
      byKind.set(target.constructor, loops);
    }
    if (loops.lanes !== undefined && target.length >= SIMD_FROM_ELEMENTS) loops.lanes(target, a, b);
    else loops.scalar(target, a, b);
  };
}
