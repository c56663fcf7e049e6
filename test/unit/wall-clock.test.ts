// The wall clock timelines and clock probes read (src/clock.ts): the monotonic clock plus an
// anchor each thread takes from the system's wall clock, so that processes of one machine agree.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { monotonicMillis, wallClockMillis } from '../../src/clock.ts';

const clockModule = fileURLToPath(new URL('../../src/clock.ts', import.meta.url));

/** The anchor (wall minus monotonic, ms) another process of this machine takes. */
function anchorOfAnotherProcess(): number {
  const code = `const { wallClockMillis, monotonicMillis } = await import(${JSON.stringify(clockModule)}); const w = wallClockMillis(); const m = monotonicMillis(); console.log(w - m);`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return Number(result.stdout.trim());
}

test('wall clock: follows the system clock and never goes back', () => {
  const first = wallClockMillis();
  assert.ok(Math.abs(first - Date.now()) <= 2, `${first} against Date.now() ${Date.now()}`);
  let last = first;
  for (let i = 0; i < 10_000; i++) {
    const now = wallClockMillis();
    assert.ok(now >= last);
    last = now;
  }
});

test('wall clock: processes of one machine agree to well under a millisecond', () => {
  const own = wallClockMillis() - monotonicMillis();
  // Three other processes, started one after the other (each takes its own anchor).
  for (let i = 0; i < 3; i++) {
    const other = anchorOfAnotherProcess();
    assert.ok(Number.isFinite(other));
    assert.ok(Math.abs(other - own) < 0.5, `anchors ${own} and ${other} differ by ${other - own} ms`);
  }
});
