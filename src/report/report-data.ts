/**
 * What `tsmpi report` draws, read from a run's timeline (`--trace`, real or simulated, a replay's
 * too) or from its profile (`--profile-json`): the tracks and their slices, each rank's time split
 * into compute, communication and waiting, the communication matrix, the sizes of messages and
 * the time per call. Plain data: the page gets it as JSON.
 */
import type { ChromeTraceEvent } from '../trace/chrome-trace.js';
import type { JobProfile } from '../trace/job-profile.js';
import { sizeLabel } from '../size-label.js';

/** Most slices drawn in the overview (the outermost calls first, then compute). */
const MAX_TIMELINE_SLICES = 20_000;

export interface ReportData {
  source: 'trace' | 'profile';
  title: string;
  ranks: number;
  simulated: boolean;
  /** Track names, top to bottom, and the slices on them (ms from the first event). */
  tracks: string[];
  slices: { track: number; name: string; category: string; start: number; end: number }[];
  /** Per rank, ms: compute, communication (inside calls) and waiting (waits, or blocked under the simulator). */
  breakdown: { rank: number; compute: number; communication: number; waiting: number }[];
  matrix: number[][] | undefined;
  sizes: { bin: string; count: number }[];
  calls: { name: string; ms: number; count: number }[];
  /** Per rail, its rate over time (all ranks' segments): [ms, MB/s] points. */
  rails: { rail: number; points: [number, number][] }[];
  /** Task pools: per rank, tasks run and ms in them. */
  tasks: { rank: number; count: number; ms: number }[];
  /** Diffusion balancer: per step, the ranks' load before it (min, mean, max). */
  balance: { step: number; min: number; mean: number; max: number }[];
  notes: string[];
}

/** Rails' rates over time, from the cumulative per-rail counters of the timeline, in `buckets` steps. */
function railRates(events: readonly ChromeTraceEvent[], buckets = 60): ReportData['rails'] {
  const counters = events.filter((e) => e.ph === 'C' && e.cat === 'rail' && e.ts !== undefined);
  if (counters.length === 0) return [];
  // Increments per (series, rail): the counters are cumulative per rank.
  const last = new Map<string, number>();
  const increments: { t: number; rail: number; bytes: number }[] = [];
  for (const e of [...counters].sort((a, b) => a.ts! - b.ts!)) {
    for (const [key, value] of Object.entries(e.args ?? {})) {
      const rail = Number(key.replace('rail ', ''));
      const id = `${e.name}|${rail}`;
      const bytes = Number(value) - (last.get(id) ?? 0);
      last.set(id, Number(value));
      if (bytes > 0) increments.push({ t: e.ts! / 1e3, rail, bytes });
    }
  }
  const t0 = Math.min(...increments.map((i) => i.t));
  const t1 = Math.max(...increments.map((i) => i.t));
  const width = Math.max((t1 - t0) / buckets, 1e-3);
  const rails = [...new Set(increments.map((i) => i.rail))].sort((a, b) => a - b);
  return rails.map((rail) => {
    const sums = new Array<number>(buckets + 1).fill(0);
    for (const i of increments) if (i.rail === rail) sums[Math.min(buckets, Math.floor((i.t - t0) / width))]! += i.bytes;
    // bytes per ms = kB/s; / 1e3 for MB/s.
    return { rail, points: sums.map((b, k) => [t0 + (k + 0.5) * width, b / width / 1e3] as [number, number]) };
  });
}

function rankOf(name: string): number {
  const m = /^rank (\d+)/.exec(name);
  return m === null ? -1 : Number(m[1]);
}

function sizeBin(bytes: number): string {
  if (bytes <= 0) return '0 B';
  const power = Math.floor(Math.log2(bytes));
  return sizeLabel(2 ** power);
}

/** Outermost slices of one track (slices sorted by start): the time a rank spent inside calls. */
function outermost<T extends { start: number; end: number }>(sorted: readonly T[]): T[] {
  const out: T[] = [];
  let end = -Infinity;
  for (const s of sorted) {
    if (s.start >= end) {
      out.push(s);
      end = s.end;
    }
  }
  return out;
}

