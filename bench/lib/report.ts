/**
 * Benchmark output: parameters from environment variables (printed with their defaults), a
 * table on stdout, and JSON under bench/results/ (git-ignored) with everything measured.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

export const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));

/** Reads a numeric parameter, printing its value and default. */
export function param(name: string, fallback: number, description: string): number {
  const text = process.env[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isFinite(value)) throw new Error(`${name}=${text} is not a number`);
  console.log(`# ${name}=${value}${text === undefined ? ' (default)' : ''}: ${description}`);
  return value;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** "median [min-max]" with 3 significant digits. */
export function spread(values: number[]): string {
  if (values.length === 0) return '-';
  const f = (v: number): string => (Math.abs(v) >= 1000 ? v.toFixed(0) : v.toPrecision(3));
  if (values.length === 1) return f(values[0]!);
  return `${f(median(values))} [${f(Math.min(...values))}-${f(Math.max(...values))}]`;
}

export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of cells.slice(1)) console.log(line(r));
}

/** Writes the JSON record of a run and returns its path. */
export function writeResults(name: string, data: unknown): string {
  mkdirSync(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path = `${resultsDir}${name}-${stamp}.json`;
  const machine = { node: process.version, cores: availableParallelism(), cpu: cpus()[0]?.model, loadavg: loadavg() };
  writeFileSync(path, `${JSON.stringify({ benchmark: name, date: new Date().toISOString(), machine, ...(data as object) }, null, 2)}\n`);
  console.log(`\n# results: ${path}`);
  return path;
}
