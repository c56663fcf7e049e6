/**
 * Where a real run's timeline goes: each process of the job appends its ranks' chunks to a part
 * file beside the trace (`FILE.part-JOB-N`, one JSON line per chunk, written as they come so
 * that memory stays bounded), and whoever ends the job (the launcher, or task 0 under srun)
 * merges the parts into FILE and removes them.
 */
import { appendFileSync, closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { basename, dirname, join, resolve } from 'node:path';
import { chromeTrace, type ChromeTrace } from './chrome-trace.js';
import { formatProfile, jobProfile, type JobProfile } from './job-profile.js';
import type { RankProfileData } from './rank-profile.js';
import type { TraceChunk } from './rank-trace.js';

/** What a job records: its timeline file (TSMPI_TRACE) and its profile (TSMPI_PROFILE: 1 or a JSON file). */
export interface Recording {
  readonly trace: string;
  readonly profile: string;
}

export function recording(env: Readonly<Record<string, string | undefined>>): Recording | undefined {
  const trace = env.TSMPI_TRACE ?? '';
  const profile = env.TSMPI_PROFILE ?? '';
  return trace === '' && profile === '' ? undefined : { trace, profile };
}

/** Where the part files go: beside the timeline, or the JSON profile, or in the temporary directory. */
export function recordingBase(r: Recording): string {
  if (r.trace !== '') return r.trace;
  if (r.profile !== '1') return r.profile;
  return join(tmpdir(), 'tsmpi-profile');
}

interface PartLine {
  rank: number;
  node: string;
  epoch: number;
  dropped: number;
  last: boolean;
  strings: string[];
  kinds: number[];
  times: number[];
  ints: number[];
  extra: number[];
  profile?: RankProfileData;
}

function partPrefix(file: string, jobId: string): string {
  return `${basename(file)}.part-${jobId.replace(/[^A-Za-z0-9_.-]/g, '_')}-`;
}

/** The part file of one process of job `jobId` (`index`: its first resource id). */
export function tracePartPath(r: Recording, jobId: string, index: number): string {
  const base = recordingBase(r);
  return join(dirname(resolve(base)), `${partPrefix(base, jobId)}${index}`);
}

/** Appends the chunks of one process's ranks to its part file. */
export class TracePartWriter {
  private readonly path: string;
  private readonly node: string;

  constructor(path: string, node: string) {
    this.path = path;
    this.node = node;
    writeFileSync(path, '');
  }

  /** `mapSites`: the call sites of the rank's profile, from the compiled program to its sources. */
  /** This process's clock against the launcher's (ms ahead): its times are moved by it at the merge. */
  clock(offsetMs: number, roundTripMs: number): void {
    appendFileSync(this.path, `${JSON.stringify({ clock: { offsetMs, roundTripMs, node: this.node } })}\n`);
  }

  add(chunk: TraceChunk, mapSites: (profile: RankProfileData) => RankProfileData = (p) => p): void {
    const line: PartLine = {
      rank: chunk.rank,
      node: this.node,
      epoch: chunk.epoch,
      dropped: chunk.dropped,
      last: chunk.last,
      strings: chunk.strings,
      kinds: Array.from(chunk.kinds),
      times: Array.from(chunk.times),
      ints: Array.from(chunk.ints),
      extra: Array.from(chunk.extra),
      ...(chunk.profile !== undefined ? { profile: mapSites(chunk.profile) } : {}),
    };
    appendFileSync(this.path, `${JSON.stringify(line)}\n`);
  }
}

function chunkOf(line: PartLine): TraceChunk {
  return {
    rank: line.rank,
    count: line.kinds.length,
    kinds: Uint8Array.from(line.kinds),
    times: Float64Array.from(line.times),
    ints: Int32Array.from(line.ints),
    extra: Float64Array.from(line.extra),
    strings: line.strings,
    dropped: line.dropped,
    epoch: line.epoch,
    last: line.last,
  };
}

/** Everything the timeline file says about the run besides its events. */
export interface TraceSummary {
  readonly ranks: number;
  readonly events: number;
  readonly dropped: number;
  /** Ranks with no events in any part (their part was not found: another host's disk?). */
  readonly missing: number[];
}

/**
 * Ends a job's recording: merges the part files of job `jobId` (`size` ranks), removes them,
 * writes the timeline and the JSON profile if asked, and returns the lines to print (where the
 * timeline is, the profile).
 */
export function finishRecording(r: Recording, jobId: string, size: number): string[] {
  const base = recordingBase(r);
  const dir = dirname(resolve(base));
  const prefix = partPrefix(base, jobId);
  const parts = existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(prefix)) : [];
  const chunks: TraceChunk[][] = Array.from({ length: size }, () => []);
  const profiles: (RankProfileData | undefined)[] = new Array(size).fill(undefined);
  const places = Array.from({ length: size }, () => ({ node: '?' }));
  const clocks: { node: string; offsetMs: number; roundTripMs: number }[] = [];
  for (const name of parts) {
    const path = join(dir, name);
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((text) => text !== '')
      .map((text) => JSON.parse(text) as PartLine | { clock: { node: string; offsetMs: number; roundTripMs: number } });
    // A process on another host measured its clock against the launcher's: its times move by that.
    const clock = lines.find((l): l is { clock: { node: string; offsetMs: number; roundTripMs: number } } => 'clock' in l)?.clock;
    if (clock !== undefined) clocks.push(clock);
    for (const line of lines) {
      if ('clock' in line || line.rank < 0 || line.rank >= size) continue;
      const chunk = chunkOf(line);
      chunks[line.rank]!.push(clock === undefined ? chunk : { ...chunk, epoch: chunk.epoch + clock.offsetMs / 1000 });
      places[line.rank] = { node: line.node };
      if (line.profile !== undefined) profiles[line.rank] = line.profile;
    }
    rmSync(path, { force: true });
  }
  const out: string[] = [];
  if (r.trace !== '') {
    const missing = chunks.flatMap((c, rank) => (c.length === 0 ? [rank] : []));
    const trace = chromeTrace(chunks, places, { missingRanks: missing, clockOffsets: clocks });
    writeTrace(r.trace, trace);
    out.push(describeTrace(r.trace, summaryOf(trace, missing)));
  }
  if (r.profile !== '') out.push(...reportProfile(r.profile, jobProfile(size, profiles)));
  return out;
}

