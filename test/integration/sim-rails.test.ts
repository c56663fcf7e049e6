// Issue 13: the simulator runs the runtime's own multi-rail link, with its policies, over one
// simulated link per platform rail. Two hosts joined by rails of 100 MB/s and 25 MB/s, 8 blocking
// sends of 16 MiB (134,217,728 bytes): the ideal is their sum, 125 MB/s, 1.074 s; round-robin
// puts half the bytes on the slow rail, 67,108,864 / 25e6 = 2.684 s at least. Before, every
// policy gave the fast rail alone (1.345 s): the simulator never ran the rails.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-rails-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Summary {
  makespan: number;
  rails: { rail: number; bytes: number }[];
}

async function run(platform: string, env: Record<string, string>, name: string): Promise<Summary> {
  const json = join(dir, `${name}.json`);
  const path = platform.startsWith('/') ? platform : fixture(`platforms/${platform}`);
  const result = await tsmpi(['sim', '-n', '2', '--quiet', '--compute', 'declared', '--platform', path, '--json', json, fixture('rails-sim.ts')], { env });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /rails-sim: 8 messages of 16777216 bytes intact/);
  return JSON.parse(readFileSync(json, 'utf8')) as Summary;
}

const IDEAL = (8 * 16 * 1048576) / 125e6;

for (const platform of ['two-rails-100-25.json', 'two-rails-100-25.xml']) {
  test(`rails under tsmpi sim (${platform}): round-robin is capped by the slow rail, adaptive and weighted near the sum`, { timeout: 180_000 }, async () => {
    const rr = await run(platform, { TSMPI_RAIL_POLICY: 'round-robin' }, `rr-${platform}`);
    assert.ok(rr.makespan >= 2.684 && rr.makespan < 2.8, `round-robin ${rr.makespan} s`);
    // Round-robin: segments alternate, so both rails carry half.
    const [r0, r1] = rr.rails.map((r) => r.bytes);
    assert.ok(Math.abs(r0! - r1!) / r0! < 0.01, `round-robin rail bytes ${r0} / ${r1}`);
    for (const policy of ['adaptive', 'weighted']) {
      const s = await run(platform, { TSMPI_RAIL_POLICY: policy }, `${policy}-${platform}`);
      assert.ok(s.makespan >= IDEAL && s.makespan < 1.1 * IDEAL, `${policy}: ${s.makespan} s, ideal ${IDEAL} s`);
      // About 4:1, the ratio of the rails' rates.
      const share = s.rails[0]!.bytes / (s.rails[0]!.bytes + s.rails[1]!.bytes);
      assert.ok(share > 0.75 && share < 0.85, `${policy}: rail 0 carried ${share} of the bytes`);
    }
  });
}

test('TSMPI_RAILS under tsmpi sim picks the platform rails by name: rail1 alone is the 25 MB/s plane', { timeout: 120_000 }, async () => {
  const s = await run('two-rails-100-25.json', { TSMPI_RAILS: 'rail1' }, 'rail1-only');
  assert.deepEqual(s.rails.map((r) => r.rail), [1]);
  assert.ok(s.makespan >= (8 * 16 * 1048576) / 25e6, `${s.makespan} s`);
});

test('TSMPI_RAILS naming a rail the platform lacks is refused, naming the rails it has', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '2', '--quiet', '--platform', fixture('platforms/two-rails-100-25.json'), fixture('rails-sim.ts'), '1', '1'], { env: { TSMPI_RAILS: 'rail0,rail5' } });
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /TSMPI_RAILS: "rail5" is not a rail of the simulated platform \(it has 2: rail0, rail1\)/);
});

test('a rail bandwidth profile slows that rail from its time on: rail 0 at half from 0.5 s', { timeout: 120_000 }, async () => {
  const platform = JSON.parse(readFileSync(fixture('platforms/two-rails-100-25.json'), 'utf8')) as { rails: { profile?: [number, number][] }[] };
  platform.rails[0]!.profile = [[0.5, 0.5]];
  const path = join(dir, 'rail0-profile.json');
  writeFileSync(path, JSON.stringify(platform));
  const s = await run(path, { TSMPI_RAILS: 'rail0' }, 'rail0-profile');
  // 134,217,728 bytes: 50 MB in the first 0.5 s at 100 MB/s, the other 84.2 MB at 50 MB/s.
  const expected = 0.5 + (8 * 16 * 1048576 - 50e6) / 50e6;
  assert.ok(s.makespan >= expected && s.makespan < expected * 1.02, `${s.makespan} s, expected ${expected} s`);
});
