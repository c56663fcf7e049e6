// Issue 13: above the link, time and timers come from the rank's clock, so under `tsmpi sim`
// they are virtual. A task pool's busy seconds are the tasks' declared time (they were wall
// time: idle 0.21 s in a 0.066 s simulated run); comm.sleep and clock timers fire at exact
// virtual times; the adaptive planner, which fits costs on the clock, gives the same run twice.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-clock-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const program = fixture('sim-clock.ts');

test('a task pool under tsmpi sim counts virtual seconds: 40 tasks of 10 ms are 0.4 s of busy time', { timeout: 120_000 }, async () => {
  const json = join(dir, 'pool.json');
  const result = await tsmpi(['sim', '-n', '4', '--compute', 'declared', '--quiet', '--json', json, program, 'pool']);
  assert.equal(result.code, 0, explain(result));
  const line = /pool busy ([\d. ]+) tasks (\d+) total ([\d.]+) at ([\d.]+)/.exec(result.stdout);
  assert.ok(line, explain(result));
  assert.equal(Number(line[2]), 40);
  assert.equal(Number(line[3]), 0.4);
  const idle = /pool idle ([\d. ]+)/.exec(result.stdout)![1]!.split(' ').map(Number);
  const busy = line[1]!.split(' ').map(Number);
  const summary = JSON.parse(readFileSync(json, 'utf8')) as { makespan: number; perRank: { end: number; compute: number }[] };
  summary.perRank.forEach((r, rank) => {
    // Busy time is the tasks' declared compute; busy and idle fit inside the rank's run.
    assert.ok(Math.abs(busy[rank]! - r.compute) < 1e-6, `rank ${rank}: busy ${busy[rank]} s, compute ${r.compute} s`);
    assert.ok(busy[rank]! + idle[rank]! <= r.end + 1e-6, `rank ${rank}: busy + idle ${busy[rank]! + idle[rank]!} s in a run of ${r.end} s`);
  });
});

test('comm.sleep and clock timers under tsmpi sim: exact virtual times', { timeout: 60_000 }, async () => {
  const json = join(dir, 'sleep.json');
  const result = await tsmpi(['sim', '-n', '4', '--compute', 'declared', '--quiet', '--json', json, program, 'sleep']);
  assert.equal(result.code, 0, explain(result));
  for (let r = 0; r < 4; r++) assert.match(result.stdout, new RegExp(`rank ${r} slept ${(0.1 * (r + 1)).toFixed(6)} timer at ${(0.05 * (r + 1)).toFixed(6)}`));
  const summary = JSON.parse(readFileSync(json, 'utf8')) as { makespan: number; perRank: { blocked: number; compute: number }[] };
  assert.ok(Math.abs(summary.makespan - 0.4) < 1e-12, `makespan ${summary.makespan}`);
  // Sleeping is waiting, not computing.
  summary.perRank.forEach((r, rank) => assert.ok(Math.abs(r.blocked - 0.1 * (rank + 1)) < 1e-12 && r.compute === 0, JSON.stringify(r)));
});

test('comm.sleep in a real run waits at least as long as asked', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', program, 'sleep']);
  assert.equal(result.code, 0, explain(result));
  for (let r = 0; r < 2; r++) {
    const m = new RegExp(`rank ${r} slept ([\\d.]+) timer at ([\\d.]+)`).exec(result.stdout);
    assert.ok(m, explain(result));
    assert.ok(Number(m[1]) >= 0.1 * (r + 1) - 0.002, `rank ${r} slept ${m[1]} s`);
    assert.ok(Number(m[2]) >= 0.05 * (r + 1) - 0.002, `rank ${r}'s timer fired after ${m[2]} s`);
  }
});

test('the adaptive planner under tsmpi sim learns from virtual time: two runs, the same summary', { timeout: 120_000 }, async () => {
  const runs: string[] = [];
  for (const name of ['a', 'b']) {
    const json = join(dir, `adaptive-${name}.json`);
    const result = await tsmpi(['sim', '-n', '8', '--ranks-per-host', '2', '--compute', 'declared', '--quiet', '--json', json, program, 'adaptive']);
    assert.equal(result.code, 0, explain(result));
    const { wallSeconds: _w, eventsPerSecond: _e, ...rest } = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
    runs.push(JSON.stringify(rest));
  }
  assert.equal(runs[0], runs[1]);
});
