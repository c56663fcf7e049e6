/**
 * The timeline of a run in the Chrome trace event format (JSON), which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open: a process per host, a track per rank (and more
 * lanes for a rank whose calls overlap, as a Promise.all of receives does), a slice per call,
 * the rounds of collectives nested in them, "compute" between calls, and a flow arrow from each
 * send to the receive that matched it. Times are microseconds from the first event of the run,
 * on one time line: each rank's clock plus its epoch (wall clocks of one machine agree; hosts'
 * offsets are in `otherData`).
 */
import { INTS_PER_EVENT, TraceEvent, type TraceChunk } from './rank-trace.js';

/** Where a rank ran: its node's name (ranks of a node share a process group in the viewer). */
export interface RankPlace {
  readonly node: string;
}

export interface ChromeTraceEvent {
  name: string;
  cat?: string;
  ph: 'X' | 'M' | 's' | 'f' | 'C';
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: number;
  bp?: 'e';
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  traceEvents: ChromeTraceEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, unknown>;
}

interface Slice {
  name: string;
  communicator: string;
  peer: number;
  tag: number;
  begin: number;
  end: number;
  lane: number;
  depth: number;
  bytes: number;
}

interface Message {
  rank: number;
  time: number;
  peer: number;
  sequence: number;
  bytes: number;
  tag: number;
  send: boolean;
  /** The call it was sent or matched in. */
  owner?: Slice | undefined;
}

interface Segment {
  time: number;
  rail: number;
  bytes: number;
}

/** Per rank: its slices, messages, rail segments and counts, from its chunks in order. */
function readRank(chunks: readonly TraceChunk[]): { slices: Slice[]; messages: Message[]; segments: Segment[]; events: number; dropped: number; epoch: number } {
  const open = new Map<number, Slice>();
  const slices: Slice[] = [];
  const messages: Message[] = [];
  const segments: Segment[] = [];
  let events = 0;
  let dropped = 0;
  const epoch = chunks[0]?.epoch ?? 0;
  for (const c of chunks) {
    events += c.count;
    dropped = Math.max(dropped, c.dropped);
    for (let i = 0; i < c.count; i++) {
      const o = i * INTS_PER_EVENT;
      const time = c.times[i]! + c.epoch - epoch;
      switch (c.kinds[i]) {
        case TraceEvent.Begin: {
          const slice: Slice = { name: c.strings[c.ints[o + 1]!] ?? '?', communicator: c.strings[c.ints[o + 2]!] ?? '', peer: c.ints[o + 3]!, tag: c.extra[i]!, begin: time, end: Number.NaN, lane: 0, depth: 0, bytes: 0 };
          open.set(c.ints[o]!, slice);
          slices.push(slice);
          break;
        }
        case TraceEvent.End: {
          const slice = open.get(c.ints[o]!);
          if (slice !== undefined) {
            slice.end = time;
            open.delete(c.ints[o]!);
          }
          break;
        }
        case TraceEvent.Send:
          messages.push({ rank: c.rank, time, peer: c.ints[o]!, sequence: c.ints[o + 1]!, tag: c.ints[o + 2]!, bytes: c.extra[i]!, send: true });
          break;
        case TraceEvent.Match:
          messages.push({ rank: c.rank, time, peer: c.ints[o]!, sequence: c.ints[o + 1]!, tag: -1, bytes: c.extra[i]!, send: false });
          break;
        case TraceEvent.Segment:
          segments.push({ time, rail: c.ints[o]!, bytes: c.extra[i]! });
          break;
      }
    }
  }
  // A slice still open when the rank's last chunk was written (it failed, or was stopped) ends there.
  let last = 0;
  for (const s of slices) last = Math.max(last, Number.isNaN(s.end) ? s.begin : s.end);
  for (const m of messages) last = Math.max(last, m.time);
  for (const s of open.values()) s.end = last;
  return { slices, messages, segments, events, dropped, epoch };
}

/**
 * Lanes: a slice goes on the first lane where it nests in what is open there (calls of one
 * rank overlap only when the program runs several at once).
 */
function assignLanes(slices: Slice[]): number {
  slices.sort((a, b) => a.begin - b.begin || b.end - a.end);
  const stacks: Slice[][] = [];
  for (const s of slices) {
    let lane = 0;
    for (;; lane++) {
      const stack = (stacks[lane] ??= []);
      while (stack.length > 0 && stack[stack.length - 1]!.end <= s.begin) stack.pop();
      if (stack.length === 0 || stack[stack.length - 1]!.end >= s.end) {
        s.lane = lane;
        s.depth = stack.length;
        stack.push(s);
        break;
      }
    }
  }
  return stacks.length;
}

