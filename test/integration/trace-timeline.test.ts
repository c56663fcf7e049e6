// Issue 16, timelines: `tsmpi run --trace FILE` (threads, --procs, --ranks-per-proc) and `tsmpi
// sim --trace FILE` write one Chrome trace: a track per rank, a slice per call in the program's
// order with its peer and tag, collective rounds nested in their call, and an arrow from every
// send to the receive that matched it, on one aligned time line. Chunked recording loses nothing;
// past the limit, what is dropped is counted and said.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, tsmpi } from '../helpers/run-job.ts';
import { rankOfTrack, readTimeline, sliceAt, type Timeline } from '../helpers/trace.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-trace-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Rank r's outermost calls (on its first track), in time order, as "name peer tag". */
function topCalls(t: Timeline, rank: number): string[] {
  const own = t.slices.filter((s) => t.tracks.get(`${s.pid}:${s.tid}`) === `rank ${rank}` && s.cat !== 'round');
  const outer = own.filter((s) => !own.some((o) => o !== s && o.ts! <= s.ts! && o.ts! + o.dur! >= s.ts! + s.dur! && o.dur! > s.dur!));
  return outer.sort((a, b) => a.ts! - b.ts!).map((s) => [s.name, s.args?.peer ?? '-', s.args?.tag ?? '-'].join(' '));
}

/** What examples/ring.ts calls, rank by rank. */
function ringCalls(rank: number, size: number): string[] {
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  const token = rank === 0 ? [`send ${right} 0`, `recv ${left} -`] : [`recv ${left} -`, `send ${right} 0`];
  return [...token, 'irecv - 7', `send ${rank} 7`, 'wait recv - 7', 'allreduce - -'];
}

function checkRing(t: Timeline, size: number, aligned: boolean): void {
  assert.equal(t.other.ranks, size);
  assert.deepEqual(t.other.missingRanks ?? [], []);
  assert.deepEqual(t.other.dropped, new Array(size).fill(0));
  for (let r = 0; r < size; r++) assert.deepEqual(topCalls(t, r), ringCalls(r, size), `rank ${r}'s calls`);
  // Collective rounds sit inside their allreduce.
  const rounds = t.slices.filter((s) => s.cat === 'round');
  assert.ok(rounds.length >= size, 'every rank shows its allreduce rounds');
  for (const round of rounds) {
    const outer = t.slices.find((s) => s.name === 'allreduce' && s.pid === round.pid && s.tid === round.tid && s.ts! <= round.ts! && s.ts! + s.dur! >= round.ts! + round.dur!);
    assert.ok(outer, `a round outside its allreduce: ${JSON.stringify(round)}`);
  }
  // One arrow per message; none left over.
  assert.equal(t.flows.length, t.other.messages);
  assert.equal(t.other.unmatchedReceives, 0);
  // The token's first hop: rank 0's send to 1 ends in rank 1's recv from 0.
  const token = t.flows.find(({ from, to }) => rankOfTrack(t, from) === 0 && rankOfTrack(t, to) === 1 && sliceAt(t, from.pid, from.tid, from.ts!)?.name === 'send');
  assert.ok(token, 'the token arrow from rank 0 to rank 1');
  const into = sliceAt(t, token.to.pid, token.to.tid, token.to.ts!);
  assert.equal(into?.name, 'recv');
  assert.equal(into?.args?.peer, 0);
  for (const { from, to } of t.flows) {
    assert.ok(sliceAt(t, from.pid, from.tid, from.ts!), `an arrow starts outside any call: ${JSON.stringify(from)}`);
    // Matched inside a call, or (under the simulator) on arrival: then bound to the track's next call.
    if (to.bp === 'e') assert.ok(sliceAt(t, to.pid, to.tid, to.ts!), `an arrow ends outside any call: ${JSON.stringify(to)}`);
    else assert.ok(t.slices.some((s) => s.pid === to.pid && s.tid === to.tid && s.ts! >= to.ts!), `an arrow ends after the track's last call: ${JSON.stringify(to)}`);
    // On one time line a message is matched after it was sent (clocks of one machine agree).
    if (aligned) assert.ok(to.ts! >= from.ts! - 200, `an arrow goes back in time: sent at ${from.ts} us, matched at ${to.ts} us`);
  }
}

