/**
 * The shape every comparison benchmark shares: REPS interleaved repetitions of (tsmpi, Open MPI),
 * a ratio per repetition, and the median [min-max] of each figure and ratio.
 */
import { median, printTable, spread, writeResults } from './report.ts';
import type { Record } from './jobs.ts';

export interface Figure {
  /** Row label, e.g. "8 B". */
  label: string;
  /** Picks this figure out of one run's records. */
  pick(records: Record[]): number | undefined;
}

export interface Comparison {
  name: string;
  title: string;
  unit: string;
  /** 'lower' when smaller is better (latency), 'higher' for rates. */
  better: 'lower' | 'higher';
  figures: Figure[];
  reps: number;
  runTsmpi(): Record[];
  runPeer?: () => Record[];
  peerName?: string;
  extra?: object;
}

export function compare(c: Comparison): void {
  const ours: number[][] = c.figures.map(() => []);
  const theirs: number[][] = c.figures.map(() => []);
  const ratios: number[][] = c.figures.map(() => []);
  const raw: { tsmpi: Record[]; peer?: Record[] }[] = [];
  for (let rep = 0; rep < c.reps; rep++) {
    const t = c.runTsmpi();
    const p = c.runPeer?.();
    raw.push(p ? { tsmpi: t, peer: p } : { tsmpi: t });
    c.figures.forEach((f, i) => {
      const a = f.pick(t);
      const b = p ? f.pick(p) : undefined;
      if (a !== undefined) ours[i]!.push(a);
      if (b !== undefined) theirs[i]!.push(b);
      if (a !== undefined && b !== undefined) ratios[i]!.push(a / b);
    });
    process.stdout.write(`# rep ${rep + 1}/${c.reps} done\n`);
  }
  const peer = c.peerName ?? 'Open MPI';
  const header = ['size', `tsmpi ${c.unit}`, ...(c.runPeer ? [`${peer} ${c.unit}`, `tsmpi / ${peer}`] : [])];
  const rows = c.figures.map((f, i) => [f.label, spread(ours[i]!), ...(c.runPeer ? [spread(theirs[i]!), `${spread(ratios[i]!)}x`] : [])]);
  printTable(`${c.title} (median [min-max] of ${c.reps} interleaved reps; ${c.better} is better)`, header, rows);
  writeResults(c.name, {
    title: c.title,
    unit: c.unit,
    better: c.better,
    reps: c.reps,
    figures: c.figures.map((f, i) => ({
      label: f.label,
      tsmpi: { median: median(ours[i]!), values: ours[i] },
      ...(c.runPeer ? { peer: { name: peer, median: median(theirs[i]!), values: theirs[i] }, ratio: { median: median(ratios[i]!), values: ratios[i] } } : {}),
    })),
    ...c.extra,
    raw,
  });
}

export function sizeLabel(bytes: number): string {
  if (bytes >= 1 << 20) return `${bytes / (1 << 20)} MiB`;
  if (bytes >= 1024) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}
