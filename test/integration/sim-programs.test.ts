// Programs, traces and workloads under `tsmpi sim`: the runtime's examples and its semantics
// suite run unchanged in virtual time; failures and deadlocks are reported as in a real run;
// declared-time runs are deterministic bit for bit; traces written and read back replay the same.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CCO_SUITE_LINES, P2P_SUITE_LINES, explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Summary {
  makespan: number;
  events: number;
  wallSeconds: number;
  eventsPerSecond: number;
  perRank: { rank: number; end: number; compute: number; blocked: number; messages: number; bytes: number }[];
}
const readJson = (path: string): Summary => JSON.parse(readFileSync(path, 'utf8')) as Summary;
/** The summary without what depends on this machine's speed. */
function virtualOnly(s: Summary): unknown {
  const { wallSeconds: _w, eventsPerSecond: _e, ...rest } = s;
  return rest;
}

test('examples/pi.ts runs unchanged under tsmpi sim', { timeout: 120_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '4', '--quiet', 'examples/pi.ts', '100000']);
  assert.equal(result.code, 0, explain(result));
  // The same midpoint sum as a real run: 100000 intervals give pi to 1e-11.
  const pi = Number(/pi is approximately ([\d.]+)/.exec(result.stdout)?.[1]);
  assert.ok(Math.abs(pi - Math.PI) < 1e-10, explain(result));
  assert.match(result.stdout, /100000 intervals on 4 ranks/);
  assert.match(result.stdout, /makespan .* on 4 ranks/);
});

test('the collectives suite passes under tsmpi sim --collectives simgrid (SimGrid\'s algorithms and protocol) on 5 ranks, and the summary says so', { timeout: 180_000 }, async () => {
  const json = join(dir, 'cco-simgrid.json');
  const result = await tsmpi(['sim', '-n', '5', '--quiet', '--collectives', 'simgrid', '--json', json, fixture('cco-suite.ts')]);
  assert.equal(result.code, 0, explain(result));
  assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('cco ok ')).length, CCO_SUITE_LINES, explain(result));
  assert.equal((JSON.parse(readFileSync(json, 'utf8')) as { collectives?: string }).collectives, 'simgrid');
});

test('examples/ring.ts runs unchanged under tsmpi sim on 8 ranks', { timeout: 120_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '8', '--quiet', 'examples/ring.ts']);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /hops 7, sum\[0\] = 28/);
});

for (const np of [2, 3]) {
  test(`the point-to-point semantics suite passes under tsmpi sim on ${np} ranks`, { timeout: 180_000 }, async () => {
    const result = await tsmpi(['sim', '-n', String(np), '--quiet', fixture('p2p-suite.ts')]);
    assert.equal(result.code, 0, explain(result));
    assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('p2p ok ')).length, P2P_SUITE_LINES, explain(result));
  });
}

test('each simulated rank sees its own TSMPI_RANK, TSMPI_SIZE and TSMPI_LOCAL_RANK, as under tsmpi run', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '4', '--ranks-per-host', '2', '--quiet', fixture('env-report.ts')]);
  assert.equal(result.code, 0, explain(result));
  const seen = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { rank: number; env: Record<string, string> }));
  assert.equal(seen.length, 4, explain(result));
  for (const { rank, env } of seen) assert.deepStrictEqual([env.TSMPI_RANK, env.TSMPI_SIZE, env.TSMPI_LOCAL_RANK], [String(rank), '4', String(rank % 2)]);
});

