/**
 * tsmpi's simulator against SimGrid 3.32 on the same platform files and TI traces: makespan of
 * each case in both, their difference, and the wall time each took (SimGrid is the baseline).
 *   npm run bench -- sim-simgrid          (QUICK=1: only the cases the test suite runs)
 * Needs Debian's libsimgrid-dev (smpirun, smpireplaymain).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printTable, writeResults } from './lib/report.ts';
import { COMPARISON_CASES, compareCase, type ComparisonResult } from './lib/simgrid-cases.ts';
import { findSimgrid, SIMGRID_MATCHING_CONFIG } from './lib/simgrid.ts';

const quick = process.env.QUICK === '1';
console.log(`# QUICK=${quick ? 1 : 0}${process.env.QUICK ? '' : ' (default)'}: 1 runs only the cases of the test suite`);
const tools = findSimgrid();
if (tools === undefined) {
  console.error('sim-simgrid: SimGrid is not installed (apt-get install libsimgrid-dev gives smpirun and smpireplaymain)');
  process.exit(2);
}
console.log(`# SimGrid ${tools.version}: ${SIMGRID_MATCHING_CONFIG.map((c) => `--cfg=${c}`).join(' ')}`);
const root = mkdtempSync(join(tmpdir(), 'tsmpi-simgrid-'));
const results: ComparisonResult[] = [];
try {
  const cases = COMPARISON_CASES.filter((c) => !quick || c.quick);
  for (const [i, c] of cases.entries()) {
    const r = await compareCase(tools, c, join(root, `case-${i}`));
    results.push(r);
    console.log(`# ${c.name}: SimGrid ${r.simgrid.toPrecision(7)} s, tsmpi ${r.tsmpi.toPrecision(7)} s (${(r.difference * 100).toFixed(3)}%)`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}%`;
printTable(
  'makespan, tsmpi sim (flow model) against SimGrid 3.32 (CM02), same platform and trace',
  ['case', 'platform', 'ranks', 'sends', 'SimGrid s', 'tsmpi s', 'difference', 'wall SimGrid s', 'wall tsmpi s', 'wall ratio'],
  results.map((r) => [`${r.name}${r.handshakeBound ? ' (*)' : ''}`, r.platform, r.np, r.messages, r.simgrid.toPrecision(6), r.tsmpi.toPrecision(6), pct(r.difference), r.simgridWallSeconds.toFixed(2), r.tsmpiWallSeconds.toFixed(2), (r.tsmpiWallSeconds / r.simgridWallSeconds).toFixed(1)]),
);
const worst = Math.max(...results.filter((r) => !r.handshakeBound).map((r) => Math.abs(r.difference)));
console.log(`\nlargest difference: ${(worst * 100).toFixed(2)}% of makespan (target <= 5%), rows marked (*) aside:`);
console.log('(*) rendezvous messages on ~1.6 ms routes: tsmpi models its request-to-send / clear-to-send handshake (two route latencies per message), SimGrid starts the transfer as soon as both sides are there; the all-eager row of the same trace isolates the network model');
writeResults('sim-simgrid', { simgrid: tools.version, config: SIMGRID_MATCHING_CONFIG, results, worst });
