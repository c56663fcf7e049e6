// SimGrid platform XML: units, radicals, the Full-routing fixture's routes, cluster expansion and
// backbones, routes across zones, Floyd and Cluster zones, FAT_TREE clusters against the builder,
// and errors for what is not supported.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import type { Platform } from '../../src/sim/platform/platform.ts';
import { platformFromSimGridXml } from '../../src/sim/platform/simgrid-xml.ts';
import { fatTree } from '../../src/sim/platform/topologies.ts';
import { expandRadical, parseBandwidth, parseSpeed, parseTime } from '../../src/sim/platform/units.ts';

const fixture = (name: string): Platform => platformFromSimGridXml(readFileSync(new URL(`../fixtures/platforms/${name}`, import.meta.url), 'utf8'), name);
const xml = (body: string): string => `<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n<platform version="4.1">\n${body}\n</platform>`;
const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b));
const path = (p: Platform, a: string, b: string): string[] => p.route(p.hostByName(a)!, p.hostByName(b)!).map((l) => p.link(l).name);
const configError = (re: RegExp) => (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && re.test(e.message) && e.hint.length > 0;

test('units: speeds, bandwidths (bytes and bits, powers of 10 and 2) and times as SimGrid documents them', () => {
  const cases: [(s: string, f: string) => number, string, number][] = [
    [parseSpeed, '1Gf', 1e9],
    [parseSpeed, '98.095Mf', 98.095e6],
    [parseSpeed, '2.5gigaflops', 2.5e9],
    [parseSpeed, '3kf', 3e3],
    [parseSpeed, '1e9', 1e9], // unit-less: flop/s, as SimGrid (which warns)
    [parseSpeed, '0', 0],
    [parseBandwidth, '125MBps', 1.25e8],
    [parseBandwidth, '10Gbps', 1.25e9], // bits: 10e9 / 8
    [parseBandwidth, '1GiBps', 1024 ** 3],
    [parseBandwidth, '8Mibps', 1024 ** 2], // 8 x 2^20 bits = 2^20 bytes
    [parseBandwidth, '1kBps', 1000],
    [parseBandwidth, '1KBps', 1000], // as spelled in SimGrid's XML reference
    [parseBandwidth, '41.279125MBps', 41279125],
    [parseBandwidth, '2.25GBps', 2.25e9],
    [parseBandwidth, '100', 100],
    [parseTime, '50us', 5e-5],
    [parseTime, '2.5ms', 2.5e-3],
    [parseTime, '1s', 1],
    [parseTime, '100ns', 1e-7],
    [parseTime, '3ps', 3e-12],
    [parseTime, '2m', 120], // minutes, not metres nor milli
    [parseTime, '1h', 3600],
    [parseTime, '1d', 86400],
    [parseTime, '1w', 604800],
    [parseTime, '1e-3s', 1e-3],
    [parseTime, '0', 0],
  ];
  for (const [parse, text, want] of cases) assert.ok(near(parse(text, 'f'), want), `${text} -> ${parse(text, 'f')}, want ${want}`);
  assert.throws(() => parseBandwidth('10Gb', '<link id="x"> bandwidth'), configError(/<link id="x"> bandwidth: unknown unit "Gb"/));
  assert.throws(() => parseTime('fast', 'lat'), configError(/lat: cannot read a number/));
  assert.throws(() => parseSpeed('1 Gf', 'speed'), configError(/unknown unit " Gf"/));
  assert.throws(() => parseTime('-1s', 'lat'), configError(/not a finite value >= 0/));
  assert.throws(() => parseSpeed('1GF', 'speed'), configError(/unknown unit "GF"/));
});

test('radicals: ranges, lists and both separators', () => {
  assert.deepEqual(expandRadical('0-3', 'r'), [0, 1, 2, 3]);
  assert.deepEqual(expandRadical('0-3,8-11', 'r'), [0, 1, 2, 3, 8, 9, 10, 11]);
  assert.deepEqual(expandRadical('10-12;2', 'r'), [10, 11, 12, 2]);
  assert.deepEqual(expandRadical(' 5 ', 'r'), [5]);
  assert.throws(() => expandRadical('3-1', 'radical'), configError(/ends before it starts/));
  assert.throws(() => expandRadical('1-2-3', 'radical'), configError(/malformed radical group "1-2-3"/));
  assert.throws(() => expandRadical('a', 'radical'), configError(/malformed/));
});

test('Full-routing fixture: hosts, speeds per pstate, and every route with its latency', () => {
  const p = fixture('small-full.xml');
  assert.deepEqual([0, 1, 2, 3].map((h) => p.host(h).name), ['Ada', 'Grace', 'Linus', 'Ken']);
  assert.ok(near(p.host(0).speed, 98.095e6));
  assert.equal(p.host(1).cores, 4);
  assert.equal(p.host(2).speed, 500e6); // pstate 1 of "1Gf,500Mf,100Mf"
  assert.equal(p.host(3).speed, 2.5e9);
  assert.equal(p.rails, 1);
  // wan (SPLITDUPLEX) becomes wan_UP and wan_DOWN; the loopback is declared but self routes stay empty.
  assert.equal(p.linkCount, 7);
  assert.equal(p.link(p.route(0, 3)[1]!).sharing, 'fatpipe');
  const routes: [string, string, string[], number][] = [
    ['Ada', 'Grace', ['wan_UP'], 2.5e-3],
    ['Grace', 'Ada', ['wan_DOWN'], 2.5e-3], // symmetrical: UP becomes DOWN
    ['Ada', 'Linus', ['lan1'], 50e-6],
    ['Linus', 'Ada', ['lan1'], 50e-6],
    ['Ada', 'Ken', ['lan2', 'ring'], 59.904e-6 + 1],
    ['Ken', 'Ada', ['ring', 'lan2'], 59.904e-6 + 1], // reversed
    ['Grace', 'Linus', ['wan_DOWN', 'lan1'], 2.55e-3],
    ['Linus', 'Grace', ['lan1', 'wan_UP'], 2.55e-3],
    ['Grace', 'Ken', ['lan3'], 100e-9],
    ['Ken', 'Grace', ['lan3'], 100e-9],
    ['Linus', 'Ken', ['lan1', 'lan2', 'ring'], 50e-6 + 59.904e-6 + 1], // symmetrical="NO" both ways
    ['Ken', 'Linus', ['lan3', 'wan_DOWN', 'lan1'], 100e-9 + 2.5e-3 + 50e-6],
  ];
  for (const [a, b, links, latency] of routes) {
    assert.deepEqual(path(p, a, b), links, `${a} -> ${b}`);
    assert.ok(near(p.routeLatency(p.hostByName(a)!, p.hostByName(b)!), latency), `${a} -> ${b} latency`);
  }
  assert.equal(p.link(p.route(0, 1)[0]!).bandwidth, 1.25e9); // 10Gbps
  assert.equal(p.link(p.route(1, 3)[0]!).bandwidth, 1024 ** 3); // 1GiBps
  assert.deepEqual(p.route(0, 0), []);
});

test('cluster fixture: radical expansion with prefix/suffix, backbone, and routes across the two clusters', () => {
  const p = fixture('two-clusters.xml');
  const names = Array.from({ length: p.hostCount }, (_, h) => p.host(h).name);
  assert.deepEqual(names, ['a-0.lab', 'a-1.lab', 'a-2.lab', 'a-3.lab', 'a-8.lab', 'a-9.lab', 'a-10.lab', 'a-11.lab', 'b0', 'b1', 'b2', 'b3']);
  assert.equal(p.host(8).cores, 4);
  assert.equal(p.host(8).speed, 2e9);
  // Inside alpha: private link up, backbone, private link down (50us + 500us + 50us).
  assert.deepEqual(path(p, 'a-0.lab', 'a-10.lab'), ['alpha_link_0_UP', 'alpha_backbone', 'alpha_link_10_DOWN']);
  assert.ok(near(p.routeLatency(0, 6), 600e-6));
  assert.equal(p.link(p.route(0, 6)[1]!).bandwidth, 2.25e9);
  // Inside beta: SHARED private links (one link for both directions), no backbone.
  assert.deepEqual(path(p, 'b0', 'b3'), ['beta_link_0', 'beta_link_3']);
  assert.deepEqual(path(p, 'b3', 'b0'), ['beta_link_3', 'beta_link_0']);
  assert.equal(p.link(p.route(8, 9)[0]!).bandwidth, 1.25e8); // 1Gbps
  // Across: a-9 to its router (up, backbone), the zone route, then the router of beta to b2.
  assert.deepEqual(path(p, 'a-9.lab', 'b2'), ['alpha_link_9_UP', 'alpha_backbone', 'inter', 'beta_link_2']);
  assert.deepEqual(path(p, 'b2', 'a-9.lab'), ['beta_link_2', 'inter', 'alpha_backbone', 'alpha_link_9_DOWN']);
  assert.ok(near(p.routeLatency(5, 10), 50e-6 + 500e-6 + 1e-3 + 10e-6));
  assert.deepEqual(p.nicLinks(5), { up: [p.route(5, 10)[0]], down: [p.route(10, 5)[3]] });
});

test('FAT_TREE cluster: the SimGrid example file routes exactly as the fatTree builder', () => {
  const p = platformFromSimGridXml(
    xml(`<zone id="AS0" routing="Full">
    <cluster id="bob_cluster" prefix="node-" suffix=".acme.org" radical="0-15" speed="1Gf" bw="125MBps" lat="50us"
             topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2" loopback_bw="100MBps" loopback_lat="0"/>
  </zone>`),
    'cluster_fat_tree.xml',
  );
  const b = fatTree({ shape: '2;4,4;1,2;1,2', speed: 1e9, hostBandwidth: 1.25e8, latency: 50e-6 });
  assert.equal(p.linkCount, b.linkCount);
  for (let s = 0; s < 16; s++) for (let d = 0; d < 16; d++) assert.deepEqual(p.route(s, d), b.route(s, d), `${s} -> ${d}`);
  assert.deepEqual(path(p, 'node-0.acme.org', 'node-5.acme.org'), [
    'bob_cluster_link_node-0.acme.org_bob_cluster_switch_1_0_0_UP',
    'bob_cluster_link_bob_cluster_switch_1_0_bob_cluster_switch_2_1_0_UP',
    'bob_cluster_link_bob_cluster_switch_1_1_bob_cluster_switch_2_1_0_DOWN',
    'bob_cluster_link_node-5.acme.org_bob_cluster_switch_1_1_0_DOWN',
  ]);
  const shared = platformFromSimGridXml(xml(`<cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" sharing_policy="SHARED" topology="FAT_TREE" topo_parameters="1;4;1;1"/>`), 'c.xml');
  assert.deepEqual(path(shared, 'n0', 'n3'), ['c_link_n0_c_switch_1_0_0', 'c_link_n3_c_switch_1_0_0']);
});

test('Floyd zone with routers: fewest links; Cluster zone with host_link, backbone and cabinet', () => {
  const floyd = platformFromSimGridXml(
    xml(`<zone id="z" routing="Floyd">
    <host id="A" speed="1Gf"/><host id="B" speed="1Gf"/><host id="C" speed="1Gf"/>
    <router id="R1"/><router id="R2"/>
    <link id="l1" bandwidth="1GBps" latency="1us"/><link id="l2" bandwidth="1GBps" latency="1us"/>
    <link id="l3" bandwidth="1GBps" latency="1us"/><link id="l4" bandwidth="1GBps" latency="1us"/>
    <link id="slow1" bandwidth="1MBps" latency="1ms"/><link id="slow2" bandwidth="1MBps" latency="1ms"/>
    <link id="slow3" bandwidth="1MBps" latency="1ms"/><link id="slow4" bandwidth="1MBps" latency="1ms"/>
    <route src="A" dst="R1"><link_ctn id="l1"/></route>
    <route src="R1" dst="R2"><link_ctn id="l2"/></route>
    <route src="R2" dst="B"><link_ctn id="l3"/></route>
    <route src="R1" dst="C"><link_ctn id="l4"/></route>
    <route src="A" dst="B"><link_ctn id="slow1"/><link_ctn id="slow2"/><link_ctn id="slow3"/><link_ctn id="slow4"/></route>
  </zone>`),
    'floyd.xml',
  );
  assert.deepEqual(path(floyd, 'A', 'B'), ['l1', 'l2', 'l3']); // 3 links beat the 4-link direct route
  assert.deepEqual(path(floyd, 'B', 'C'), ['l3', 'l2', 'l4']);
  assert.deepEqual(path(floyd, 'C', 'A'), ['l4', 'l1']);
  const star = platformFromSimGridXml(
    xml(`<zone id="c" routing="Cluster">
    <host id="h0" speed="1Gf"/><host id="h1" speed="1Gf"/>
    <link id="x0" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
    <link id="x1" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
    <backbone id="bb" bandwidth="10GBps" latency="2us"/>
    <host_link id="h0" up="x0_UP" down="x0_DOWN"/><host_link id="h1" up="x1_UP" down="x1_DOWN"/>
    <cabinet id="cab" prefix="k" suffix="" radical="1-2" speed="2Gf" bw="1GBps" lat="1us"/>
  </zone>`),
    'star.xml',
  );
  assert.deepEqual(path(star, 'h0', 'h1'), ['x0_UP', 'bb', 'x1_DOWN']);
  assert.deepEqual(path(star, 'k2', 'h0'), ['link_k2_UP', 'bb', 'x0_DOWN']);
  assert.equal(star.host(star.hostByName('k1')!).speed, 2e9);
});

test('errors name the element and say what to change', () => {
  const cases: [string, RegExp][] = [
    ['<zone id="z" routing="Full"><host id="a" speed="1Gf"/>', /t\.xml:\d+:\d+: not well-formed XML/],
    [`<cluster id="t" prefix="n" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="2,2,2"/>`, /topology TORUS is not supported/],
    [`<cluster id="t" prefix="n" suffix="" radical="0-7" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2"/>`, /gives 8 hosts but topo_parameters needs 16/],
    [`<cluster id="t" prefix="n" suffix="" radical="0-x" speed="1Gf" bw="1GBps" lat="1us"/>`, /<cluster id="t"> radical: malformed radical group "0-x"/],
    [`<cluster id="t" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="1Gb" lat="1us"/>`, /<cluster id="t"> bw: unknown unit "Gb"/],
    [`<zone id="z" routing="Vivaldi"></zone>`, /routing "Vivaldi" is not supported/],
    [`<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="a" speed="1Gf"/></zone>`, /"a" is used twice/],
    [`<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/><route src="a" dst="b"><link_ctn id="l"/></route></zone>`, /"l" is SPLITDUPLEX, so <link_ctn id="l"> needs direction/],
    [`<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><route src="a" dst="b"><link_ctn id="nope"/></route></zone>`, /<link_ctn id="nope"> names no declared link/],
    [`<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps"/><route src="a" dst="c"><link_ctn id="l"/></route></zone>`, /refers to "c", which is not a declared host/],
    [`<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps"/><route src="a" dst="b"><link_ctn id="l"/></route><bypassRoute src="a" dst="b"><link_ctn id="l"/></bypassRoute></zone>`, /<bypassRoute> is not supported/],
    [`<zone id="z" routing="Full"><host id="a" speed="1Gf" speed_file="a.trace"/></zone>`, /<host id="a"> speed_file is not supported/],
    [`<zone id="z" routing="Full"><host id="a"/></zone>`, /<host id="a"> has no speed attribute/],
    [`<zone id="z" routing="Full"><hots id="a"/></zone>`, /<hots id="a"> is not allowed here/],
    [`<zone id="a" routing="Full"/><zone id="b" routing="Full"/>`, /exactly one top-level <zone> or <cluster>; found 2/],
  ];
  for (const [body, re] of cases) {
    assert.throws(() => platformFromSimGridXml(xml(body), 't.xml'), (e: unknown) => configError(re)(e) && (e as Error).message.includes('t.xml'), `expected ${re}`);
  }
  // A missing route is reported when it is asked for, as in SimGrid.
  const partial = platformFromSimGridXml(xml(`<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
    <link id="l" bandwidth="1GBps"/><route src="a" dst="b"><link_ctn id="l"/></route></zone>`), 't.xml');
  assert.deepEqual(partial.route(1, 0), [0]);
  assert.throws(() => partial.route(0, 2), configError(/t\.xml: no route from "a" to "c" in zone "z"/));
  assert.throws(() => platformFromSimGridXml('<platform version="3"><zone id="z" routing="Full"/></platform>', 'old.xml'), configError(/older than 4/));
});

test('tsmpi/rails: parallel networks from one SimGrid file, rail i a scaled copy of the network', () => {
  const xml = (value: string): string =>
    `<?xml version='1.0'?><platform version="4.1"><cluster id="c" prefix="n" suffix="" radical="0-2" speed="1Gf" bw="100MBps" lat="5us"><prop id="tsmpi/rails" value="${value}"/></cluster></platform>`;
  const p = platformFromSimGridXml(xml('1, 0.25:2'), 'rails.xml');
  assert.equal(p.rails, 2);
  // Rail 1 crosses the copies of rail 0's links: a quarter of the bandwidth, twice the latency.
  const r0 = p.route(0, 2, 0);
  const r1 = p.route(0, 2, 1);
  assert.equal(r0.length, r1.length);
  r0.forEach((id, i) => {
    const a = p.link(id);
    const b = p.link(r1[i]!);
    assert.equal(b.bandwidth, a.bandwidth * 0.25);
    assert.equal(b.latency, a.latency * 2);
    assert.equal(b.rail, 1);
    assert.equal(b.name, `rail1:${a.name}`);
  });
  assert.equal(p.routeLatency(0, 2, 1), 2 * p.routeLatency(0, 2, 0));
  assert.deepEqual(p.nicLinks(1, 1)!.up.map((id) => p.link(id).bandwidth), p.nicLinks(1, 0)!.up.map((id) => p.link(id).bandwidth / 4));
  // Without the property: one network, as SimGrid reads it.
  assert.equal(platformFromSimGridXml(xml('1').replace('<prop id="tsmpi/rails" value="1"/>', ''), 'one.xml').rails, 1);
  for (const bad of ['0.5, 1', '1, x', '1, -2', '1,']) {
    assert.throws(
      () => platformFromSimGridXml(xml(bad), 'bad.xml'),
      (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && /tsmpi\/rails/.test(e.message),
      bad,
    );
  }
});