/** The profile's text, and its JSON written when TSMPI_PROFILE names a file. */
export function reportProfile(profile: string, p: JobProfile): string[] {
  const lines = formatProfile(p);
  if (profile !== '1') {
    writeFileSync(profile, `${JSON.stringify(p, null, 1)}\n`);
    lines.push(`tsmpi: profile written to ${profile}`);
  }
  return lines;
}

export function summaryOf(trace: ChromeTrace, missing: number[] = []): TraceSummary {
  const events = (trace.otherData.events as number[]).reduce((a, b) => a + b, 0);
  const dropped = (trace.otherData.dropped as number[]).reduce((a, b) => a + b, 0);
  return { ranks: trace.otherData.ranks as number, events, dropped, missing };
}

/**
 * Writes the trace, one event per line (readable, a viewer streams it just as well, and `tsmpi
 * report` reads it line by line), in batches: a large run's file is far beyond one string's size.
 */
export function writeTrace(file: string, trace: ChromeTrace): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `{"displayTimeUnit":"ms","otherData":${JSON.stringify(trace.otherData)},"traceEvents":[\n`);
    const events = trace.traceEvents;
    const BATCH = 10_000;
    for (let i = 0; i < events.length; i += BATCH) {
      const lines: string[] = [];
      for (let k = i; k < Math.min(events.length, i + BATCH); k++) lines.push(JSON.stringify(events[k]));
      writeSync(fd, `${lines.join(',\n')}${i + BATCH < events.length ? ',\n' : '\n'}`);
    }
    writeSync(fd, ']}\n');
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a trace file: line by line when it is one event per line (as tsmpi writes it, whatever
 * its size), else as one JSON document (another tool's).
 */
export function readTrace(file: string): { traceEvents: ChromeTrace['traceEvents']; otherData: Record<string, unknown> } {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(1 << 16);
    const n = readSync(fd, head, 0, head.length, 0);
    const first = head.subarray(0, n).toString('utf8').split('\n', 1)[0]!;
    if (!first.startsWith('{"displayTimeUnit"') || !first.endsWith('"traceEvents":[')) return JSON.parse(readFileSync(file, 'utf8')) as ReturnType<typeof readTrace>;
    const otherData = (JSON.parse(`${first.slice(0, -'"traceEvents":['.length).replace(/,$/, '')}}`) as { otherData?: Record<string, unknown> }).otherData ?? {};
    const traceEvents: ChromeTrace['traceEvents'] = [];
    let rest = '';
    const decoder = new StringDecoder('utf8');
    const chunk = Buffer.alloc(1 << 22);
    let position = Buffer.byteLength(first) + 1;
    for (;;) {
      const got = readSync(fd, chunk, 0, chunk.length, position);
      if (got === 0) break;
      position += got;
      const lines = (rest + decoder.write(chunk.subarray(0, got))).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const text = line.endsWith(',') ? line.slice(0, -1) : line;
        if (text.startsWith('{')) traceEvents.push(JSON.parse(text) as ChromeTrace['traceEvents'][number]);
      }
    }
    return { traceEvents, otherData };
  } finally {
    closeSync(fd);
  }
}

/** One line for the launcher to print: where the timeline is and what it holds. */
export function describeTrace(file: string, summary: TraceSummary): string {
  const parts = [`tsmpi: timeline of ${summary.ranks} ranks (${summary.events} events) in ${file}: open it in https://ui.perfetto.dev`];
  if (summary.dropped > 0) parts.push(`; ${summary.dropped} events dropped past TSMPI_TRACE_LIMIT`);
  if (summary.missing.length > 0) parts.push(`; no events from rank(s) ${summary.missing.join(', ')} (a rank that failed before handing them over, or whose process's part file did not reach this machine)`);
  return parts.join('');
}
