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

  /** The hints as a plain record. */
  toObject(): Record<string, string> {
    return Object.fromEntries(this);
  }
}
