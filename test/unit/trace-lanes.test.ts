// The timeline's recorder and layout, as properties: whatever calls a rank opens and closes (in
// any overlap, across any chunk size), every slice comes out once with its times, slices on one
// track nest (a viewer draws partial overlaps wrongly, so overlapping calls get lanes of their
// own), and every matched message becomes one arrow; past the limit, events are counted dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Clock } from '../../src/clock.ts';
import { chromeTrace } from '../../src/trace/chrome-trace.ts';
import { RankTrace, type TraceChunk } from '../../src/trace/rank-trace.ts';

class StepClock implements Clock {
  t = 0;
  now(): number {
    return this.t;
  }
  schedule(): { id: number } {
    return { id: 0 };
  }
  cancel(): void {}
}

/** A rank's calls: each opens at a step and closes at a later one. */
const callsArb = fc.array(fc.record({ open: fc.integer({ min: 0, max: 40 }), length: fc.integer({ min: 0, max: 20 }) }), { minLength: 1, maxLength: 30 });

function record(rank: number, calls: { open: number; length: number }[], chunkEvents: number, limit = 1e9): TraceChunk[] {
  const clock = new StepClock();
  const chunks: TraceChunk[] = [];
  const trace = new RankTrace(rank, clock, { chunkEvents, limit, sink: (c) => chunks.push(c) });
  const ids = new Map<number, number>();
  for (let step = 0; step <= 61; step++) {
    clock.t = step * 1e-3;
    // Ends before begins at one step: a call closed at t and one opened at t do not overlap.
    calls.forEach((c, i) => {
      if (c.length > 0 && c.open + c.length === step) trace.end(ids.get(i)!);
    });
    calls.forEach((c, i) => {
      if (c.open === step) ids.set(i, trace.begin(`call ${i}`, 'world', -1, -1));
    });
    calls.forEach((c, i) => {
      if (c.length === 0 && c.open === step) trace.end(ids.get(i)!);
    });
  }
  trace.flush(true);
  return chunks;
}

test('every call comes out once, with its times, on a track where slices nest', () => {
  fc.assert(
    fc.property(callsArb, fc.integer({ min: 16, max: 64 }), (calls, chunkEvents) => {
      const out = chromeTrace([record(0, calls, chunkEvents)], [{ node: 'a' }]);
      const slices = out.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'call');
      assert.equal(slices.length, calls.length);
      for (let i = 0; i < calls.length; i++) {
        const s = slices.find((e) => e.name === `call ${i}`)!;
        assert.ok(Math.abs(s.dur! - calls[i]!.length * 1e3) < 1e-6, `call ${i}: ${s.dur} us`);
      }
      const byTrack = new Map<number, typeof slices>();
      for (const s of slices) byTrack.set(s.tid, [...(byTrack.get(s.tid) ?? []), s]);
      for (const [tid, list] of byTrack) {
        for (const a of list) {
          for (const b of list) {
            if (a === b) continue;
            const [aEnd, bEnd] = [a.ts! + a.dur!, b.ts! + b.dur!];
            const disjoint = aEnd <= b.ts! + 1e-9 || bEnd <= a.ts! + 1e-9;
            const e = 1e-6;
            const nested = (a.ts! <= b.ts! + e && aEnd >= bEnd - e) || (b.ts! <= a.ts! + e && bEnd >= aEnd - e);
            assert.ok(disjoint || nested, `track ${tid}: ${a.name} [${a.ts}, ${aEnd}] and ${b.name} [${b.ts}, ${bEnd}] overlap`);
          }
        }
      }
    }),
  );
});

