// Platform builders: crossbar and fat-tree routes worked by hand, bisection bandwidth, rail planes,
// load profiles, and a property that every route is a connected path from the source's NIC to the
// destination's NIC with no link twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import type { Platform } from '../../src/sim/platform/platform.ts';
import { bisectionBandwidth, crossbar, fatTree, kAryFatTreeShape, type FatTreeShape } from '../../src/sim/platform/topologies.ts';

const names = (p: Platform, src: number, dst: number, rail = 0): string[] => p.route(src, dst, rail).map((l) => p.link(l).name);
const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${a} != ${b}`);

test('crossbar: route = [up(src), down(dst)], latency two links, empty to itself', () => {
  const p = crossbar({ hosts: 4, speed: 1e9, bandwidth: 1.25e9, latency: 1e-6 });
  assert.equal(p.hostCount, 4);
  assert.equal(p.linkCount, 8); // 4 hosts x (up, down)
  // Link ids: up(h) = 2h, down(h) = 2h + 1.
  assert.deepEqual(p.route(0, 3), [0, 7]);
  assert.deepEqual(names(p, 0, 3), ['node-0->switch', 'switch->node-3']);
  assert.deepEqual(p.route(3, 0), [6, 1]);
  close(p.routeLatency(0, 3), 2e-6);
  assert.deepEqual(p.route(2, 2), []);
  assert.equal(p.routeLatency(2, 2), 0);
  assert.equal(p.hostByName('node-2'), 2);
  assert.equal(p.hostByName('nope'), undefined);
  assert.deepEqual(p.nicLinks(1), { up: [2], down: [3] });
  assert.equal(p.route(0, 3), p.route(0, 3), 'routes are cached');
});

test('crossbar: each rail is a separate plane with its own bandwidth and latency', () => {
  const p = crossbar({ hosts: 4, speed: 1e9, bandwidth: 1.25e9, latency: 1e-6, rails: [{}, { bandwidth: 3.1e8, latency: 2e-6 }] });
  assert.equal(p.rails, 2);
  assert.equal(p.linkCount, 16);
  // Rail 1 links start after rail 0's 8: up(0) = 8 + 0, down(3) = 8 + 7.
  assert.deepEqual(p.route(0, 3, 1), [8, 15]);
  assert.deepEqual(names(p, 0, 3, 1), ['rail1:node-0->switch', 'rail1:switch->node-3']);
  assert.equal(p.link(8).bandwidth, 3.1e8);
  close(p.routeLatency(0, 3, 1), 4e-6);
  assert.throws(() => p.route(0, 1, 2), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Arg);
});

test('fat tree 2;4,4;1,2;1,2 (SimGrid example): D-mod-k routes worked by hand', () => {
  // 16 hosts, label (h mod 4, h div 4); 4 leaves sw1.p above hosts 4p..4p+3; 2 spines; 2 cables per leaf-spine pair.
  const p = fatTree({ shape: '2;4,4;1,2;1,2', speed: 1e9, hostBandwidth: 1.25e8, latency: 5e-5 });
  assert.equal(p.hostCount, 16);
  assert.equal(p.linkCount, 64); // (16 host cables + 4 leaves x 4 uplink cables) x 2 directions
  // 0 -> 5: leaf 0 port = 5 mod (up 2 x count 2) = 1 -> spine 1 (1 mod 2) over cable 0 (1 div 2);
  // down: cable (src 0 mod 2) = 0 to leaf 1, then node-5.
  assert.deepEqual(names(p, 0, 5), ['node-0->sw1.0', 'sw1.0->sw2.1#0', 'sw2.1->sw1.1#0', 'sw1.1->node-5']);
  close(p.routeLatency(0, 5), 4 * 5e-5);
  // 1 -> 4: port 4 mod 4 = 0 -> spine 0, cable 0; down over cable (1 mod 2) = 1.
  assert.deepEqual(names(p, 1, 4), ['node-1->sw1.0', 'sw1.0->sw2.0#0', 'sw2.0->sw1.1#1', 'sw1.1->node-4']);
  // 5 -> 0: port 0 -> spine 0, cable 0; down over cable (5 mod 2) = 1.
  assert.deepEqual(names(p, 5, 0), ['node-5->sw1.1', 'sw1.1->sw2.0#0', 'sw2.0->sw1.0#1', 'sw1.0->node-0']);
  // Same leaf: up and straight down.
  assert.deepEqual(names(p, 0, 1), ['node-0->sw1.0', 'sw1.0->node-1']);
  close(p.routeLatency(0, 1), 2 * 5e-5);
});

test('fat tree k = 4, 3 levels (SimGrid 3;2,2,4;1,2,2;1,1,1): routes through core and aggregation', () => {
  const shape = kAryFatTreeShape(4);
  assert.deepEqual(shape, { levels: 3, down: [2, 2, 4], up: [1, 2, 2], count: [1, 1, 1] });
  const p = fatTree({ shape, speed: 1e9, hostBandwidth: 1e9, latency: 1e-6 });
  assert.equal(p.hostCount, 16);
  assert.equal(p.linkCount, 96); // (16 + 8 x 2 + 8 x 2 cables) x 2
  // 0 -> 15 (label 1,1,3): edge 0 port 15 mod 2 = 1 -> aggregation sw2.1; there port (15 div 2) mod 2 = 1
  // -> core (0,1,1) = sw3.3; down to pod 3: aggregation (0,1,3) = sw2.7, edge (0,1,3) = sw1.7, node-15.
  assert.deepEqual(names(p, 0, 15), ['node-0->sw1.0', 'sw1.0->sw2.1', 'sw2.1->sw3.3', 'sw3.3->sw2.7', 'sw2.7->sw1.7', 'sw1.7->node-15']);
  close(p.routeLatency(0, 15), 6e-6);
  // 0 -> 3: same pod, other edge: edge 0 port 3 mod 2 = 1 -> sw2.1, down to edge sw1.1.
  assert.deepEqual(names(p, 0, 3), ['node-0->sw1.0', 'sw1.0->sw2.1', 'sw2.1->sw1.1', 'sw1.1->node-3']);
});

test('bisection bandwidth: full fat trees, 2:1 oversubscription, crossbars', () => {
  const B = 1e9;
  const tree = (shape: string | FatTreeShape, oversubscription?: number): Platform =>
    fatTree({ shape, speed: 1, hostBandwidth: B, latency: 0, ...(oversubscription !== undefined && { oversubscription }) });
  // k = 4: 16 hosts, halves = pods {0,1} and {2,3}. Between them: 4 aggregation switches x 2 core
  // uplinks = 8 cables, so 8 B (= n/2 x B, full bisection).
  assert.equal(bisectionBandwidth(tree(kAryFatTreeShape(4))), 8 * B);
  // 2:1 at the leaves: the 8 edge uplinks of pods 0,1 carry B/2 each: 8 x B/2 = 4 B.
  assert.equal(bisectionBandwidth(tree(kAryFatTreeShape(4), 2)), 4 * B);
  // k = 8: 128 hosts, 64 B full; 32 B at 2:1.
  assert.equal(bisectionBandwidth(tree(kAryFatTreeShape(8))), 64 * B);
  assert.equal(bisectionBandwidth(tree(kAryFatTreeShape(8), 2)), 32 * B);
  // SimGrid 2;4,4;1,2;1,2: leaves 0,1 have 2 spines x 2 cables each = 8 uplinks: 8 B.
  assert.equal(bisectionBandwidth(tree('2;4,4;1,2;1,2')), 8 * B);
  // Structural 2:1 (one cable per leaf-spine pair): 2 leaves x 2 uplinks = 4 B.
  assert.equal(bisectionBandwidth(tree('2;4,4;1,2;1,1')), 4 * B);
  // Crossbar: the n/2 up links of one half: 8 B for 16 hosts.
  assert.equal(bisectionBandwidth(crossbar({ hosts: 16, speed: 1, bandwidth: B, latency: 0 })), 8 * B);
  // linkBandwidth above the leaves: k = 4 with 2 B switch links and B host links is host-bound: 8 B.
  assert.equal(bisectionBandwidth(fatTree({ shape: kAryFatTreeShape(4), speed: 1, hostBandwidth: B, linkBandwidth: 2 * B, latency: 0 })), 8 * B);
});

test('rail planes share no link and keep their own parameters', () => {
  const p = fatTree({ shape: kAryFatTreeShape(4), speed: 1, hostBandwidth: 1e9, latency: 1e-6, rails: [{}, { bandwidth: 5e8, linkBandwidth: 2e9, latency: 3e-6 }, {}] });
  assert.equal(p.rails, 3);
  assert.equal(p.linkCount, 3 * 96);
  for (let a = 0; a < 16; a++) {
    for (let b = 0; b < 16; b++) {
      const used = new Set<number>();
      for (let r = 0; r < 3; r++) {
        for (const l of p.route(a, b, r)) {
          assert.equal(p.link(l).rail, r);
          assert.ok(!used.has(l), `link ${p.link(l).name} on two rails`);
          used.add(l);
        }
      }
    }
  }
  const r1 = p.route(0, 15, 1);
  assert.equal(p.link(r1[0]!).bandwidth, 5e8); // host link of rail 1
  assert.equal(p.link(r1[2]!).bandwidth, 2e9); // aggregation -> core on rail 1
  close(p.routeLatency(0, 15, 1), 6 * 3e-6);
  assert.equal(bisectionBandwidth(p, 1), 8 * 5e8);
});

test('load profiles: piecewise-constant share of the speed, validated', () => {
  const p = crossbar({ hosts: 2, speed: 2e9, bandwidth: 1, latency: 0, load: new Map([[1, [{ time: 5, factor: 0.5 }, { time: 10, factor: 0.25 }]]]) });
  assert.equal(p.speedAt(0, 7), 2e9);
  assert.equal(p.speedAt(1, 0), 2e9); // before the first step: all of it
  assert.equal(p.speedAt(1, 5), 1e9);
  assert.equal(p.speedAt(1, 9.99), 1e9);
  assert.equal(p.speedAt(1, 1e6), 5e8);
  const bad = (load: ReadonlyMap<number, { time: number; factor: number }[]>): unknown => crossbar({ hosts: 2, speed: 1, bandwidth: 1, latency: 0, load });
  assert.throws(() => bad(new Map([[0, [{ time: 0, factor: 1.5 }]]])), /factor must be in 0\.\.1/);
  assert.throws(() => bad(new Map([[0, [{ time: 2, factor: 1 }, { time: 1, factor: 1 }]]])), /not after the previous step/);
  assert.throws(() => bad(new Map([[7, [{ time: 0, factor: 1 }]]])), /load host index/);
});

test('builder errors name the option and say what is allowed', () => {
  const config = (re: RegExp) => (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && re.test(e.message) && e.hint !== '';
  assert.throws(() => crossbar({ hosts: 0, speed: 1, bandwidth: 1, latency: 0 }), config(/hosts must be an integer >= 1/));
  assert.throws(() => crossbar({ hosts: 2, speed: 1, bandwidth: -1, latency: 0 }), config(/rails\[0\]\.bandwidth/));
  assert.throws(() => fatTree({ shape: '2;4,4;1,2', speed: 1, hostBandwidth: 1, latency: 0 }), config(/4 parts/));
  assert.throws(() => fatTree({ shape: '2;4,4;1,0;1,1', speed: 1, hostBandwidth: 1, latency: 0 }), config(/up must hold 2 positive integers/));
  assert.throws(() => fatTree({ shape: '2;4,4;1,2;1,2', hosts: 10, speed: 1, hostBandwidth: 1, latency: 0 }), config(/shape has 16 hosts/));
  assert.throws(() => kAryFatTreeShape(5), config(/even integer/));
});

// A random fat-tree shape with at most 64 hosts.
const shapes = fc
  .integer({ min: 1, max: 3 })
  .chain((levels) => fc.record({ levels: fc.constant(levels), down: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: levels, maxLength: levels }), up: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: levels, maxLength: levels }), count: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: levels, maxLength: levels }) }))
  .filter((s) => s.down.reduce((a, b) => a * b, 1) >= 2);

function checkRoute(p: Platform, a: number, b: number, rail: number): void {
  const route = p.route(a, b, rail);
  const nicA = p.nicLinks(a, rail)!;
  const nicB = p.nicLinks(b, rail)!;
  assert.ok(nicA.up.includes(route[0]!), `route ${a}->${b} starts off the source NIC`);
  assert.ok(nicB.down.includes(route[route.length - 1]!), `route ${a}->${b} ends off the destination NIC`);
  assert.equal(new Set(route).size, route.length, `route ${a}->${b} repeats a link`);
  let at = p.host(a).name;
  for (const l of route) {
    const link = p.link(l);
    assert.equal(link.from, at, `route ${a}->${b} jumps at ${link.name}`);
    assert.equal(link.rail, rail);
    at = link.to!;
  }
  assert.equal(at, p.host(b).name);
  let latency = 0;
  for (const l of route) latency += p.link(l).latency;
  assert.equal(p.routeLatency(a, b, rail), latency);
}

test('property: routes on random crossbars are connected NIC-to-NIC paths, reversed by the reverse route', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 3 }), fc.nat(), fc.nat(), fc.nat(), (n, rails, x, y, r) => {
      const p = crossbar({ hosts: n, speed: 1, bandwidth: 1e9, latency: 1e-6, rails });
      const [a, b, rail] = [x % n, (x + 1 + (y % (n - 1))) % n, r % rails];
      checkRoute(p, a, b, rail);
      const fwd = p.route(a, b, rail).map((l) => `${p.link(l).from}>${p.link(l).to}`);
      const back = p.route(b, a, rail).map((l) => `${p.link(l).to}>${p.link(l).from}`).reverse();
      assert.deepEqual(back, fwd);
    }),
  );
});

test('property: routes on random fat trees are connected NIC-to-NIC paths of equal length both ways', () => {
  fc.assert(
    fc.property(shapes, fc.integer({ min: 1, max: 2 }), fc.nat(), fc.nat(), (shape, rails, x, y) => {
      const p = fatTree({ shape, speed: 1, hostBandwidth: 1e9, latency: 1e-6, rails });
      const n = p.hostCount;
      const [a, b] = [x % n, (x + 1 + (y % (n - 1))) % n];
      for (let rail = 0; rail < rails; rail++) {
        checkRoute(p, a, b, rail);
        checkRoute(p, b, a, rail);
        // Both directions climb to the same level: the lowest switch above both hosts.
        assert.equal(p.route(a, b, rail).length, p.route(b, a, rail).length);
      }
    }),
    { numRuns: 300 },
  );
});
