/**
 * The shape every comparison benchmark shares: REPS interleaved repetitions of (tsmpi, peers...),
 * a ratio per repetition against each peer, and the median [min-max] of each figure and ratio.
 */
import { median, printTable, spread, writeResults } from './report.ts';
import type { Record } from './jobs.ts';

export interface Figure {
  /** Row label, e.g. "8 B". */
  label: string;
  /** Picks this figure out of one run's records. */
  pick(records: Record[]): number | undefined;
}

export interface Peer {
  name: string;
  run(): Record[];
}

export interface Comparison {
  name: string;
  title: string;
  unit: string;
  /** 'lower' when smaller is better (latency), 'higher' for rates. */
  better: 'lower' | 'higher';
  figures: Figure[];
  reps: number;
  /** What `runTsmpi` measures, for the table's columns (default: tsmpi). */
  subject?: string;
  runTsmpi(): Record[];
  /** Peers measured in the same invocation (e.g. Open MPI, raw Node sockets). */
  peers?: Peer[];
  /** @deprecated single-peer form: use `peers`. */
  runPeer?: () => Record[];
  peerName?: string;
  extra?: object;
}

export function compare(c: Comparison): void {
  const peers: Peer[] = c.peers ?? (c.runPeer ? [{ name: c.peerName ?? 'Open MPI', run: c.runPeer }] : []);
  const ours: number[][] = c.figures.map(() => []);
  const theirs: number[][][] = peers.map(() => c.figures.map(() => []));
  const ratios: number[][][] = peers.map(() => c.figures.map(() => []));
  const raw: { tsmpi: Record[]; peers: Record[][] }[] = [];
  for (let rep = 0; rep < c.reps; rep++) {
    const t = c.runTsmpi();
    const p = peers.map((peer) => peer.run());
    raw.push({ tsmpi: t, peers: p });
    c.figures.forEach((f, i) => {
      const a = f.pick(t);
      if (a !== undefined) ours[i]!.push(a);
      peers.forEach((_, k) => {
        const b = f.pick(p[k]!);
        if (b !== undefined) theirs[k]![i]!.push(b);
        if (a !== undefined && b !== undefined) ratios[k]![i]!.push(a / b);
      });
    });
    process.stdout.write(`# rep ${rep + 1}/${c.reps} done\n`);
  }
  const subject = c.subject ?? 'tsmpi';
  const header = ['size', `${subject} ${c.unit}`, ...peers.flatMap((peer) => [`${peer.name} ${c.unit}`, `${subject} / ${peer.name}`])];
  const rows = c.figures.map((f, i) => [f.label, spread(ours[i]!), ...peers.flatMap((_, k) => [spread(theirs[k]![i]!), `${spread(ratios[k]![i]!)}x`])]);
  printTable(`${c.title} (median [min-max] of ${c.reps} interleaved reps; ${c.better} is better)`, header, rows);
  writeResults(c.name, {
    title: c.title,
    unit: c.unit,
    better: c.better,
    reps: c.reps,
    figures: c.figures.map((f, i) => ({
      label: f.label,
      tsmpi: { median: median(ours[i]!), values: ours[i] },
      peers: peers.map((peer, k) => ({ name: peer.name, median: median(theirs[k]![i]!), values: theirs[k]![i], ratio: { median: median(ratios[k]![i]!), values: ratios[k]![i] } })),
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