test('every matched message is one arrow from its send to its receive, whatever the chunking', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 50 }), fc.integer({ min: 16, max: 40 }), (sizes, chunkEvents) => {
      const clocks = [new StepClock(), new StepClock()];
      const chunks: TraceChunk[][] = [[], []];
      const traces = [0, 1].map((r) => new RankTrace(r, clocks[r]!, { chunkEvents, limit: 1e9, sink: (c) => chunks[r]!.push(c) }));
      sizes.forEach((bytes, k) => {
        clocks[0]!.t = clocks[1]!.t = k * 1e-3;
        const send = traces[0]!.begin('send', 'world', 1, 0);
        traces[0]!.sent(1, k + 1, 0, bytes);
        traces[0]!.end(send);
        clocks[1]!.t = k * 1e-3 + 5e-4;
        const recv = traces[1]!.begin('recv', 'world', 0, 0);
        traces[1]!.matched(0, k + 1, bytes);
        traces[1]!.end(recv);
      });
      for (const t of traces) t.flush(true);
      const out = chromeTrace(chunks, [{ node: 'a' }, { node: 'b' }]);
      const starts = out.traceEvents.filter((e) => e.ph === 's');
      const ends = out.traceEvents.filter((e) => e.ph === 'f');
      assert.equal(starts.length, sizes.length);
      assert.deepEqual(starts.map((e) => e.id).sort(), ends.map((e) => e.id).sort());
      assert.deepEqual(starts.map((e) => (e.args as { bytes: number }).bytes), sizes);
      for (const e of ends) assert.equal(e.bp, 'e');
      assert.equal(out.otherData.unmatchedReceives, 0);
      // The bytes of each message are on the call that sent it.
      assert.deepEqual(out.traceEvents.filter((e) => e.ph === 'X' && e.name === 'send').map((e) => e.args!.bytes), sizes);
    }),
  );
});

test('past the limit, events are counted as dropped and the rest is kept', () => {
  const chunks = record(0, Array.from({ length: 20 }, (_, i) => ({ open: i, length: 1 })), 16, 15);
  const total = chunks.reduce((n, c) => n + c.count, 0);
  assert.equal(total, 15);
  // 40 events (a begin and an end per call), 15 kept.
  assert.equal(chunks.at(-1)!.dropped, 25);
  const out = chromeTrace([chunks], [{ node: 'a' }]);
  assert.deepEqual(out.otherData.dropped, [25]);
  // A call whose end was dropped still shows, ended where the rank's record ends.
  assert.equal(out.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'call').length, 8);
});

test('a process whose clock was measured against the launcher\'s has its times moved by the offset at the merge', async () => {
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { TracePartWriter, finishRecording, tracePartPath } = await import('../../src/trace/trace-files.ts');
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-merge-'));
  try {
    const file = join(dir, 'run.json');
    const recording = { trace: file, profile: '' };
    for (const rank of [0, 1]) {
      const writer = new TracePartWriter(tracePartPath(recording, 'job', rank), `host${rank}`);
      // Both ranks call at their local 10 ms; rank 1's machine is 250 ms behind the launcher.
      if (rank === 1) writer.clock(250, 0.1);
      const clock = new StepClock();
      const trace = new RankTrace(rank, clock, { chunkEvents: 16, limit: 100, sink: (c) => writer.add({ ...c, epoch: 1_000 }) });
      clock.t = 0.01;
      const id = trace.begin('barrier', 'world', -1, -1);
      clock.t = 0.02;
      trace.end(id);
      trace.flush(true);
    }
    const lines = finishRecording(recording, 'job', 2);
    assert.match(lines[0]!, /timeline of 2 ranks/);
    const out = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: { ph: string; name: string; ts: number; pid: number }[]; otherData: { clockOffsets: unknown[] } };
    const barriers = out.traceEvents.filter((e) => e.ph === 'X' && e.name === 'barrier').sort((a, b) => a.pid - b.pid);
    assert.equal(barriers.length, 2);
    assert.ok(Math.abs(barriers[1]!.ts - barriers[0]!.ts - 250_000) < 1e-3, `${barriers[1]!.ts} - ${barriers[0]!.ts}`);
    assert.deepEqual(out.otherData.clockOffsets, [{ offsetMs: 250, roundTripMs: 0.1, node: 'host1' }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a timeline file is written in batches and read back line by line, exactly', async () => {
  const { mkdtempSync, rmSync, readFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { readTrace, writeTrace } = await import('../../src/trace/trace-files.ts');
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-rw-'));
  try {
    const file = join(dir, 't.json');
    // More events than one write batch, names beyond ASCII, numbers that must survive exactly.
    const traceEvents = Array.from({ length: 123_457 }, (_, i) => ({ name: i % 3 === 0 ? `call Ω${i}` : `send ${i}`, cat: 'call', ph: 'X' as const, ts: i * 0.001 + 1e-9, dur: 1 / 3, pid: 1, tid: i % 7, args: { bytes: i } }));
    const trace = { traceEvents, displayTimeUnit: 'ms' as const, otherData: { tool: 'tsmpi', ranks: 7 } };
    writeTrace(file, trace);
    // Still one JSON document for any viewer.
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { displayTimeUnit: 'ms', otherData: trace.otherData, traceEvents });
    const back = readTrace(file);
    assert.deepEqual(back.otherData, trace.otherData);
    assert.deepEqual(back.traceEvents, traceEvents);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