export function reportFromTrace(json: { traceEvents: ChromeTraceEvent[]; otherData?: Record<string, unknown> }, title: string): ReportData {
  const events = json.traceEvents;
  const other = json.otherData ?? {};
  const trackName = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') trackName.set(`${e.pid}:${e.tid}`, String(e.args?.name ?? ''));
  const keys = [...trackName.keys()].sort((a, b) => {
    const [ra, rb] = [rankOf(trackName.get(a)!), rankOf(trackName.get(b)!)];
    return ra - rb || trackName.get(a)!.localeCompare(trackName.get(b)!);
  });
  const trackIndex = new Map(keys.map((k, i) => [k, i]));
  const all = events
    .filter((e) => e.ph === 'X' && e.ts !== undefined)
    .map((e) => ({ track: trackIndex.get(`${e.pid}:${e.tid}`) ?? -1, name: e.name, category: e.cat ?? '', start: e.ts! / 1e3, end: (e.ts! + (e.dur ?? 0)) / 1e3 }))
    .filter((s) => s.track >= 0)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const ranks = Number(other.ranks ?? new Set(keys.map((k) => rankOf(trackName.get(k)!))).size);
  const simulated = other.simulated === true;
  const breakdown = Array.from({ length: ranks }, (_, rank) => ({ rank, compute: 0, communication: 0, waiting: 0 }));
  const byTrack = new Map<number, typeof all>();
  for (const s of all) {
    const list = byTrack.get(s.track);
    if (list === undefined) byTrack.set(s.track, [s]);
    else list.push(s);
  }
  const virtual = all.some((s) => s.category === 'virtual');
  for (const [track, list] of byTrack) {
    const name = trackName.get(keys[track]!)!;
    const b = breakdown[rankOf(name)];
    if (b === undefined) continue;
    if (virtual) {
      // The simulator's own account of each rank's time.
      if (!name.endsWith(': virtual time')) continue;
      for (const s of list) {
        if (s.name === 'compute') b.compute += s.end - s.start;
        else if (s.name === 'blocked') b.waiting += s.end - s.start;
        else b.communication += s.end - s.start;
      }
      continue;
    }
    if (name !== `rank ${rankOf(name)}`) continue;
    for (const s of outermost(list)) {
      if (s.category === 'compute') b.compute += s.end - s.start;
      else if (s.category === 'wait' || s.name.startsWith('wait')) b.waiting += s.end - s.start;
      else b.communication += s.end - s.start;
    }
  }
  // Arrows: sender track at the start, receiver at the end, bytes on the start.
  const starts = new Map<number, ChromeTraceEvent>();
  const ends = new Map<number, ChromeTraceEvent>();
  for (const e of events) {
    if (e.ph === 's' && e.id !== undefined) starts.set(e.id, e);
    if (e.ph === 'f' && e.id !== undefined) ends.set(e.id, e);
  }
  const matrix = Array.from({ length: ranks }, () => new Array<number>(ranks).fill(0));
  const bins = new Map<string, { bin: string; count: number; low: number }>();
  for (const [id, s] of starts) {
    const f = ends.get(id);
    const bytes = Number(s.args?.bytes ?? 0);
    const from = rankOf(trackName.get(`${s.pid}:${s.tid}`) ?? '');
    const to = f === undefined ? -1 : rankOf(trackName.get(`${f.pid}:${f.tid}`) ?? '');
    if (from >= 0 && to >= 0 && from < ranks && to < ranks) matrix[from]![to]! += bytes;
    const bin = sizeBin(bytes);
    const entry = bins.get(bin) ?? { bin, count: 0, low: bytes <= 0 ? 0 : 2 ** Math.floor(Math.log2(bytes)) };
    entry.count++;
    bins.set(bin, entry);
  }
  const calls = new Map<string, { name: string; ms: number; count: number }>();
  for (const [track, list] of byTrack) {
    const name = trackName.get(keys[track]!)!;
    if (name.endsWith(': virtual time')) continue;
    for (const s of outermost(list)) {
      if (s.category === 'compute') continue;
      const c = calls.get(s.name) ?? { name: s.name, ms: 0, count: 0 };
      c.ms += s.end - s.start;
      c.count++;
      calls.set(s.name, c);
    }
  }
  const tasks = new Map<number, { rank: number; count: number; ms: number }>();
  for (const [track, list] of byTrack) {
    const rank = rankOf(trackName.get(keys[track]!)!);
    for (const s of list) {
      if (s.category !== 'task') continue;
      const t = tasks.get(rank) ?? { rank, count: 0, ms: 0 };
      t.count++;
      t.ms += s.end - s.start;
      tasks.set(rank, t);
    }
  }
  // Balancer steps: the k-th step of every rank is one step of the job.
  const loadsByTrack = new Map<string, { ts: number; load: number }[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.cat !== 'balance') continue;
    const key = `${e.pid}:${e.tid}`;
    const loads = loadsByTrack.get(key) ?? [];
    loads.push({ ts: e.ts ?? 0, load: Number(e.args?.load ?? 0) });
    loadsByTrack.set(key, loads);
  }
  const steps = new Map<number, number[]>();
  for (const loads of loadsByTrack.values()) {
    loads
      .sort((a, b) => a.ts - b.ts)
      .forEach((l, step) => {
        const atStep = steps.get(step) ?? [];
        atStep.push(l.load);
        steps.set(step, atStep);
      });
  }
  const balance = [...steps].sort((a, b) => a[0] - b[0]).map(([step, loads]) => ({ step: step + 1, min: Math.min(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length, max: Math.max(...loads) }));
  const notes: string[] = [];
  // The overview: outermost slices first (what each rank did), then nested ones while room is left.
  let slices = all;
  if (all.length > MAX_TIMELINE_SLICES) {
    const outer = new Set<(typeof all)[number]>();
    for (const list of byTrack.values()) for (const s of outermost(list)) outer.add(s);
    slices = [...outer].slice(0, MAX_TIMELINE_SLICES);
    notes.push(`The overview draws ${slices.length} of the timeline's ${all.length} slices (each rank's outermost calls); open the trace in Perfetto for all of them.`);
  }
  const dropped = (other.dropped as number[] | undefined)?.reduce((a, b) => a + b, 0) ?? 0;
  if (dropped > 0) notes.push(`${dropped} events were dropped past TSMPI_TRACE_LIMIT while recording.`);
  if (starts.size === 0) notes.push('No messages were recorded: the matrix and the size histogram are empty.');
  return {
    source: 'trace',
    title,
    ranks,
    simulated,
    tracks: keys.map((k) => trackName.get(k)!),
    slices,
    breakdown,
    matrix: starts.size > 0 ? matrix : undefined,
    sizes: [...bins.values()].sort((a, b) => a.low - b.low).map(({ bin, count }) => ({ bin, count })),
    calls: [...calls.values()].sort((a, b) => b.ms - a.ms),
    rails: railRates(events),
    tasks: [...tasks.values()].sort((a, b) => a.rank - b.rank),
    balance,
    notes,
  };
}

export function reportFromProfile(p: JobProfile, title: string): ReportData {
  const breakdown = p.perRank.map((r) => ({ rank: r.rank, compute: (r.span - r.inCalls) * 1e3, communication: 0, waiting: 0 }));
  for (const c of p.calls) {
    for (const r of c.perRank) {
      const b = breakdown.find((x) => x.rank === r.rank);
      if (b === undefined) continue;
      if (c.name.startsWith('wait')) b.waiting += r.seconds * 1e3;
      else b.communication += r.seconds * 1e3;
    }
  }
  return {
    source: 'profile',
    title,
    ranks: p.ranks,
    simulated: false,
    tracks: [],
    slices: [],
    breakdown,
    matrix: p.matrix.bytes,
    sizes: [],
    calls: p.calls.map((c) => ({ name: c.name, ms: c.seconds * 1e3, count: c.count })),
    rails: [],
    tasks: [],
    balance: [],
    notes: ['From a profile: no timeline and no message sizes (record the run with --trace for those).'],
  };
}