test("each rank's context is the same whether taken from whose turn it is (the default) or from an AsyncLocalStorage (TSMPI_SIM_CONTEXT=async); a bad value is refused", { timeout: 60_000 }, async () => {
  for (const context of ['running', 'async']) {
    const result = await tsmpi(['sim', '-n', '4', '--ranks-per-host', '2', '--quiet', fixture('env-report.ts')], { env: { TSMPI_SIM_CONTEXT: context } });
    assert.equal(result.code, 0, explain(result));
    const seen = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { rank: number; env: Record<string, string> }));
    assert.deepStrictEqual(seen.map((s) => s.env.TSMPI_RANK).sort(), ['0', '1', '2', '3'], `${context}: ${explain(result)}`);
    for (const { rank, env } of seen) assert.deepStrictEqual([env.TSMPI_RANK, env.TSMPI_LOCAL_RANK], [String(rank), String(rank % 2)], context);
  }
  const bad = await tsmpi(['sim', '-n', '2', '--quiet', 'examples/ring.ts'], { env: { TSMPI_SIM_CONTEXT: 'threads' } });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /TSMPI_SIM_CONTEXT/);
});

test('a deadlock in virtual time names each waiting rank and what it waits for', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '3', '--quiet', fixture('deadlock.ts')]);
  assert.notEqual(result.code, 0, explain(result));
  assert.match(result.stderr, /deadlock/);
  assert.match(result.stderr, /rank 0: recv from rank 1, tag 7/);
  assert.match(result.stderr, /rank 1: recv from rank 0, tag 8/);
});

test('a rank that throws fails the simulation, naming the rank and the error', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '3', '--quiet', fixture('fail-throw.ts'), '2', 'throw']);
  assert.notEqual(result.code, 0, explain(result));
  assert.match(result.stderr, /tsmpi: rank 2 failed:/);
  assert.match(result.stderr, /deliberate failure on rank 2/);
});

test('declared compute: two runs give the same result bit for bit, and the expected makespan', { timeout: 120_000 }, async () => {
  const runs: Summary[] = [];
  for (const name of ['a', 'b']) {
    const json = join(dir, `declared-${name}.json`);
    const result = await tsmpi(['sim', '-n', '4', '--compute', 'declared', '--quiet', '--json', json, fixture('sim-declared.ts')]);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /sim-declared done on 4 ranks/);
    runs.push(readJson(json));
  }
  assert.deepEqual(virtualOnly(runs[0]!), virtualOnly(runs[1]!));
  // Rank 3 computes 4 ms per step and the ring waits for it: at least 5 x 4 ms.
  assert.ok(runs[0]!.makespan > 0.02 && runs[0]!.makespan < 0.03, `makespan ${runs[0]!.makespan}`);
});

test('a workload is deterministic, and its emitted trace replays to the same makespan', { timeout: 120_000 }, async () => {
  const args = ['--workload', 'md', '-n', '8', '--param', 'steps=4', '--seed', '7'];
  const first = join(dir, 'md-1.json');
  const second = join(dir, 'md-2.json');
  for (const json of [first, second]) {
    const result = await tsmpi(['sim', ...args, '--quiet', '--json', json]);
    assert.equal(result.code, 0, explain(result));
  }
  assert.deepEqual(virtualOnly(readJson(first)), virtualOnly(readJson(second)));
  const traceDir = join(dir, 'md-trace');
  const emitted = await tsmpi(['sim', ...args, '--emit-trace', traceDir]);
  assert.equal(emitted.code, 0, explain(emitted));
  const replayJson = join(dir, 'md-replay.json');
  // A workload runs tsmpi's collectives; a replay defaults to SimGrid's: name the same ones.
  const replay = await tsmpi(['sim', '--replay', join(traceDir, 'description.txt'), '--collectives', 'tsmpi', '--quiet', '--json', replayJson]);
  assert.equal(replay.code, 0, explain(replay));
  assert.equal(readJson(replayJson).makespan, readJson(first).makespan);
});

test('a SimGrid trace replays, and a world size that does not match it is refused', { timeout: 60_000 }, async () => {
  const ok = await tsmpi(['sim', '--replay', fixture('traces/three-ranks.txt'), '--quiet']);
  assert.equal(ok.code, 0, explain(ok));
  assert.match(ok.stdout, /on 3 ranks/);
  const wrong = await tsmpi(['sim', '-n', '5', '--replay', fixture('traces/three-ranks.txt'), '--quiet']);
  assert.notEqual(wrong.code, 0);
  assert.match(wrong.stderr, /-n 5 does not match the 3 ranks/);
});

