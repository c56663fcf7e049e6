/**
 * A timeline in the Chrome trace event format (JSON), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open: one track per rank (pid 0, tid = rank) with its compute and blocked
 * spans; times in microseconds of virtual time.
 */
import { writeFileSync } from 'node:fs';
import type { Span } from '../world.js';

interface TraceEvent {
  name: string;
  cat: string;
  ph: 'X' | 'M';
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: Record<string, unknown>;
}

export function chromeTrace(spans: readonly Span[], ranks: number): { traceEvents: TraceEvent[]; displayTimeUnit: 'ms' } {
  const events: TraceEvent[] = [{ name: 'process_name', cat: '__metadata', ph: 'M', pid: 0, tid: 0, args: { name: 'tsmpi sim' } }];
  for (let r = 0; r < ranks; r++) events.push({ name: 'thread_name', cat: '__metadata', ph: 'M', pid: 0, tid: r, args: { name: `rank ${r}` } });
  for (const s of spans) {
    events.push({ name: s.what ?? s.kind, cat: s.kind, ph: 'X', ts: s.start * 1e6, dur: (s.end - s.start) * 1e6, pid: 0, tid: s.rank });
  }
  return { traceEvents: events, displayTimeUnit: 'ms' };
}

export function writeChromeTrace(path: string, spans: readonly Span[], ranks: number): void {
  writeFileSync(path, JSON.stringify(chromeTrace(spans, ranks)));
}
