/**
 * The hosts of a job without a job manager, in mpirun's spellings: a hostfile (`--hostfile F`)
 * or a list (`-H a:4,b:4`).
 *
 * Hostfile: one host per line, `[user@]host [slots=N] [max_slots=M]`, `#` starts a comment,
 * blank lines are skipped (`count`, `cpu`, `cpus` are older names of `slots`; `max-slots` of
 * `max_slots`). As Open MPI 4.1: a host on one line without `slots` has as many slots as it has
 * cores (asked at launch); a host on several such lines has one slot per line; giving `slots`
 * for a host on more than one line is an error.
 *
 * List: comma-separated `[user@]host[:N]`, N slots (1 when absent); a host named again adds its
 * slots.
 */
import { readFile } from 'node:fs/promises';
import { ErrorCode, TsmpiError } from '../errors.js';

export interface HostEntry {
  /** The host's name or address, as written (without the user). */
  readonly name: string;
  /** What the launch agent is given: `user@name` or `name`. */
  readonly target: string;
  /** Slots, or undefined: as many as the host has cores. */
  readonly slots: number | undefined;
  /** The most ranks the host takes even when oversubscribed (undefined: no limit). */
  readonly maxSlots: number | undefined;
  /** Where it was written: `file:line` or `-H`. */
  readonly origin: string;
}

function hostsError(origin: string, why: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, `${origin}: ${why}`, { operation: 'tsmpi run', hint });
}

const HOSTFILE_HINT = 'hostfile lines look like "node1 slots=4" or "user@node2 slots=2 max_slots=4"; # starts a comment';
const LIST_HINT = '-H takes host[:slots],... e.g. -H node1:4,node2:4';

const HOST_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

function parseTarget(text: string, origin: string, hint: string): { name: string; target: string } {
  const at = text.lastIndexOf('@');
  const user = at >= 0 ? text.slice(0, at) : '';
  const name = at >= 0 ? text.slice(at + 1) : text;
  if (at >= 0 && !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(user)) throw hostsError(origin, `"${text}" has no valid user before @`, hint);
  if (!HOST_NAME.test(name)) throw hostsError(origin, `"${text}" is not a host name or address`, hint);
  return { name, target: text };
}

function count(text: string, key: string, origin: string, min: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min) throw hostsError(origin, `${key}=${text} is not a whole number >= ${min}`, HOSTFILE_HINT);
  return Number(text);
}

/** Reads and parses the hostfile at `path`; `operation` (the command) names who asked in errors. */
export async function readHostfile(path: string, operation: string): Promise<HostEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TsmpiError(ErrorCode.Arg, `cannot read the hostfile ${path}: ${(error as Error).message}`, { operation, hint: 'give the path of a file with a "host slots=N" line per host' });
  }
  return parseHostfile(text, path);
}

/** Reads a hostfile's text; `file` names it in errors. */
export function parseHostfile(text: string, file: string): HostEntry[] {
  interface Line {
    name: string;
    target: string;
    slots: number | undefined;
    maxSlots: number | undefined;
    origin: string;
  }
  const lines: Line[] = [];
  text.split('\n').forEach((raw, index) => {
    const origin = `${file}:${index + 1}`;
    const hash = raw.indexOf('#');
    const words = (hash >= 0 ? raw.slice(0, hash) : raw).trim().split(/\s+/).filter((w) => w !== '');
    if (words.length === 0) return;
    const { name, target } = parseTarget(words[0]!, origin, HOSTFILE_HINT);
    let slots: number | undefined;
    let maxSlots: number | undefined;
    for (const word of words.slice(1)) {
      const eq = word.indexOf('=');
      const key = eq < 0 ? word : word.slice(0, eq);
      const value = eq < 0 ? '' : word.slice(eq + 1);
      if (['slots', 'count', 'cpu', 'cpus'].includes(key)) slots = count(value, key, origin, 0);
      else if (key === 'max_slots' || key === 'max-slots') maxSlots = count(value, key, origin, 0);
      else throw hostsError(origin, `"${word}" is not slots=N or max_slots=N`, HOSTFILE_HINT);
    }
    if (slots !== undefined && maxSlots !== undefined && maxSlots < slots) throw hostsError(origin, `max_slots=${maxSlots} is below slots=${slots}`, HOSTFILE_HINT);
    lines.push({ name, target, slots, maxSlots, origin });
  });
  if (lines.length === 0) throw hostsError(file, 'names no host', HOSTFILE_HINT);
  const byName = new Map<string, Line[]>();
  for (const line of lines) byName.set(line.name, [...(byName.get(line.name) ?? []), line]);
  const hosts: HostEntry[] = [];
  for (const [name, group] of byName) {
    const first = group[0]!;
    if (group.length > 1 && group.some((l) => l.slots !== undefined)) {
      throw hostsError(first.origin, `host ${name} is on ${group.length} lines (${group.map((l) => l.origin).join(', ')}) and its slots are given`, 'give a host one line with slots=N, or several lines without slots (one slot each)');
    }
    const maxSlots = group.map((l) => l.maxSlots).find((m) => m !== undefined);
    hosts.push({ name, target: first.target, slots: group.length > 1 ? group.length : first.slots, maxSlots, origin: first.origin });
  }
  return hosts;
}

/** Reads `-H host[:N],...`. */
export function parseHostList(text: string): HostEntry[] {
  const hosts = new Map<string, { target: string; slots: number }>();
  for (const part of text.split(',')) {
    const entry = part.trim();
    if (entry === '') throw hostsError('-H', `"${text}" has an empty entry`, LIST_HINT);
    // The colon separates the slots (host names and IPv4 addresses have none).
    const colon = entry.lastIndexOf(':');
    const host = colon >= 0 ? entry.slice(0, colon) : entry;
    const slotsText = colon >= 0 ? entry.slice(colon + 1) : '1';
    if (!/^\d+$/.test(slotsText) || Number(slotsText) < 1) throw hostsError('-H', `"${entry}": slots must be a whole number >= 1`, LIST_HINT);
    const { name, target } = parseTarget(host, '-H', LIST_HINT);
    const known = hosts.get(name);
    hosts.set(name, { target: known?.target ?? target, slots: (known?.slots ?? 0) + Number(slotsText) });
  }
  return [...hosts].map(([name, h]) => ({ name, target: h.target, slots: h.slots, maxSlots: undefined, origin: '-H' }));
}