test('--trace of a workload: each rank a track of its calls, its virtual time accounted on a lane of its own, every message an arrow', { timeout: 60_000 }, async () => {
  const path = join(dir, 'trace.json');
  const result = await tsmpi(['sim', '--workload', 'stencil2d', '-n', '4', '--param', 'steps=2', '--quiet', '--trace', path]);
  assert.equal(result.code, 0, explain(result));
  const trace = JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: { ph: string; tid: number; name: string; cat?: string; args?: { name?: string } }[]; otherData: { messages: number; unmatchedReceives: number } };
  const names = trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args!.name);
  assert.deepEqual(names.sort(), ['rank 0', 'rank 0: virtual time', 'rank 1', 'rank 1: virtual time', 'rank 2', 'rank 2: virtual time', 'rank 3', 'rank 3: virtual time']);
  const calls = new Set(trace.traceEvents.filter((e) => e.ph === 'X' && e.cat !== 'virtual').map((e) => e.name));
  for (const name of ['isend', 'irecvInto', 'waitAll', 'computeFlops']) assert.ok(calls.has(name), `no ${name} slice: ${[...calls].join(', ')}`);
  // 2 steps, 4 ranks on a 2 x 2 grid, 2 neighbours each: 16 messages, each an arrow.
  assert.equal(trace.otherData.messages, 16);
  assert.equal(trace.otherData.unmatchedReceives, 0);
});

test('--list-workloads names every generator with its parameters', async () => {
  const result = await tsmpi(['sim', '--list-workloads']);
  assert.equal(result.code, 0, explain(result));
  for (const name of ['stencil2d', 'stencil3d', 'all-to-all', 'random-sparse', 'particle-in-cell', 'molecular-dynamics', 'transport-sweep']) assert.match(result.stdout, new RegExp(`^${name}`, 'm'));
});

test('the JSON summary reports per-link and per-rail utilisation that add up', { timeout: 60_000 }, async () => {
  const json = join(dir, 'rails.json');
  const platform = join(dir, 'two-rails.json');
  writeFileSync(platform, JSON.stringify({ topology: 'crossbar', hosts: { count: 4, speed: 1e9 }, rails: [{ bandwidth: 1.25e9, latency: 1e-6 }, { bandwidth: 2.5e8, latency: 2e-6 }] }));
  const result = await tsmpi(['sim', '--quiet', '--platform', platform, '--workload', 'stencil2d', '--param', 'px=2', 'py=2', 'steps=2', 'bytes=1000', 'flops=0', '--json', json]);
  assert.equal(result.code, 0, explain(result));
  const summary = JSON.parse(readFileSync(json, 'utf8')) as { makespan: number; links: { name: string; bytes: number; utilisation: number }[]; rails: { rail: number; bytes: number; linksUsed: number; maxUtilisation: number }[] };
  // Halo messages of 1000 bytes are below TSMPI_RAIL_MIN_SPLIT: the multi-rail link keeps them
  // on its control rail, rail 0. 2 steps x 8 messages, each sent once (bytes count once) and
  // crossing two links, the sender's up link and the receiver's down link.
  assert.deepEqual(summary.rails.map((r) => r.rail), [0]);
  assert.equal(2 * summary.rails[0]!.bytes, summary.links.reduce((n, l) => n + l.bytes, 0));
  assert.ok(summary.rails[0]!.bytes >= 2 * 8 * 1000, `rail bytes ${summary.rails[0]!.bytes}`);
  assert.equal(summary.rails[0]!.linksUsed, summary.links.length);
  assert.equal(summary.rails[0]!.maxUtilisation, Math.max(...summary.links.map((l) => l.utilisation)));
});
