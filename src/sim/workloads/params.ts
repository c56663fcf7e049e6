/**
 * Checking the parameters of a workload generator: each check names the workload and the
 * parameter, says what is allowed, and throws TsmpiError(Config). A missing value takes the
 * generator's default.
 */
import { ErrorCode, TsmpiError } from '../../errors.js';

function fail(workload: string, name: string, want: string, got: unknown): never {
  throw new TsmpiError(ErrorCode.Config, `parameter ${name} must be ${want}, got ${JSON.stringify(got)}`, {
    operation: `workload ${workload}`,
    hint: `pass e.g. --param ${name}=<value>; \`tsmpi sim --workload ${workload} --help\` lists the parameters`,
  });
}

/** An integer in [min, max]; `fallback` when the value is undefined (no fallback: required). */
export function intParam(workload: string, name: string, value: number | undefined, fallback: number | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = value ?? fallback;
  if (v === undefined) fail(workload, name, 'given (it has no default)', value);
  if (!Number.isSafeInteger(v) || v < min || v > max) fail(workload, name, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer in ${min}..${max}`, v);
  return v;
}

/** A finite number >= min. */
export function numParam(workload: string, name: string, value: number | undefined, fallback: number | undefined, min = 0): number {
  const v = value ?? fallback;
  if (v === undefined) fail(workload, name, 'given (it has no default)', value);
  if (!Number.isFinite(v) || v < min) fail(workload, name, `a finite number >= ${min}`, v);
  return v;
}

export function boolParam(workload: string, name: string, value: boolean | undefined, fallback: boolean): boolean {
  const v = value ?? fallback;
  if (typeof v !== 'boolean') fail(workload, name, 'true or false', v);
  return v;
}

/** Checks a condition between parameters. */
export function requireParams(workload: string, ok: boolean, message: string, hint: string): void {
  if (!ok) throw new TsmpiError(ErrorCode.Config, message, { operation: `workload ${workload}`, hint });
}
