// Reading a timeline file (Chrome trace JSON) as the tests check it: rank tracks, call slices,
// and the arrows from each send to its receive.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export interface TraceEventJson {
  name: string;
  cat?: string;
  ph: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: number;
  bp?: string;
  args?: Record<string, unknown>;
}

export interface Timeline {
  events: TraceEventJson[];
  other: { ranks: number; nodes: string[]; events: number[]; dropped: number[]; messages: number; unmatchedReceives: number; missingRanks?: number[] };
  /** Track name by "pid:tid". */
  tracks: Map<string, string>;
  /** Call and round slices (not compute, not the simulator's account). */
  slices: TraceEventJson[];
  flows: { from: TraceEventJson; to: TraceEventJson }[];
}

export function readTimeline(path: string): Timeline {
  const json = JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: TraceEventJson[]; otherData: Timeline['other'] };
  const events = json.traceEvents;
  const tracks = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') tracks.set(`${e.pid}:${e.tid}`, String(e.args!.name));
  const slices = events.filter((e) => e.ph === 'X' && e.cat !== 'compute' && e.cat !== 'virtual');
  const starts = new Map<number, TraceEventJson>();
  const ends = new Map<number, TraceEventJson>();
  for (const e of events) {
    if (e.ph === 's') starts.set(e.id!, e);
    if (e.ph === 'f') ends.set(e.id!, e);
  }
  assert.equal(starts.size, ends.size, 'every arrow has a start and an end');
  const flows = [...starts].map(([id, from]) => ({ from, to: ends.get(id)! }));
  return { events, other: json.otherData, tracks, slices, flows };
}

/** The rank a track belongs to ("rank 3" or "rank 3 (2)"). */
export function rankOfTrack(timeline: Timeline, e: TraceEventJson): number {
  const name = timeline.tracks.get(`${e.pid}:${e.tid}`);
  const m = /^rank (\d+)/.exec(name ?? '');
  assert.ok(m, `event on an unnamed track: ${JSON.stringify(e)}`);
  return Number(m[1]);
}

/** The innermost slice of that track containing time `ts`. */
export function sliceAt(timeline: Timeline, pid: number, tid: number, ts: number): TraceEventJson | undefined {
  let best: TraceEventJson | undefined;
  for (const s of timeline.slices) {
    if (s.pid !== pid || s.tid !== tid || s.ts! > ts || s.ts! + s.dur! < ts) continue;
    if (best === undefined || s.dur! <= best.dur!) best = s;
  }
  return best;
}
