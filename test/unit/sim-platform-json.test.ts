// The JSON platform form: crossbars and fat trees with heterogeneous rails and load, and errors that
// name the file and the field.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { platformFromJson } from '../../src/sim/platform/json.ts';
import { loadPlatformFile } from '../../src/sim/platform/load.ts';
import { bisectionBandwidth } from '../../src/sim/platform/topologies.ts';

const crossbarJson = {
  name: 'two-rail crossbar',
  topology: 'crossbar',
  hosts: { count: 16, speed: 1e9, cores: 2 },
  rails: [
    { bandwidth: 1.25e9, latency: 1e-6 },
    { bandwidth: '2.48Gbps', latency: '2us' },
  ],
  load: { 'node-3': [[0, 1], [10, 0.5]], '5': [[0, 0.25]] },
};

test('json: a two-rail crossbar with units and load', () => {
  const p = platformFromJson(crossbarJson, 'x.json');
  assert.equal(p.hostCount, 16);
  assert.equal(p.rails, 2);
  assert.equal(p.host(0).cores, 2);
  assert.deepEqual(p.route(1, 2, 1).map((l) => p.link(l).name), ['rail1:node-1->switch', 'rail1:switch->node-2']);
  assert.equal(p.link(p.route(1, 2, 1)[0]!).bandwidth, 3.1e8); // 2.48 Gbit/s = 3.1e8 B/s
  assert.ok(Math.abs(p.routeLatency(1, 2, 1) - 4e-6) < 1e-18);
  assert.equal(p.speedAt(3, 12), 5e8);
  assert.equal(p.speedAt(5, 0), 2.5e8);
  assert.equal(p.speedAt(4, 0), 1e9);
});

test('json: fat trees from SimGrid parameters, k, or the explicit shape', () => {
  const base = { topology: 'fat-tree', hosts: { speed: '1Gf' }, rails: [{ bandwidth: 1e9, latency: 1e-6 }] };
  const a = platformFromJson({ ...base, fatTree: '2;4,4;1,2;1,2' }, 'a.json');
  const b = platformFromJson({ ...base, fatTree: { levels: 2, down: [4, 4], up: [1, 2], count: [1, 2] } }, 'b.json');
  assert.equal(a.hostCount, 16);
  assert.deepEqual(a.route(0, 5), b.route(0, 5));
  const k = platformFromJson({ ...base, hosts: { count: 16, speed: 1e9 }, fatTree: { k: 4 }, oversubscription: 2 }, 'k.json');
  assert.equal(bisectionBandwidth(k), 4e9); // 8 edge uplinks of pods 0,1 at 1e9 / 2
  const links = platformFromJson({ ...base, fatTree: { k: 4, levels: 2 }, rails: [{ bandwidth: 1e9, latency: 0, linkBandwidth: '16Gbps' }] }, 'l.json');
  assert.equal(links.hostCount, 8); // 2 levels of 4-port switches: 4 leaves x 2 hosts
  assert.equal(links.link(links.route(0, 7)[1]!).bandwidth, 2e9);
});

test('json: every invalid field is named, with what is allowed', () => {
  const cases: [unknown, RegExp][] = [
    [[], /\(top level\) must be an object/],
    [{ ...crossbarJson, topology: 'torus' }, /topology must be "crossbar" or "fat-tree"; got "torus"/],
    [{ ...crossbarJson, topolgy: 'crossbar' }, /unknown field topolgy/],
    [{ ...crossbarJson, hosts: { speed: 1e9 } }, /hosts\.count is required for a crossbar/],
    [{ ...crossbarJson, hosts: { count: 2.5, speed: 1e9 } }, /hosts\.count must be an integer >= 1; got 2\.5/],
    [{ ...crossbarJson, hosts: { count: 4, speed: 'fast' } }, /hosts\.speed: cannot read a number in "fast"/],
    [{ ...crossbarJson, hosts: { count: 4, speed: 1e9, memory: 4 } }, /unknown field hosts\.memory/],
    [{ ...crossbarJson, rails: [] }, /rails must be a list of 1\.\.64 rails/],
    [{ ...crossbarJson, rails: [{ bandwidth: 1, latency: 0 }, { bandwidth: -5, latency: 0 }] }, /rails\[1\]\.bandwidth must be a finite number > 0/],
    [{ ...crossbarJson, rails: [{ bandwidth: 1, latency: '3 parsecs' }] }, /rails\[0\]\.latency: unknown unit/],
    [{ ...crossbarJson, rails: [{ bandwidth: 1, latency: 0, linkBandwidth: 2 }] }, /unknown field rails\[0\]\.linkBandwidth/],
    [{ ...crossbarJson, oversubscription: 2 }, /oversubscription applies to "fat-tree" only/],
    [{ ...crossbarJson, topology: 'fat-tree' }, /fatTree is required for a fat tree/],
    [{ ...crossbarJson, topology: 'fat-tree', hosts: { count: 8, speed: 1 }, fatTree: '2;4,4;1,2;1,2' }, /hosts is 8 but the shape has 16 hosts/],
    [{ ...crossbarJson, topology: 'fat-tree', fatTree: '2;4,4;1,2' }, /fatTree "2;4,4;1,2" must have 4 parts/],
    [{ ...crossbarJson, topology: 'fat-tree', fatTree: { k: 3 } }, /k must be an even integer/],
    [{ ...crossbarJson, load: { 'node-99': [[0, 1]] } }, /load\["node-99"\] names no host/],
    [{ ...crossbarJson, load: { 'node-1': [[0, 1.5]] } }, /load\["node-1"\]\[0\]\.factor must be in 0\.\.1/],
    [{ ...crossbarJson, load: { 'node-1': [[5, 1], [5, 0.5]] } }, /load\["node-1"\]\[1\]\.time 5 is not after/],
    [{ ...crossbarJson, load: { 'node-1': [0, 1] } }, /load\["node-1"\] must be a list of \[time, factor\] pairs/],
  ];
  for (const [value, re] of cases) {
    assert.throws(
      () => platformFromJson(value, 'cfg.json'),
      (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && e.message.includes('cfg.json') && re.test(e.message) && e.hint.length > 0,
      `expected ${re} for ${JSON.stringify(value).slice(0, 80)}`,
    );
  }
});

test('loadPlatformFile reads JSON and SimGrid XML by extension', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-platform-'));
  const file = join(dir, 'p.json');
  writeFileSync(file, JSON.stringify(crossbarJson));
  assert.equal((await loadPlatformFile(file)).hostCount, 16);
  const xml = await loadPlatformFile(new URL('../fixtures/platforms/two-clusters.xml', import.meta.url).pathname);
  assert.equal(xml.hostCount, 12);
  writeFileSync(file, '{ "topology": ');
  await assert.rejects(loadPlatformFile(file), /p\.json: not valid JSON/);
  await assert.rejects(loadPlatformFile(join(dir, 'missing.json')), /cannot read the platform file/);
});