for (const [label, extra] of [
  ['threads', []],
  ['--procs', ['--procs']],
  ['--ranks-per-proc 2', ['--ranks-per-proc', '2']],
] as const) {
  test(`tsmpi run ${label} --trace: examples/ring.ts, every call of every rank in order, arrows from sends to receives`, { timeout: 60_000 }, async () => {
    const file = join(dir, `ring-${label.replace(/\W+/g, '_')}.json`);
    const result = await tsmpi(['run', '-n', '4', ...extra, '--trace', file, 'examples/ring.ts']);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stderr, /timeline of 4 ranks \(\d+ events\) in .*: open it in https:\/\/ui\.perfetto\.dev/);
    checkRing(readTimeline(file), 4, true);
    assert.deepEqual(readdirSync(dir).filter((n) => n.includes('.part-')), [], 'the part files are merged and removed');
  });
}

test('tsmpi sim --trace: the same program, the same calls and arrows, in virtual time, with each rank\'s account of it', { timeout: 60_000 }, async () => {
  const file = join(dir, 'ring-sim.json');
  const result = await tsmpi(['sim', '-n', '4', '--quiet', '--trace', file, 'examples/ring.ts']);
  assert.equal(result.code, 0, explain(result));
  const t = readTimeline(file);
  checkRing(t, 4, true);
  const accounts = t.events.filter((e) => e.ph === 'X' && e.cat === 'virtual');
  assert.deepEqual([...new Set(accounts.map((e) => e.args!.rank))].sort(), [0, 1, 2, 3]);
});

test('recording in small chunks loses nothing; past TSMPI_TRACE_LIMIT events are dropped and counted', { timeout: 60_000 }, async () => {
  const whole = join(dir, 'whole.json');
  const chunked = join(dir, 'chunked.json');
  const limited = join(dir, 'limited.json');
  const a = await tsmpi(['run', '-n', '3', '--procs', '--trace', whole, 'examples/ring.ts']);
  const b = await tsmpi(['run', '-n', '3', '--procs', '--trace', chunked, 'examples/ring.ts'], { env: { TSMPI_TRACE_CHUNK: '16' } });
  const c = await tsmpi(['run', '-n', '3', '--trace', limited, 'examples/ring.ts'], { env: { TSMPI_TRACE_LIMIT: '10' } });
  for (const r of [a, b, c]) assert.equal(r.code, 0, explain(r));
  const [tw, tc, tl] = [readTimeline(whole), readTimeline(chunked), readTimeline(limited)];
  assert.ok(tc.other.events.every((n) => n > 16), 'each rank wrote several chunks');
  assert.deepEqual(tc.other.events, tw.other.events);
  for (let r = 0; r < 3; r++) assert.deepEqual(topCalls(tc, r), topCalls(tw, r));
  assert.equal(tc.flows.length, tw.flows.length);
  assert.deepEqual(tl.other.events, [10, 10, 10]);
  assert.ok(tl.other.dropped.every((n) => n > 0), JSON.stringify(tl.other.dropped));
  assert.match(c.stderr, /events dropped past TSMPI_TRACE_LIMIT/);
});

test('without --trace nothing is written', { timeout: 60_000 }, async () => {
  const before = readdirSync(dir).length;
  const result = await tsmpi(['run', '-n', '2', '--procs', 'examples/ring.ts']);
  assert.equal(result.code, 0, explain(result));
  assert.doesNotMatch(result.stderr, /timeline/);
  assert.equal(readdirSync(dir).length, before);
  assert.ok(!existsSync(join(dir, 'undefined')));
});


