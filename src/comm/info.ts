/**
 * Hints as key/value strings (MPI_Info, mpi4py's Info): a Map of strings that checks what goes
 * in. Communicators keep the hints they were made with (`comm.info`, `comm.dup(info)`); tsmpi
 * reads `mpi_hw_resource_type` in `splitType` and keeps the others for the program to read back.
 *
 * @example
 * ```ts
 * const info = new Info([['mpi_assert_no_any_tag', 'true']]);
 * const tagged = await comm.dup(info);
 * tagged.info.get('mpi_assert_no_any_tag'); // 'true'
 * ```
 */
import { hostname } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';

/** The longest key and value (MPI_MAX_INFO_KEY, MPI_MAX_INFO_VAL). */
export const MAX_INFO_KEY = 255;
export const MAX_INFO_VAL = 1024;

export class Info extends Map<string, string> {
  /** An info object holding `entries` (pairs, a record, another Info, or nothing). */
  constructor(entries?: Iterable<readonly [string, string]> | Readonly<Record<string, string>> | null) {
    super();
    if (entries === undefined || entries === null) return;
    const pairs = Symbol.iterator in Object(entries) ? (entries as Iterable<readonly [string, string]>) : Object.entries(entries);
    for (const [key, value] of pairs) this.set(key, value);
  }

  /** Sets a hint; keys are non-empty strings up to MAX_INFO_KEY characters, values strings up to MAX_INFO_VAL. */
  override set(key: string, value: string): this {
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_INFO_KEY) {
      throw new TsmpiError(ErrorCode.Arg, `info key ${JSON.stringify(key)} is not a string of 1 to ${MAX_INFO_KEY} characters`, { operation: 'Info.set', hint: "use a string key, e.g. 'mpi_hw_resource_type'" });
    }
    if (typeof value !== 'string' || value.length > MAX_INFO_VAL) {
      throw new TsmpiError(ErrorCode.Arg, `the value of info key '${key}' is not a string of up to ${MAX_INFO_VAL} characters`, { operation: 'Info.set', hint: 'info values are strings: write numbers and flags as text' });
    }
    return super.set(key, value);
  }

  /** An info object holding `entries` (mpi4py's `Info.Create(items)`); the same as `new Info(entries)`. */
  static create(entries?: Iterable<readonly [string, string]> | Readonly<Record<string, string>> | null): Info {
    return new Info(entries);
  }

  /** A copy (MPI_Info_dup). */
  dup(): Info {
    return new Info(this);
  }

  /** How many keys it holds (MPI_Info_get_nkeys); the same as `size`. */
  get nkeys(): number {
    return this.size;
  }

  /** The n-th key, in the order keys were first set (MPI_Info_get_nthkey). */
  nthKey(n: number): string {
    if (!Number.isInteger(n) || n < 0 || n >= this.size) {
      throw new TsmpiError(ErrorCode.Arg, `key ${String(n)} of an info object with ${this.size} keys`, { operation: 'Info.nthKey', hint: `pass 0 to ${this.size - 1}` });
    }
    let i = 0;
    for (const key of this.keys()) if (i++ === n) return key;
    throw new TsmpiError(ErrorCode.Internal, 'the info object changed while its keys were read', { operation: 'Info.nthKey' });
  }

  /**
   * What this rank was started with (MPI_INFO_ENV): `command` (the program), `argv` (its
   * arguments, space-separated), `host`, `arch`, `wdir` and `thread_level` (a rank is one
   * JavaScript thread). A fresh object each call.
   */
  static env(): Info {
    const info = new Info([
      ['command', process.argv[1] ?? ''],
      ['argv', process.argv.slice(2).join(' ')],
      ['host', hostname()],
      ['arch', process.arch],
      ['wdir', process.cwd()],
      ['thread_level', 'MPI_THREAD_SINGLE'],
    ]);
    return info;
  }

  /** The hints as a plain record. */
  toObject(): Record<string, string> {
    return Object.fromEntries(this);
  }
}
