/**
 * Parsers for command-line values that name the flag and what it accepts when a value is wrong.
 */
import { InvalidArgumentError } from 'commander';

export function positiveInteger(flag: string): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`${flag} takes a whole number >= 1, got "${text}".`);
    return value;
  };
}

export function nonNegativeNumber(flag: string): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`${flag} takes a number >= 0, got "${text}".`);
    return value;
  };
}

/** Collects repeated `-x VAR[=value]` into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Applies `-x` entries to an environment: `VAR=value` sets it, `VAR` exports the launcher's value.
 */
export function applyExports(env: Record<string, string | undefined>, exports: readonly string[]): Record<string, string | undefined> {
  const out = { ...env };
  for (const entry of exports) {
    const eq = entry.indexOf('=');
    const name = eq < 0 ? entry : entry.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new InvalidArgumentError(`-x takes VAR or VAR=value, got "${entry}".`);
    out[name] = eq < 0 ? process.env[name] : entry.slice(eq + 1);
  }
  return out;
}