/**
 * The innermost slice open at each message's time (slices sorted by begin): one sweep, with
 * the few slices open at a time in a list.
 */
function owners(slices: readonly Slice[], messages: Message[]): void {
  messages.sort((a, b) => a.time - b.time);
  let open: Slice[] = [];
  let next = 0;
  for (const m of messages) {
    while (next < slices.length && slices[next]!.begin <= m.time) open.push(slices[next++]!);
    open = open.filter((s) => s.end >= m.time);
    let best: Slice | undefined;
    for (const s of open) if (best === undefined || s.depth >= best.depth) best = s;
    m.owner = best;
  }
}

/** A span of a rank's time from another source (the simulator's account of virtual time), in the rank's clock. */
export interface AccountSpan {
  readonly rank: number;
  readonly kind: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Builds the timeline from every rank's chunks (`chunks[rank]` in order) and where each rank ran;
 * `account` spans (category `virtual`) go on a lane of their own under each rank's calls.
 */
export function chromeTrace(chunks: readonly (readonly TraceChunk[])[], places: readonly RankPlace[], otherData: Record<string, unknown> = {}, account: readonly AccountSpan[] = []): ChromeTrace {
  const size = chunks.length;
  const ranks = chunks.map((c) => readRank(c));
  // Epochs are ~1.8e9 s: subtract them first, then add the rank's small times (sub-microsecond).
  const baseEpoch = ranks.reduce((m, r) => Math.min(m, r.epoch), Infinity);
  const shift = ranks.map((r) => r.epoch - (Number.isFinite(baseEpoch) ? baseEpoch : 0));
  let origin = Infinity;
  ranks.forEach((r, rank) => {
    for (const s of r.slices) origin = Math.min(origin, shift[rank]! + s.begin);
    for (const m of r.messages) origin = Math.min(origin, shift[rank]! + m.time);
  });
  for (const a of account) if (shift[a.rank] !== undefined) origin = Math.min(origin, shift[a.rank]! + a.start);
  const t0 = Number.isFinite(origin) ? origin : 0;
  const us = (rank: number, time: number): number => (shift[rank]! + time - t0) * 1e6;
  const nodes = [...new Set(places.map((p) => p.node))];
  const pidOf = (rank: number): number => nodes.indexOf(places[rank]?.node ?? '') + 1;
  const events: ChromeTraceEvent[] = [];
  nodes.forEach((node, i) => {
    events.push({ name: 'process_name', ph: 'M', pid: i + 1, tid: 0, args: { name: node } });
    events.push({ name: 'process_sort_index', ph: 'M', pid: i + 1, tid: 0, args: { sort_index: i } });
  });
  const tidOf = (rank: number, lane: number): number => rank + lane * size;
  const lanesOf: number[] = [];
  ranks.forEach((r, rank) => {
    const lanes = assignLanes(r.slices);
    lanesOf.push(lanes);
    for (let lane = 0; lane < Math.max(1, lanes); lane++) {
      const tid = tidOf(rank, lane);
      events.push({ name: 'thread_name', ph: 'M', pid: pidOf(rank), tid, args: { name: lane === 0 ? `rank ${rank}` : `rank ${rank} (${lane + 1})` } });
      events.push({ name: 'thread_sort_index', ph: 'M', pid: pidOf(rank), tid, args: { sort_index: tid } });
    }
  });
  // Bytes of each message, on the innermost call that sent or matched it.
  ranks.forEach((r) => {
    owners(r.slices, r.messages);
    for (const m of r.messages) if (m.owner !== undefined) m.owner.bytes += m.bytes;
  });
  ranks.forEach((r, rank) => {
    const pid = pidOf(rank);
    for (const s of r.slices) {
      const args: Record<string, unknown> = {};
      if (s.communicator !== '') args.communicator = s.communicator;
      if (s.peer >= 0) args.peer = s.peer;
      if (s.tag >= 0) args.tag = s.tag;
      if (s.bytes > 0) args.bytes = s.bytes;
      const category = s.name.startsWith('round ') ? 'round' : s.name.startsWith('wait') ? 'wait' : s.name.startsWith('task ') ? 'task' : s.name === 'rebalance' ? 'balance' : 'call';
      // A task's tag is its id; a balancer step's, the rank's load before it.
      if (category === 'task' && s.tag >= 0) {
        delete args.tag;
        args.task = s.tag;
      } else if (category === 'balance') {
        delete args.tag;
        args.load = s.tag;
      }
      events.push({ name: s.name, cat: category, ph: 'X', ts: us(rank, s.begin), dur: Math.max(0, us(rank, s.end) - us(rank, s.begin)), pid, tid: tidOf(rank, s.lane), args });
    }
    // Compute: the gaps between the rank's outermost calls on its first lane.
    const top = r.slices.filter((s) => s.lane === 0 && s.depth === 0);
    for (let i = 1; i < top.length; i++) {
      const from = top[i - 1]!.end;
      const to = top[i]!.begin;
      if (to - from > 1e-6) events.push({ name: 'compute', cat: 'compute', ph: 'X', ts: us(rank, from), dur: us(rank, to) - us(rank, from), pid, tid: tidOf(rank, 0) });
    }
  });
  // Rail segments: bytes each rank sent on each rail so far (the slope is the rail's rate).
  ranks.forEach((r, rank) => {
    const sent = new Map<number, number>();
    for (const seg of r.segments) {
      sent.set(seg.rail, (sent.get(seg.rail) ?? 0) + seg.bytes);
      const args: Record<string, number> = {};
      for (const [rail, bytes] of [...sent].sort((a, b) => a[0] - b[0])) args[`rail ${rail}`] = bytes;
      events.push({ name: `rank ${rank}: bytes sent per rail`, cat: 'rail', ph: 'C', ts: us(rank, seg.time), pid: pidOf(rank), tid: tidOf(rank, 0), args });
    }
  });
  // The account of each rank's time, on the lane after its calls.
  const accounted = new Set(account.map((a) => a.rank));
  for (const rank of accounted) {
    const tid = tidOf(rank, Math.max(1, lanesOf[rank] ?? 1));
    events.push({ name: 'thread_name', ph: 'M', pid: pidOf(rank), tid, args: { name: `rank ${rank}: virtual time` } });
    events.push({ name: 'thread_sort_index', ph: 'M', pid: pidOf(rank), tid, args: { sort_index: tid } });
  }
  for (const a of account) {
    if (ranks[a.rank] === undefined) continue;
    events.push({ name: a.kind, cat: 'virtual', ph: 'X', ts: us(a.rank, a.start), dur: us(a.rank, a.end) - us(a.rank, a.start), pid: pidOf(a.rank), tid: tidOf(a.rank, Math.max(1, lanesOf[a.rank] ?? 1)), args: { rank: a.rank } });
  }
  // Flows: the k-th message rank s started to rank d is the one d matched with sequence k.
  const sends = new Map<string, Message>();
  for (const r of ranks) for (const m of r.messages) if (m.send) sends.set(`${m.rank}>${m.peer}#${m.sequence}`, m);
  let flowId = 0;
  let unmatched = 0;
  for (const r of ranks) {
    for (const m of r.messages) {
      if (m.send) continue;
      const send = sends.get(`${m.peer}>${m.rank}#${m.sequence}`);
      if (send === undefined || ranks[send.rank] === undefined) {
        unmatched++;
        continue;
      }
      const id = ++flowId;
      events.push({ name: 'message', cat: 'message', ph: 's', id, ts: us(send.rank, send.time), pid: pidOf(send.rank), tid: tidOf(send.rank, send.owner?.lane ?? 0), args: { bytes: send.bytes, tag: send.tag } });
      // Matched inside a call: the arrow ends in it; matched while the rank was elsewhere (the
      // simulator delivers on arrival): in the next call of its track, which reports it.
      events.push({ name: 'message', cat: 'message', ph: 'f', ...(m.owner !== undefined ? { bp: 'e' as const } : {}), id, ts: us(m.rank, m.time), pid: pidOf(m.rank), tid: tidOf(m.rank, m.owner?.lane ?? 0) });
    }
  }
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: {
      tool: 'tsmpi',
      ranks: size,
      nodes,
      events: ranks.map((r) => r.events),
      dropped: ranks.map((r) => r.dropped),
      messages: flowId,
      unmatchedReceives: unmatched,
      originEpochSeconds: (Number.isFinite(baseEpoch) ? baseEpoch : 0) + t0,
      ...otherData,
    },
  };
}
