/**
 * Slurm's hostlist syntax, as SLURM_STEP_NODELIST and SLURM_STEP_TASKS_PER_NODE use it.
 *
 * Host lists: comma-separated entries; an entry is a prefix, then any number of bracket groups
 * each followed by more text, e.g. `n[01-03,7]`, `rack[1-2]-node[08-09]`, `gpu[1,3]x`. Inside
 * brackets: values and ranges `lo-hi`; a range keeps the zero padding of its low bound
 * (`[08-11]` gives 08 09 10 11). Several bracket groups expand as a cross product, the last
 * group varying fastest. Commas inside brackets do not split entries.
 *
 * Task counts: `2(x3),1` means 2, 2, 2, 1.
 *
 * The reference is SchedMD/slurm src/common/hostlist.c; this is written from its documented
 * behaviour, not translated.
 */
import { ErrorCode, TsmpiError } from '../errors.js';

function hostlistError(text: string, why: string): TsmpiError {
  return new TsmpiError(ErrorCode.Init, `cannot read the host list ${JSON.stringify(text)}: ${why}`, {
    operation: 'hostlist',
    hint: 'host lists look like node[01-04,07],login1 (as SLURM_STEP_NODELIST)',
  });
}

/** Splits at commas that are not inside brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[') {
      if (depth > 0) throw hostlistError(text, 'nested brackets');
      depth++;
    } else if (c === ']') {
      if (depth === 0) throw hostlistError(text, `a "]" without "[" at ${i}`);
      depth--;
    } else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw hostlistError(text, 'a "[" is not closed');
  parts.push(text.slice(start));
  return parts;
}

/** The values of one bracket group: `01-03,7` -> ['01', '02', '03', '7']. */
function expandGroup(group: string, whole: string): string[] {
  const out: string[] = [];
  for (const item of group.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(item.trim());
    if (!range) throw hostlistError(whole, `"${item}" is not a number or a range`);
    const low = range[1]!;
    const high = range[2];
    if (high === undefined) {
      out.push(low);
      continue;
    }
    const a = Number(low);
    const b = Number(high);
    if (b < a) throw hostlistError(whole, `the range ${item} runs backwards`);
    if (b - a > 1_000_000) throw hostlistError(whole, `the range ${item} is too large`);
    const width = low.length;
    for (let v = a; v <= b; v++) out.push(String(v).padStart(width, '0'));
  }
  return out;
}

/** Expands one entry (`pre[..]mid[..]post`) to host names. */
function expandEntry(entry: string, whole: string): string[] {
  let names = [''];
  let rest = entry;
  while (rest.length > 0) {
    const open = rest.indexOf('[');
    if (open < 0) {
      names = names.map((n) => n + rest);
      break;
    }
    const close = rest.indexOf(']', open);
    const prefix = rest.slice(0, open);
    const values = expandGroup(rest.slice(open + 1, close), whole);
    const next: string[] = [];
    for (const n of names) for (const v of values) next.push(n + prefix + v);
    names = next;
    rest = rest.slice(close + 1);
  }
  return names;
}

/** Expands a Slurm host list to host names, in order (duplicates kept). */
export function expandHostlist(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const out: string[] = [];
  for (const entry of splitTopLevel(trimmed)) {
    if (entry === '') throw hostlistError(text, 'an empty entry');
    out.push(...expandEntry(entry, text));
  }
  return out;
}

/** Expands Slurm task counts: `2(x3),1` -> [2, 2, 2, 1]. */
export function expandTaskCounts(text: string): number[] {
  const out: number[] = [];
  for (const item of text.trim().split(',')) {
    const m = /^(\d+)(?:\(x(\d+)\))?$/.exec(item.trim());
    if (!m) {
      throw new TsmpiError(ErrorCode.Init, `cannot read the task counts ${JSON.stringify(text)}: "${item}"`, {
        operation: 'hostlist',
        hint: 'task counts look like 2(x3),1 (as SLURM_STEP_TASKS_PER_NODE)',
      });
    }
    const repeat = m[2] === undefined ? 1 : Number(m[2]);
    for (let i = 0; i < repeat; i++) out.push(Number(m[1]));
  }
  return out;
}

/** Compresses task counts: [2, 2, 2, 1] -> `2(x3),1`. */
export function compressTaskCounts(counts: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < counts.length; ) {
    let j = i;
    while (j < counts.length && counts[j] === counts[i]) j++;
    parts.push(j - i > 1 ? `${counts[i]}(x${j - i})` : `${counts[i]}`);
    i = j;
  }
  return parts.join(',');
}

/**
 * Compresses host names into a host list that expands back to exactly the same sequence:
 * consecutive names that share a prefix and a numeric suffix of the same width collapse into a
 * bracket range (`n01,n02,n03,x` -> `n[01-03],x`).
 */
export function compressHostlist(names: readonly string[]): string {
  const entries: string[] = [];
  let i = 0;
  while (i < names.length) {
    const m = /^(.*?)(\d+)$/.exec(names[i]!);
    if (!m || names[i]!.includes('[') || names[i]!.includes(',')) {
      entries.push(names[i]!);
      i++;
      continue;
    }
    const prefix = m[1]!;
    const width = m[2]!.length;
    const items: string[] = [];
    let j = i;
    while (j < names.length) {
      const n = /^(.*?)(\d+)$/.exec(names[j]!);
      if (!n || n[1] !== prefix || n[2]!.length !== width) break;
      // Zero padding must survive: a number written with a leading zero keeps its width, one
      // without must not need padding to reach it.
      const start = n[2]!;
      let k = j + 1;
      while (k < names.length) {
        const o = /^(.*?)(\d+)$/.exec(names[k]!);
        if (!o || o[1] !== prefix || o[2]!.length !== width || Number(o[2]) !== Number(start) + (k - j)) break;
        k++;
      }
      const end = names[k - 1]!.slice(prefix.length);
      items.push(k - j > 1 ? `${start}-${end}` : start);
      j = k;
    }
    const canonical = items.every((it) => it.split('-').every((v) => v.length === width));
    entries.push(items.length === 1 && !items[0]!.includes('-') ? names[i]! : canonical ? `${prefix}[${items.join(',')}]` : names.slice(i, j).join(','));
    i = j;
  }
  return entries.join(',');
}