test('--trace shows the task pool\'s tasks, the diffusion balancer\'s steps and each rail\'s bytes', { timeout: 120_000 }, async () => {
  // pi --pool with 100 subtasks: one slice per task, on the rank that ran it, named by handler.
  const pool = join(dir, 'pool.json');
  const a = await tsmpi(['run', '-n', '4', '--trace', pool, 'examples/pi.ts', '--pool', '2000000', '100']);
  assert.equal(a.code, 0, explain(a));
  const tp = readTimeline(pool);
  const tasks = tp.events.filter((e) => e.ph === 'X' && e.cat === 'task');
  assert.equal(tasks.length, 100);
  assert.equal(new Set(tasks.map((e) => e.args!.task)).size, 100, 'every task once');
  const perRank = /tasks per rank \(central\): rank 0: (\d+), rank 1: (\d+), rank 2: (\d+), rank 3: (\d+)/.exec(a.stdout);
  assert.ok(perRank, explain(a));
  for (let r = 0; r < 4; r++) assert.equal(tasks.filter((e) => rankOfTrack(tp, e) === r).length, Number(perRank[r + 1]), `rank ${r}'s tasks`);

  // The diffusion balancer, 6 iterations: a step per iteration on every rank, with its load.
  const balance = join(dir, 'balance.json');
  const b = await tsmpi(['run', '-n', '4', '--trace', balance, 'examples/diffusion.ts', '6']);
  assert.equal(b.code, 0, explain(b));
  const tb = readTimeline(balance);
  const steps = tb.events.filter((e) => e.ph === 'X' && e.cat === 'balance');
  for (let r = 0; r < 4; r++) assert.equal(steps.filter((e) => rankOfTrack(tb, e) === r).length, 6, `rank ${r}'s steps`);
  for (const s of steps) assert.ok(typeof s.args!.load === 'number' && (s.args!.load as number) >= 0, JSON.stringify(s));

  // Two rails on loopback: 4 MiB messages split over both, the counters add up to what was sent.
  const rails = join(dir, 'rails.json');
  const c = await tsmpi(['run', '-n', '2', '--procs', '--trace', rails, 'bench/ranks/p2p.ts', 'pingpong', '4194304'], { env: { TSMPI_RAILS: '127.0.0.1,127.0.0.2' } });
  assert.equal(c.code, 0, explain(c));
  const tr = readTimeline(rails);
  const counters = tr.events.filter((e) => e.ph === 'C' && e.cat === 'rail');
  const last = new Map<string, Record<string, number>>();
  for (const e of counters) last.set(e.name, e.args as Record<string, number>);
  assert.deepEqual([...last.keys()].sort(), ['rank 0: bytes sent per rail', 'rank 1: bytes sent per rail']);
  for (const [name, totals] of last) {
    assert.deepEqual(Object.keys(totals).sort(), ['rail 0', 'rail 1'], `${name} used both rails`);
    const sent = tr.flows.filter(({ from }) => `rank ${rankOfTrack(tr, from)}: bytes sent per rail` === name && Number(from.args!.bytes) === 4194304).length;
    assert.ok(sent > 0);
    assert.equal(totals['rail 0']! + totals['rail 1']!, sent * 4194304, `${name}: segments add up to the 4 MiB messages`);
  }
});

test('a failing job still writes the timeline of the ranks that could hand theirs over; a trace file in a missing directory is refused up front', { timeout: 120_000 }, async () => {
  for (const extra of [[], ['--procs']]) {
    const file = join(dir, `fail${extra.join('')}.json`);
    const result = await tsmpi(['run', '-n', '3', ...extra, '--trace', file, 'test/fixtures/fail-throw.ts', '1', 'exit3-barrier']);
    assert.equal(result.code, 3, explain(result));
    const t = readTimeline(file);
    // Ranks 0 and 2 were waiting in the barrier for rank 1 when the job was stopped.
    for (const rank of [0, 2]) assert.ok(t.slices.some((s) => rankOfTrack(t, s) === rank && s.name === 'barrier'), `rank ${rank}'s barrier (${extra.join(' ')})`);
    assert.match(result.stderr, /no events from rank\(s\) 1 \(a rank that failed/);
  }
  const refused = await tsmpi(['run', '-n', '2', '--trace', '/nonexistent-tsmpi-dir/t.json', 'examples/ring.ts']);
  assert.equal(refused.code, 2, explain(refused));
  assert.match(refused.stderr, /--trace \/nonexistent-tsmpi-dir\/t\.json: the directory \/nonexistent-tsmpi-dir does not exist \(hint: name a file in an existing, writable directory\)/);
  const simRefused = await tsmpi(['sim', '-n', '2', '--quiet', '--profile-json', '/nonexistent-tsmpi-dir/p.json', 'examples/ring.ts']);
  assert.equal(simRefused.code, 2, explain(simRefused));
  assert.match(simRefused.stderr, /--profile-json \/nonexistent-tsmpi-dir\/p\.json: the directory/);
});

test('tracing changes no error: calls on a freed communicator and after finalize() fail as they do without --trace', { timeout: 60_000 }, async () => {
  const plain = await tsmpi(['run', '-n', '2', 'test/fixtures/trace-closed.ts']);
  const traced = await tsmpi(['run', '-n', '2', '--trace', join(dir, 'closed.json'), 'test/fixtures/trace-closed.ts']);
  for (const r of [plain, traced]) assert.equal(r.code, 0, explain(r));
  const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '').sort();
  assert.equal(lines(plain.stdout).length, 6);
  assert.match(plain.stdout, /send on a freed communicator: TSMPI_ERR_CLOSED rank \d, send: dup of world was freed/);
  assert.deepEqual(lines(traced.stdout), lines(plain.stdout));
});
