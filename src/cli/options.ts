/**
 * Parsers for command-line values that name the flag and what it accepts when a value is wrong.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { ErrorCode, TsmpiError } from '../errors.js';

/**
 * The absolute path of a file a flag names for output (`--trace`, `--profile-json`), checked
 * before anything runs: its directory must exist and be writable (the job would otherwise end
 * with nothing written).
 */
export function outputFile(flag: string, path: string, operation: string): string {
  const full = resolve(path);
  const dir = dirname(full);
  let why: string | undefined;
  try {
    if (!statSync(dir).isDirectory()) why = `${dir} is not a directory`;
    else accessSync(dir, constants.W_OK);
  } catch (error) {
    why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `the directory ${dir} does not exist` : `cannot write in ${dir}`;
  }
  if (why !== undefined) throw new TsmpiError(ErrorCode.Arg, `${flag} ${path}: ${why}`, { operation, hint: 'name a file in an existing, writable directory' });
  return full;
}

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

/**
 * mpirun's spellings that a POSIX-style parser cannot take: `-np N` (one dash, two letters) is
 * `--np N`. Only the launcher's own options are looked at: everything from the program on
 * belongs to the program, so a program's own `-np` is left alone.
 */
export function mpirunSpellings(program: Command, argv: readonly string[]): string[] {
  const out = [...argv];
  const command = program.commands.find((c) => c.name() === out[2]);
  if (command === undefined) return out;
  for (let i = 3; i < out.length; i++) {
    const token = out[i]!;
    if (token === '--' || !token.startsWith('-') || token === '-') break;
    if (token === '-np') {
      out[i] = '--np';
      i++;
      continue;
    }
    const name = token.includes('=') ? token.slice(0, token.indexOf('=')) : token;
    const option = command.options.find((o) => o.short === name || o.long === name);
    if (option !== undefined && (option.required || option.optional) && !token.includes('=')) i++;
  }
  return out;
}
