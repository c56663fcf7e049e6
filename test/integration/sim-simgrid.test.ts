// tsmpi's simulator against SimGrid 3.32 itself (Debian's libsimgrid-dev): the same platform
// files and TI traces, CM02 with the settings of bench/lib/simgrid.ts, makespans within 5%.
// Skipped when SimGrid is missing, unless TSMPI_REQUIRE_SIMGRID=1 (CI installs it).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { COMPARISON_CASES, compareCase } from '../../bench/lib/simgrid-cases.ts';
import { findSimgrid } from '../../bench/lib/simgrid.ts';

const tools = findSimgrid();
const required = process.env.TSMPI_REQUIRE_SIMGRID === '1';
const skip = tools === undefined && !required ? 'SimGrid is not installed (apt-get install libsimgrid-dev)' : false;
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-simgrid-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('SimGrid is installed when the suite requires it', { skip: !required }, () => {
  assert.ok(tools !== undefined, 'TSMPI_REQUIRE_SIMGRID=1 but smpirun or smpireplaymain is missing: apt-get install libsimgrid-dev');
});

for (const [i, c] of COMPARISON_CASES.filter((x) => x.quick).entries()) {
  test(`SimGrid comparison: ${c.name} (${c.platform}, ${c.np} ranks)`, { skip, timeout: 300_000 }, async () => {
    const r = await compareCase(tools!, c, join(dir, `case-${i}`));
    if (c.handshakeBound) {
      // tsmpi's rendezvous handshake costs two route latencies per large message that SimGrid
      // does not model: tsmpi must be slower, never faster (the all-eager case checks the rest).
      assert.ok(r.tsmpi > r.simgrid, `tsmpi ${r.tsmpi} s should exceed SimGrid ${r.simgrid} s here`);
    } else {
      assert.ok(Math.abs(r.difference) <= 0.05, `makespan tsmpi ${r.tsmpi} s against SimGrid ${r.simgrid} s: ${(r.difference * 100).toFixed(2)}%`);
    }
  });
}
