/**
 * Collective argument checking, on request (TSMPI_CHECK=1, `tsmpi run --check`): before a
 * collective runs, its ranks agree that they call the same collective with the same root, op,
 * element kind and count, as MPICH's collective checking and MUST do. The agreement is one small
 * allreduce of a hash of each rank's signature (its largest and its smallest value: equal when
 * every rank's is); only when they differ do the ranks exchange their signatures, to name the
 * argument and the ranks. It runs as its own call of the communicator's sequence, with a tag
 * every collective shares, so that ranks in two different collectives meet there too.
 */
import { ErrorCode, TsmpiError } from '../../errors.js';
import { Op } from '../ops.js';
import { allgather } from './allgather.js';
import { allreduce } from './allreduce.js';
import type { CollectiveCall } from './call.js';
import type { Steps } from './steps.js';

/** How a collective's data must agree between ranks. */
export type DataAgreement =
  /** The same kind and count (reductions; for bcastInto the same byte length). */
  | 'count'
  | 'bytes'
  /** The same typed-array kind (the v collectives: counts may differ). */
  | 'kind'
  | 'none';

/** What a rank passes to a collective, as the check compares it. */
export interface CollectiveArgs {
  readonly root?: number;
  readonly op?: { readonly name?: string; readonly builtin?: boolean };
  readonly data?: unknown;
  readonly agree?: DataAgreement;
}

type Signature = [collective: string, root: string, op: string, data: string];
const FIELDS = ['collective', 'root', 'op', 'data'] as const;

/** `Float64Array(4)`, `an array of 3`, `number`: the data as the check compares it. */
function describeData(data: unknown, agree: DataAgreement): string {
  if (agree === 'none') return '';
  if (ArrayBuffer.isView(data)) {
    const name = data.constructor.name;
    if (agree === 'kind') return name;
    if (agree === 'bytes') return `${data.byteLength} bytes`;
    return `${name}(${(data as { length?: number }).length ?? data.byteLength})`;
  }
  if (agree === 'kind' || agree === 'bytes') return typeof data;
  if (Array.isArray(data)) return `an array of ${data.length}`;
  return data === null ? 'null' : typeof data;
}

function signatureOf(collective: string, args: CollectiveArgs): Signature {
  const op = args.op;
  // A program's own op may combine operands of any shape (arrays of several lengths): its data
  // are not compared.
  const agree = op !== undefined && op.builtin !== true ? 'none' : (args.agree ?? 'none');
  return [
    collective,
    args.root === undefined ? '' : String(args.root),
    op === undefined ? '' : op.builtin === true ? `Op.${op.name ?? '?'}` : `Op.create(${op.name ?? 'a function'})`,
    describeData(args.data, agree),
  ];
}

/** A 32-bit FNV-1a hash of the signature. */
function hash(signature: Signature): number {
  let h = 0x811c9dc5;
  const text = signature.join('\u0000');
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** `ranks 0, 2` / `rank 1`. */
function ranks(list: number[]): string {
  return list.length === 1 ? `rank ${list[0]}` : `ranks ${list.join(', ')}`;
}

/**
 * The steps of the check (on its own call): returns when every rank passed the same; throws on
 * every rank, naming each argument that differs and the ranks on each side, when they did not.
 */
export function* verifyArguments(call: CollectiveCall, collective: string, args: CollectiveArgs): Steps<void> {
  const mine = signatureOf(collective, args);
  const h = hash(mine);
  const extremes = yield* allreduce(call, Float64Array.of(h, -h), Op.max);
  if (extremes[0] === -extremes[1]!) return;
  const all = yield* allgather(call, mine);
  const parts: string[] = [];
  let data = false;
  FIELDS.forEach((field, f) => {
    const byValue = new Map<string, number[]>();
    all.forEach((signature, rank) => {
      const list = byValue.get(signature[f]!) ?? [];
      list.push(rank);
      byValue.set(signature[f]!, list);
    });
    // Ranks in different collectives: their other arguments mean different things.
    if (byValue.size < 2 || (f > 0 && parts.length > 0 && parts[0]!.startsWith('collective:'))) return;
    if (field === 'data') data = true;
    const verb = field === 'collective' ? 'called' : 'passed';
    const sides = [...byValue].map(([value, list]) => `${ranks(list)} ${verb} ${value === '' ? (field === 'collective' ? '?' : `no ${field}`) : value}`);
    parts.push(`${field}: ${sides.join(', ')}`);
  });
  throw new TsmpiError(data ? ErrorCode.Count : ErrorCode.Arg, `the ranks of ${call.communicatorName} disagree on ${collective}'s arguments (${parts.join('; ')})`, {
    rank: call.worldRank,
    operation: call.operation,
    hint: 'every rank must call the same collective with the same root, op, and kind and count of data (found by TSMPI_CHECK=1)',
  });
}

/** `inner`, after the check of the arguments on `check` (a call of its own). */
export function* checked<T>(check: CollectiveCall, collective: string, args: CollectiveArgs, inner: Steps<T>, staging?: CollectiveCall): Steps<T> {
  if (staging === undefined) {
    yield* verifyArguments(check, collective, args);
    return yield* inner;
  }
  // A call that may stage acts after its check: it holds its place among the rank's staged
  // collectives from the moment the check has made its own staged step, if any, so that the
  // check's comes first and the call's before any the program starts meanwhile.
  const verify = verifyArguments(check, collective, args);
  let step = verify.next();
  staging.reserveStaged();
  try {
    while (step.done !== true) {
      let input: unknown;
      try {
        input = yield step.value;
      } catch (error) {
        step = verify.throw(error);
        continue;
      }
      step = verify.next(input);
    }
    return yield* inner;
  } finally {
    staging.releaseStaged();
  }
}
