/**
 * Benchmark output: parameters from environment variables (printed with their defaults), a
 * table on stdout, and JSON under bench/results/ (git-ignored) with everything measured.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

export const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));

const bareRing = fileURLToPath(new URL('./bare-ring.mjs', import.meta.url));

/** One run of bare-ring.mjs with messages of `bytes`: its JSON line (`gbps`); throws when it fails. */
export function runBareRing(bytes: number): { bench: string; bytes: number; gbps: number } {
  const result = spawnSync(process.execPath, [bareRing, String(bytes)], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) throw new Error(`bare-ring failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim()) as { bench: string; bytes: number; gbps: number };
}

/**
 * GB/s at which two bare worker threads copy 1 MiB messages through a shared ring
 * (bare-ring.mjs, ~0.2 s), or undefined when it did not run. Copies between this machine's two
 * cores switch between two speeds from one minute to the next, and a bench's figures move with
 * them (tsmpi's more than a peer's that copies once): each invocation measures it as it starts
 * and as it writes its results, prints both and keeps them in its JSON (`machine.ringCopyGBps`).
 */
export function ringCopyGBps(): number | undefined {
  try {
    const { gbps } = runBareRing(1 << 20);
    return typeof gbps === 'number' && gbps > 0 ? gbps : undefined;
  } catch {
    return undefined;
  }
}

const kernelSpeed = fileURLToPath(new URL('./kernel-speed.mjs', import.meta.url));

/**
 * Gflop/s of kernel-speed.mjs (a dependent multiply-add chain in a fresh process, ~0.1 s), or
 * undefined when it did not run: the CPU this machine lends its programs now, beside a run that
 * computes (the same instrument before and after, not the calibration's own figure).
 */
export function kernelGflops(): number | undefined {
  try {
    const result = spawnSync(process.execPath, [kernelSpeed], { encoding: 'utf8', timeout: 30_000 });
    if (result.status !== 0) return undefined;
    const { gflops } = JSON.parse(result.stdout.trim()) as { gflops?: unknown };
    return typeof gflops === 'number' && gflops > 0 ? gflops : undefined;
  } catch {
    return undefined;
  }
}

function announceCopySpeed(when: string): number | undefined {
  const gbps = ringCopyGBps();
  console.log(`# two bare threads copy through a ring at ${gbps === undefined ? '? (the probe failed)' : `${gbps.toFixed(1)} GB/s`} ${when} (bench/lib/bare-ring.mjs; the machine's copy speed)`);
  return gbps;
}

/** The machine's copy speed as the bench started (report.ts is loaded first thing by every bench). */
const copyAtStart = announceCopySpeed('as the bench starts');

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
  const copyNow = announceCopySpeed('now');
  const machine = { node: process.version, cores: availableParallelism(), cpu: cpus()[0]?.model, loadavg: loadavg(), ringCopyGBps: { start: copyAtStart ?? null, end: copyNow ?? null } };
  writeFileSync(path, `${JSON.stringify({ benchmark: name, date: new Date().toISOString(), machine, ...(data as object) }, null, 2)}\n`);
  console.log(`\n# results: ${path}`);
  return path;
}
