/**
 * SimGrid's value-with-unit syntax (`src/xbt/xbt_parse_units.cpp`, DTD 4 notes) and cluster
 * radicals. A value is a decimal number (exponent allowed) immediately followed by a unit:
 *
 * - speed, flop/s: `f` with k M G T P E Z Y (powers of 1000), or `flops` with kilo mega giga tera
 *   peta exa zetta yotta: `1Gf`, `98.095Mf`, `2.5gigaflops`;
 * - bandwidth, bytes/s: `Bps` (bytes) or `bps` (bits, 1 Bps = 8 bps) with k M G T P E Z Y
 *   (powers of 1000; `K` is accepted for `k`, as SimGrid's XML reference spells `KBps`) or
 *   Ki Mi Gi Ti Pi Ei Zi Yi (powers of 1024): `125MBps`, `10Gbps` (= 1.25e9 B/s), `1GiBps`;
 * - time, seconds: `w` `d` `h` `m` (minute!) `s` `ms` `us` `ns` `ps`: `50us`, `2.5ms`, `1s`.
 *
 * A value without unit takes the default unit (f, Bps, s), as SimGrid does (it warns; we accept).
 * Negative values are refused.
 */
import { configError } from './platform.js';

type UnitTable = ReadonlyMap<string, number>;

function table(entries: [unit: string, value: number, prefixes: 'none' | 'short10' | 'long10' | 'short2'][]): UnitTable {
  const t = new Map<string, number>();
  const sets = {
    none: [],
    short10: ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'],
    long10: ['kilo', 'mega', 'giga', 'tera', 'peta', 'exa', 'zetta', 'yotta'],
    short2: ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'Zi', 'Yi'],
  } as const;
  for (const [unit, value, kind] of entries) {
    t.set(unit, value);
    const mult = kind === 'short2' ? 1024 : 1000;
    let v = value;
    for (const p of sets[kind]) {
      v *= mult;
      t.set(p + unit, v);
      if (p === 'k') t.set('K' + unit, v);
      if (p === 'zetta') t.set('zeta' + unit, v);
    }
  }
  return t;
}

const SPEED = table([['f', 1, 'short10'], ['flops', 1, 'long10']]);
const BANDWIDTH = table([['Bps', 1, 'short10'], ['Bps', 1, 'short2'], ['bps', 0.125, 'short10'], ['bps', 0.125, 'short2']]);
const TIME = new Map<string, number>([['w', 604800], ['d', 86400], ['h', 3600], ['m', 60], ['s', 1], ['ms', 1e-3], ['us', 1e-6], ['ns', 1e-9], ['ps', 1e-12]]);

const NUMBER = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(.*)$/;

function parseWithUnit(text: string, units: UnitTable, defaultUnit: string, field: string, what: string, examples: string): number {
  const hint = `write ${what} as a number followed by a SimGrid unit, e.g. ${examples}`;
  const m = NUMBER.exec(text.trim());
  if (m === null) throw configError(`${field}: cannot read a number in ${JSON.stringify(text)}`, hint);
  const unit = m[2] === '' ? defaultUnit : m[2]!;
  const scale = units.get(unit);
  if (scale === undefined) throw configError(`${field}: unknown unit ${JSON.stringify(unit)} in ${JSON.stringify(text)}`, hint);
  const value = Number(m[1]) * scale;
  if (!Number.isFinite(value) || value < 0) throw configError(`${field}: ${JSON.stringify(text)} is not a finite value >= 0`, hint);
  return value;
}

/** Flop/s from a SimGrid speed such as `1Gf` or `98.095Mf`. */
export function parseSpeed(text: string, field: string): number {
  return parseWithUnit(text, SPEED, 'f', field, 'a speed', '"1Gf", "98.095Mf" or "2.5gigaflops"');
}

/** Bytes/s from a SimGrid bandwidth such as `125MBps` or `10Gbps` (bits). */
export function parseBandwidth(text: string, field: string): number {
  return parseWithUnit(text, BANDWIDTH, 'Bps', field, 'a bandwidth', '"125MBps", "10Gbps" (bits) or "1GiBps"');
}

/** Seconds from a SimGrid time such as `50us`, `2.5ms` or `1s`. */
export function parseTime(text: string, field: string): number {
  return parseWithUnit(text, TIME, 's', field, 'a time', '"50us", "2.5ms" or "1s"');
}

/** The numbers of a cluster radical: `0-15`, `0-3,8-11`, `1,3,7` (`;` also separates, as SimGrid's reference shows). */
export function expandRadical(text: string, field: string): number[] {
  const hint = 'write the radical as comma-separated numbers or ranges, e.g. "0-15" or "0-3,8-11"';
  const out: number[] = [];
  for (const group of text.split(/[,;]/)) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(group);
    if (m === null) throw configError(`${field}: malformed radical group ${JSON.stringify(group)} in ${JSON.stringify(text)}`, hint);
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    if (end < start) throw configError(`${field}: radical range ${JSON.stringify(group.trim())} ends before it starts`, hint);
    if (end - start > 1_000_000 || out.length > 1_000_000) throw configError(`${field}: radical ${JSON.stringify(text)} has too many hosts`, 'keep a cluster under a million hosts');
    for (let i = start; i <= end; i++) out.push(i);
  }
  return out;
}
