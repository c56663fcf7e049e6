// Issue 12, regression: a simulated rank's time partitions exactly into compute, waiting inside
// tsmpi calls and per-message overhead, summing to its end time, and its timeline spans tile
// [0, end] without overlapping. On the old books a rank waiting on several requests at once was
// counted blocked twice (blocked time above the rank's end, overlapping `blocked` slices).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-accounting-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface PerRank {
  rank: number;
  compute: number;
  blocked: number;
  overhead: number;
  end: number;
}
interface TraceEvent {
  ph: string;
  cat: string;
  name: string;
  tid: number;
  args?: { rank?: number };
  ts?: number;
  dur?: number;
}

async function simulate(mode: string, extra: string[]): Promise<{ perRank: PerRank[]; makespan: number; events: TraceEvent[] }> {
  const json = join(dir, `${mode}.json`);
  const trace = join(dir, `${mode}.trace.json`);
  const result = await tsmpi(['sim', '-n', '8', '--quiet', '--compute', 'declared', '--json', json, '--trace', trace, ...extra, fixture('sim-accounting.ts'), mode]);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, new RegExp(`accounting ${mode} done`));
  const summary = JSON.parse(readFileSync(json, 'utf8')) as { perRank: PerRank[]; makespan: number };
  const events = (JSON.parse(readFileSync(trace, 'utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
  return { ...summary, events };
}

for (const mode of ['gather', 'stencil', 'waitall']) {
  for (const overhead of ['0', '2e-6']) {
    test(`sim accounting adds up: ${mode}, message overhead ${overhead}`, { timeout: 120_000 }, async () => {
      const { perRank, makespan, events } = await simulate(mode, ['--message-overhead', overhead, '--local-message-overhead', overhead]);
      assert.equal(perRank.length, 8);
      for (const r of perRank) {
        const sum = r.compute + r.blocked + r.overhead;
        assert.ok(Math.abs(sum - r.end) <= 1e-12 * Math.max(1, r.end), `rank ${r.rank}: compute ${r.compute} + blocked ${r.blocked} + overhead ${r.overhead} = ${sum}, end ${r.end}`);
        assert.ok(r.compute >= 0 && r.blocked >= 0 && r.overhead >= 0, JSON.stringify(r));
        assert.ok(r.end <= makespan, `rank ${r.rank} ends after the makespan`);
        if (overhead === '0') assert.equal(r.overhead, 0);
        else assert.ok(r.overhead > 0, `rank ${r.rank} sent frames but paid no overhead`);
        // The timeline: this rank's spans in order, each starting where the last ended, from 0 to end.
        const spans = events.filter((e) => e.ph === 'X' && e.cat === 'virtual' && e.args?.rank === r.rank).sort((a, b) => a.ts! - b.ts!);
        let at = 0;
        const byKind: Record<string, number> = { compute: 0, blocked: 0, overhead: 0 };
        for (const s of spans) {
          assert.ok(Math.abs(s.ts! - at) < 1e-6, `rank ${r.rank}: a ${s.name} span starts at ${s.ts} us, the previous ended at ${at} us`);
          at = s.ts! + s.dur!;
          byKind[s.name] = byKind[s.name]! + s.dur! / 1e6;
        }
        assert.ok(Math.abs(at - r.end * 1e6) < 1e-6, `rank ${r.rank}: spans end at ${at} us, the rank at ${r.end * 1e6} us`);
        for (const kind of ['compute', 'blocked', 'overhead'] as const) assert.ok(Math.abs(byKind[kind]! - r[kind]) < 1e-9, `rank ${r.rank}: ${kind} spans ${byKind[kind]} s, stats ${r[kind]} s`);
      }
    });
  }
}

test('sim accounting: the gather of the issue, worked by hand', { timeout: 120_000 }, async () => {
  // Rank 0 gathers 1 MiB from 7 ranks, then declares 50 ms of compute: its compute is exactly
  // 50 ms, everything before is waiting, and it ends last.
  const { perRank, makespan } = await simulate('gather', []);
  const root = perRank[0]!;
  assert.equal(root.compute, 0.05);
  assert.equal(root.end, makespan);
  assert.ok(Math.abs(root.blocked - (root.end - 0.05)) < 1e-15);
  for (const r of perRank.slice(1)) assert.equal(r.compute, 0);
});

test('--message-overhead node charges tsmpi-on-Node costs: the same books as the figures written out', { timeout: 120_000 }, async () => {
  const named = await simulate('stencil', ['--message-overhead', 'node']);
  const written = await simulate('stencil', ['--message-overhead', '6e-6', '--local-message-overhead', '4.2e-7']);
  assert.deepEqual(
    named.perRank.map((r) => r.overhead),
    written.perRank.map((r) => r.overhead),
  );
  for (const r of named.perRank) assert.ok(r.overhead > 0, `rank ${r.rank} paid no overhead`);
  const bad = await tsmpi(['sim', '-n', '2', '--message-overhead', 'fast', fixture('sim-accounting.ts'), 'stencil']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /--message-overhead takes seconds \(a number >= 0\) or node, got "fast"/);
});
