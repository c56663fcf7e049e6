// Issue 16, the report as a person looks at it: `tsmpi report` of a real run's timeline, a
// simulated run's, a SimGrid TI replay's and a profile, each opened in headless Chromium
// (Debian's): no console error, no request besides the file itself (one self-contained page),
// every chart drawn with data on a canvas that is not blank. Screenshots are kept in
// $TMPDIR/tsmpi-report-shots/. Skipped without Chromium unless TSMPI_REQUIRE_CHROMIUM=1.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';
import { chromiumMissing, openPage } from '../helpers/chromium.ts';

const missing = chromiumMissing();
if (missing !== undefined && process.env.TSMPI_REQUIRE_CHROMIUM === '1') throw new Error(`report tests required but ${missing}`);
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-report-'));
const shots = join(tmpdir(), 'tsmpi-report-shots');
mkdirSync(shots, { recursive: true });
after(() => rmSync(dir, { recursive: true, force: true }));

async function reportOf(name: string, record: string[], input: string, charts: string[], env: Record<string, string> = {}): Promise<void> {
  const made = await tsmpi(record, { env });
  assert.equal(made.code, 0, explain(made));
  const html = join(dir, `${name}.html`);
  const result = await tsmpi(['report', input, '-o', html]);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /report of \d+ ranks written to/);
  const page = await openPage(html, join(shots, `${name}.png`));
  assert.deepEqual(page.problems, [], `${name}: the page reported problems`);
  assert.deepEqual(page.requests, [], `${name}: the page fetched something`);
  assert.deepEqual(page.charts.map((c) => c.id), charts, `${name}: charts drawn`);
  for (const c of page.charts) assert.ok(c.points > 0, `${name}: chart ${c.id} has no data`);
  assert.deepEqual(page.canvases.map((c) => c.id), charts);
  for (const c of page.canvases) assert.ok(c.width > 100 && c.height > 50 && c.inked > 20, `${name}: chart ${c.id} looks blank: ${JSON.stringify(c)}`);
}

describe('tsmpi report in Chromium', { skip: missing ?? false }, () => {
  test('a real run\'s timeline (4 ranks, threads)', { timeout: 120_000 }, async () => {
    const trace = join(dir, 'run.json');
    await reportOf('run', ['run', '-n', '4', '--trace', trace, 'examples/ring.ts'], trace, ['timeline', 'breakdown', 'matrix', 'sizes', 'calls']);
  });

  test('a simulated run\'s timeline (the heat stencil, 4 ranks)', { timeout: 120_000 }, async () => {
    const trace = join(dir, 'sim.json');
    await reportOf('sim', ['sim', '-n', '4', '--quiet', '--trace', trace, 'examples/heat.ts'], trace, ['timeline', 'breakdown', 'matrix', 'sizes', 'calls']);
  });

  test('a SimGrid TI replay\'s timeline', { timeout: 120_000 }, async () => {
    const trace = join(dir, 'replay.json');
    await reportOf('replay', ['sim', '--quiet', '--replay', fixture('traces/three-ranks.txt'), '--trace', trace], trace, ['timeline', 'breakdown', 'matrix', 'sizes', 'calls']);
  });

  test('a task pool, a diffusion balancer and two rails: their charts', { timeout: 180_000 }, async () => {
    const pool = join(dir, 'pool.json');
    await reportOf('pool', ['run', '-n', '4', '--trace', pool, 'examples/pi.ts', '--pool', '2000000', '100'], pool, ['timeline', 'breakdown', 'matrix', 'sizes', 'calls', 'tasks']);
    const balance = join(dir, 'balance.json');
    await reportOf('balance', ['run', '-n', '4', '--trace', balance, 'examples/diffusion.ts', '6'], balance, ['timeline', 'breakdown', 'matrix', 'sizes', 'calls', 'balance']);
    const rails = join(dir, 'rails.json');
    await reportOf('rails', ['run', '-n', '2', '--procs', '--trace', rails, 'bench/ranks/p2p.ts', 'pingpong', '4194304'], rails, ['timeline', 'breakdown', 'matrix', 'sizes', 'calls', 'rails'], { TSMPI_RAILS: '127.0.0.1,127.0.0.2' });
  });

  test('a profile (no timeline: said on the page)', { timeout: 120_000 }, async () => {
    const profile = join(dir, 'profile.json');
    await reportOf('profile', ['run', '-n', '3', '--procs', '--profile-json', profile, 'examples/ring.ts'], profile, ['breakdown', 'matrix', 'calls']);
  });
});

test('tsmpi report refuses a file that is neither a timeline nor a profile, naming it', { timeout: 30_000 }, async () => {
  const result = await tsmpi(['report', 'package.json']);
  assert.equal(result.code, 2, explain(result));
  assert.match(result.stderr, /package\.json is neither a timeline nor a profile/);
});
