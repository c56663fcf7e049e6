// Issue 12, regression: on a terminal, a long `tsmpi sim` shows a status line that advances
// (virtual time, events) even while every rank of an SPMD program is running, and program output
// keeps its own lines: the old progress bar showed `0/64 ranks done` to the end and the ranks'
// console.log landed inside the bar's line. A real pseudo-terminal (util-linux `script`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { cli, fixture, repoRoot } from '../helpers/run-job.ts';

test('tsmpi sim on a terminal: an advancing status line, and program output on its own lines', { timeout: 120_000 }, () => {
  // Long enough that the status line (shown from 2 s of wall time on) has a few seconds to show
  // and advance on a fast machine too: 16,000 rounds took 1.93 s on one and showed none.
  const command = `${process.execPath} ${cli} sim -n 8 ${fixture('sim-chatty.ts')} 48000`;
  const run = spawnSync('script', ['-qfec', command, '/dev/null'], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, COLUMNS: '120', TSMPI_HANG_WARN: '0' }, timeout: 100_000 });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  // What a person sees line by line: split where the terminal returns, drop the erase sequences.
  const pieces = run.stdout
    .split(/\r\n|\r|\n/)
    .map((piece) => piece.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''))
    .filter((piece) => piece !== '');
  const rounds = pieces.filter((piece) => piece.includes('round '));
  assert.equal(rounds.length, 96, `every line of program output once:\n${rounds.join('\n')}`);
  for (const piece of rounds) assert.match(piece, /^round \d+ of 48000: sum \d+$/, `a program line was broken or shared: ${JSON.stringify(piece)}`);
  const statuses = pieces.filter((piece) => piece.startsWith('simulating: '));
  assert.ok(statuses.length >= 2, `the status line showed ${statuses.length} times\n${pieces.join('\n')}`);
  for (const status of statuses) assert.match(status, /^simulating: [\d.]+ (us|ms|s) virtual, [\d.]+[KM]? events \([\d.]+[KM]?\/s\), \d\/8 ranks done, \d+ s$/, status);
  const times = statuses.map((status) => status.match(/^simulating: ([\d.]+) (us|ms|s)/)!).map((m) => Number(m[1]) * { us: 1e-6, ms: 1e-3, s: 1 }[m[2] as 'us' | 'ms' | 's']);
  assert.ok(times.at(-1)! > times[0]!, `virtual time did not advance: ${statuses.join(' / ')}`);
  assert.ok(statuses.some((status) => status.includes('0/8 ranks done')), 'shown while every rank was running');
  assert.ok(pieces.some((piece) => piece === 'chatty done'));
  assert.ok(pieces.some((piece) => /^makespan /.test(piece)));
});
