/**
 * Elementwise loops of the built-in reduction ops over typed arrays, one compiled function per
 * (op, array kind). One loop shared by every op and kind sees another combining function and
 * another element kind at each call: V8 then neither inlines the op nor specialises the element
 * access: summing two 1 MiB Float64Arrays took ~0.9 ms that way, ~0.15 ms in a loop of the pair's
 * own (the allreduce rows of `npm run bench -- collectives` show the difference). `new Function`
 * is how a loop gets its own feedback: closures made from one function literal share theirs.
 */
import type { TypedArray } from './codec.js';

/** Combines `source` into `target` element by element (same kind; `target`'s length). */
export type CombineLoop = (target: TypedArray, source: TypedArray) => void;

/**
 * Which operand comes first: `target-first` makes t[i] = t[i] op s[i], `source-first`
 * t[i] = s[i] op t[i] (the result lands in the later operand's array).
 */
export type CombineOrder = 'target-first' | 'source-first';

const loops = new Map<string, CombineLoop>();

/**
 * The loop applying `scalar` to each element pair for arrays like `target`; `key` names the op
 * (one op, one scalar function). Stores into the typed array wrap and round as its kind does.
 */
function combineLoop<S>(key: string, target: TypedArray, scalar: (a: S, b: S) => S, order: CombineOrder): CombineLoop {
  const id = `${key} ${target.constructor.name} ${order}`;
  let loop = loops.get(id);
  if (loop === undefined) {
    // The id in a comment keeps V8's eval cache from handing back another pair's function.
    const pair = order === 'target-first' ? 't[i], s[i]' : 's[i], t[i]';
    const make = new Function('f', `// ${id}\nreturn function combineLoop(t, s) { const n = t.length; for (let i = 0; i < n; i++) t[i] = f(${pair}); };`) as (f: (a: S, b: S) => S) => CombineLoop;
    loop = make(scalar);
    loops.set(id, loop);
  }
  return loop;
}

/**
 * The loops of one op (`key`, `scalar`), looked up by the array's constructor: one Map probe per
 * combine, where a string key cost a concatenation and a hash per call (a 2-rank allreduce of one
 * double spent 7% of its time building the key).
 */
export function combineLoops<S>(key: string, scalar: (a: S, b: S) => S, order: CombineOrder = 'target-first'): (target: TypedArray) => CombineLoop {
  const byKind = new Map<unknown, CombineLoop>();
  return (target) => {
    let loop = byKind.get(target.constructor);
    if (loop === undefined) {
      loop = combineLoop(key, target, scalar, order);
      byKind.set(target.constructor, loop);
    }
    return loop;
  };
}
