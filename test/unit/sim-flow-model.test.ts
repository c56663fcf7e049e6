// The flow network model against numbers worked out by hand (SimGrid's habit: the arithmetic is
// in the comments): one flow costs latency + size / bandwidth; flows sharing a link share it
// fairly; a fat tree's permutation traffic is limited by its bisection; the delay-only model
// ignores contention.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Simulation } from '../../src/sim/engine.ts';
import { FlowModel } from '../../src/sim/network/flow-model.ts';
import { DelayModel } from '../../src/sim/network/model.ts';
import { bisectionBandwidth, crossbar, fatTree, kAryFatTreeShape } from '../../src/sim/platform/topologies.ts';

const close = (got: number, want: number, what: string): void => assert.ok(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${what}: ${got} != ${want}`);

test('flow model: one flow takes route latency + size / bandwidth', () => {
  // Crossbar: a route is [up(src), down(dst)], each link 1e9 B/s and 5 us.
  // 1e6 bytes: 2 x 5e-6 + 1e6 / 1e9 = 1e-5 + 1e-3 = 0.00101 s.
  const sim = new Simulation();
  const platform = crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
  const model = new FlowModel(sim, platform, { tcpGamma: 0 });
  let arrived = -1;
  model.send(0, 1, 1e6, 0, () => (arrived = sim.now()));
  sim.run();
  close(arrived, 0.00101, 'arrival');
  assert.equal(model.activeFlows, 0);
});

test('flow model: n flows into one host share its down link', () => {
  // 4 senders to host 0, 1e6 bytes each: the down link of host 0 (1e9 B/s) is shared by 4 flows,
  // 2.5e8 B/s each: all arrive at 1e-5 + 1e6 / 2.5e8 = 1e-5 + 4e-3 = 0.00401 s.
  const sim = new Simulation();
  const platform = crossbar({ hosts: 5, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
  const model = new FlowModel(sim, platform, { tcpGamma: 0 });
  const times: number[] = [];
  for (let h = 1; h <= 4; h++) model.send(h, 0, 1e6, 0, () => times.push(sim.now()));
  sim.run();
  assert.equal(times.length, 4);
  for (const t of times) close(t, 0.00401, 'shared arrival');
});

test('flow model: a short flow leaves and the long one speeds up', () => {
  // Two flows into host 0: A 1e6 bytes, B 3e6 bytes, both start at 1e-5 (after latency).
  // Shared at 5e8 B/s each until A ends: A needs 1e6 / 5e8 = 2e-3 -> A arrives at 0.00201.
  // By then B has 2e6 left at the full 1e9 B/s: 2e-3 more -> B arrives at 0.00401.
  const sim = new Simulation();
  const platform = crossbar({ hosts: 3, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
  const model = new FlowModel(sim, platform, { tcpGamma: 0 });
  const at: Record<string, number> = {};
  model.send(1, 0, 1e6, 0, () => (at.a = sim.now()));
  model.send(2, 0, 3e6, 0, () => (at.b = sim.now()));
  sim.run();
  close(at.a!, 0.00201, 'A');
  close(at.b!, 0.00401, 'B');
});

test('flow model: flows between the same two hosts share like separate ones', () => {
  // Host 1 -> host 0 (one class): A 1e6 and B 3e6 bytes start at 1e-5; C 1e6 bytes starts at
  // 1e-3 + 1e-5 (sent at 1e-3). [1e-5, 1.01e-3]: A and B at 5e8 B/s, 5e5 bytes each.
  // Then three at 1e9 / 3: A's last 5e5 take 1.5e-3 -> A at 2.51e-3; C has 5e5 left, B 2.5e6.
  // Then two at 5e8: C's 5e5 take 1e-3 -> C at 3.51e-3; B has 1.5e6 left, alone at 1e9 -> 5.01e-3
  // (the link is never idle: 5e6 bytes in 5e-3 after the latency).
  const sim = new Simulation();
  const platform = crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
  const model = new FlowModel(sim, platform, { tcpGamma: 0 });
  const at: Record<string, number> = {};
  model.send(1, 0, 1e6, 0, () => (at.a = sim.now()));
  model.send(1, 0, 3e6, 0, () => (at.b = sim.now()));
  sim.at(1e-3, () => model.send(1, 0, 1e6, 0, () => (at.c = sim.now())));
  sim.run();
  close(at.a!, 2.51e-3, 'A');
  close(at.c!, 3.51e-3, 'C');
  close(at.b!, 5.01e-3, 'B');
  assert.equal(model.activeFlows, 0);
});

test('flow model: TCP gamma bounds a flow by gamma / (2 x latency)', () => {
  // Route latency 2 x 5e-6 = 1e-5; gamma 4194304 -> bound 4194304 / 2e-5 = 2.097152e11 B/s,
  // above the link: no effect. With 1 ms links: latency 2e-3, bound 4194304 / 4e-3 = 1.048576e9,
  // the link is 1e10: 1e6 bytes take 2e-3 + 1e6 / 1.048576e9.
  const sim = new Simulation();
  const platform = crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e10, latency: 1e-3 });
  const model = new FlowModel(sim, platform);
  let arrived = -1;
  model.send(0, 1, 1e6, 0, () => (arrived = sim.now()));
  sim.run();
  close(arrived, 2e-3 + 1e6 / 1.048576e9, 'bounded arrival');
});

for (const [oversubscription, factor] of [[1, 1], [2, 2]] as const) {
  test(`flow model: permutation traffic on a k=4 fat tree ${oversubscription}:1 is limited by the bisection`, () => {
    // 16 hosts; host i (first half) sends 1e6 bytes to host i + 8. Bisection (max flow between the
    // halves): 8 B at 1:1, 4 B at 2:1 (B = 1e9 B/s). 8 flows x 1e6 bytes over it take
    // 8e6 / (8e9 / factor) = factor x 1e-3 s after the route latency (6 links x 1e-6 up and down).
    const sim = new Simulation();
    const platform = fatTree({ shape: kAryFatTreeShape(4), hostBandwidth: 1e9, latency: 1e-6, speed: 1e9, oversubscription });
    assert.equal(bisectionBandwidth(platform), 8e9 / factor);
    const model = new FlowModel(sim, platform, { tcpGamma: 0 });
    const times: number[] = [];
    for (let i = 0; i < 8; i++) model.send(i, i + 8, 1e6, 0, () => times.push(sim.now()));
    sim.run();
    const latency = platform.routeLatency(0, 8);
    close(latency, 6e-6, 'route latency');
    close(Math.max(...times), latency + factor * 1e-3, 'last arrival');
  });
}

test('delay model: no contention, latency + size / bandwidth whatever else flows', () => {
  const sim = new Simulation();
  const model = new DelayModel(sim, { latency: () => 1e-5, bandwidth: () => 1e9 });
  const times: number[] = [];
  for (let h = 1; h <= 4; h++) model.send(h, 0, 1e6, 0, () => times.push(sim.now()));
  sim.run();
  for (const t of times) close(t, 0.00101, 'delay arrival');
});

test('flow model: a bottleneck is shared in inverse proportion to route latency (SimGrid CM02)', () => {
  // Fat tree "2;4,4;1,2;1,1": hosts 0-3 under leaf 0, 4-7 under leaf 1; every link 1e9 B/s, 1 us.
  // Host 1 -> 0 crosses 2 links (2 us), host 4 -> 0 crosses 4 (4 us); both end on host 0's down
  // link. 1e6 bytes each:
  //   2-4 us: flow A alone at 1e9: 2000 bytes; from 4 us, weights 1/2 : 1/4 give A 2/3 of the
  //   link: 998000 / 6.667e8 = 1497 us more, A lands at 1501 us (equal shares: 2000 us).
  const platform = fatTree({ shape: '2;4,4;1,2;1,1', hostBandwidth: 1e9, latency: 1e-6, speed: 1e9 });
  for (const [latencyWeighted, expectA] of [[true, 1.501e-3], [false, 2.0e-3]] as const) {
    const sim = new Simulation();
    const model = new FlowModel(sim, platform, { tcpGamma: 0, latencyWeighted });
    let a = -1;
    let b = -1;
    model.send(1, 0, 1e6, 0, () => (a = sim.now()));
    model.send(4, 0, 1e6, 0, () => (b = sim.now()));
    sim.run();
    close(a, expectA, `flow A (latencyWeighted ${latencyWeighted})`);
    // The link is busy throughout either way: 2e6 bytes from 2 us, B's last 2 us alone.
    close(b, 2.002e-3, `flow B (latencyWeighted ${latencyWeighted})`);
  }
});

test('flow model: a solve interval delays rate changes by less than the interval, never overfills', () => {
  // As "n flows into one host" but re-solving only every 100 us: the 4 flows start at 10 us and
  // wait for the solve at 100 us, then share the link: all land at 1e-4 + 4e-3.
  const sim = new Simulation();
  const platform = crossbar({ hosts: 5, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
  const model = new FlowModel(sim, platform, { tcpGamma: 0, solveInterval: 1e-4 });
  const times: number[] = [];
  for (let h = 1; h <= 4; h++) model.send(h, 0, 1e6, 0, () => times.push(sim.now()));
  sim.run();
  for (const t of times) close(t, 1e-4 + 4e-3, 'stepped arrival');
  assert.throws(() => new FlowModel(sim, platform, { solveInterval: -1 }), /solveInterval/);
});

test('flow model: header-only frames skip the sharing and cost latency + size / narrowest link', () => {
  // A 32-byte frame next to a 1 MB flow on the same down link: not slowed by it.
  const sim = new Simulation();
  const platform = crossbar({ hosts: 3, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
  const model = new FlowModel(sim, platform, { tcpGamma: 0 });
  let small = -1;
  model.send(1, 0, 1e6, 0, () => {});
  model.send(2, 0, 32, 0, () => (small = sim.now()));
  sim.run();
  close(small, 1e-5 + 32 / 1e9, 'control frame');
});

// ------------------------------------------------------------------------------------------------
// SimGrid's model knobs: cross-traffic, weight-S, size-dependent factors

import { Platform } from '../../src/sim/platform/platform.ts';
import { parseSizeFactor, SMPI_BW_FACTOR, SMPI_LAT_FACTOR } from '../../src/sim/network/size-factor.ts';

test('flow model: cross-traffic: two flows in opposite directions each take 0.05 of the other link', () => {
  // 1 -> 0 uses up(1), down(0); its acknowledgements 0.05 of up(0), down(1); 0 -> 1 the mirror.
  // On up(1): the first flow at 1 and the second at 0.05: level 1e9 / 1.05 each. 1e6 bytes take
  // 1e6 / (1e9 / 1.05) = 1.05e-3 after 1e-5 of latency: 0.00106 s. Without cross-traffic: 0.00101.
  for (const [crosstraffic, want] of [[true, 0.00106], [false, 0.00101]] as const) {
    const sim = new Simulation();
    const platform = crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e9, latency: 5e-6 });
    const model = new FlowModel(sim, platform, { tcpGamma: 0, crosstraffic });
    const times: number[] = [];
    model.send(1, 0, 1e6, 0, () => times.push(sim.now()));
    model.send(0, 1, 1e6, 0, () => times.push(sim.now()));
    sim.run();
    assert.equal(times.length, 2);
    for (const t of times) close(t, want, `arrival, cross-traffic ${crosstraffic}`);
  }
  // One flow alone: its acknowledgements use other links, so it is not slowed.
  const sim = new Simulation();
  const model = new FlowModel(sim, crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e9, latency: 5e-6 }), { tcpGamma: 0, crosstraffic: true });
  let alone = -1;
  model.send(1, 0, 1e6, 0, () => (alone = sim.now()));
  sim.run();
  close(alone, 0.00101, 'a flow alone');
});

/** Hosts h0, h1, h2; h1 -> h0 crosses a (1e9 B/s) then c, h2 -> h0 crosses b (1e10) then c (1e8); 1 us each. */
function vee(): Platform {
  const links = [
    { name: 'a', bandwidth: 1e9, latency: 1e-6, sharing: 'shared' as const },
    { name: 'b', bandwidth: 1e10, latency: 1e-6, sharing: 'shared' as const },
    { name: 'c', bandwidth: 1e8, latency: 1e-6, sharing: 'shared' as const },
  ];
  const hosts = ['h0', 'h1', 'h2'].map((name) => ({ name, speed: 1e9, cores: 1 }));
  return new Platform({ hosts, links, router: { route: (src, dst) => (src === dst ? [] : src === 0 || dst === 0 ? [src + dst === 1 ? 0 : 1, 2] : [0, 1]) } });
}

test('flow model: weight-S: a flow over slower links gets a smaller share of the bottleneck', () => {
  // Penalties (route latency + weightS / bandwidth of each link), weightS 8775:
  //   A (h1 -> h0): 2e-6 + 8775/1e9 + 8775/1e8 = 9.8525e-5;  B (h2 -> h0): 2e-6 + 8775/1e10 + 8775/1e8 = 9.06275e-5.
  // On c (1e8 B/s) shares go as 1/penalty: rA = 1e8 * pB / (pA + pB), rB = 1e8 - rA.
  // B (1e6 bytes) ends first at 2e-6 + 1e6 / rB; A then has the whole 1e8 B/s for what is left.
  const pA = 2e-6 + 8775 / 1e9 + 8775 / 1e8;
  const pB = 2e-6 + 8775 / 1e10 + 8775 / 1e8;
  const rA = (1e8 * pB) / (pA + pB);
  const rB = 1e8 - rA;
  const tB = 2e-6 + 1e6 / rB;
  const tA = tB + (1e6 - rA * (1e6 / rB)) / 1e8;
  const sim = new Simulation();
  const model = new FlowModel(sim, vee(), { tcpGamma: 0, weightS: 8775 });
  const at: Record<string, number> = {};
  model.send(1, 0, 1e6, 0, () => (at.a = sim.now()));
  model.send(2, 0, 1e6, 0, () => (at.b = sim.now()));
  sim.run();
  close(at.b!, tB, 'B');
  close(at.a!, tA, 'A');
  assert.ok(at.a! > at.b!);
});

test("flow model: SMPI's size factors: latency times lat-factor(size), progress times bw-factor(size)", () => {
  // Crossbar route: 2 links of 1 us and 1e9 B/s. 100000 bytes (> 65472): latency 2e-6 x 11.6436,
  // then 1e5 / (1e9 x 0.940694). 1000 bytes (in (732, 1426]): 2e-6 x 1.9503 + 1e3 / (1e9 x 0.341987).
  const cases: [number, number][] = [
    [100000, 2e-6 * 11.6436 + 1e5 / (1e9 * 0.940694)],
    [1000, 2e-6 * 1.9503 + 1e3 / (1e9 * 0.341987)],
  ];
  for (const [bytes, want] of cases) {
    const sim = new Simulation();
    const model = new FlowModel(sim, crossbar({ hosts: 2, speed: 1e9, bandwidth: 1e9, latency: 1e-6 }), {
      tcpGamma: 0,
      latencyFactor: parseSizeFactor(SMPI_LAT_FACTOR, 'lat'),
      bandwidthFactor: parseSizeFactor(SMPI_BW_FACTOR, 'bw'),
    });
    let at = -1;
    model.send(0, 1, bytes, 0, () => (at = sim.now()));
    sim.run();
    close(at, want, `${bytes} bytes`);
  }
  // The bandwidth factor scales progress, not the share: two flows into one host, one of 100000
  // bytes (factor 0.940694) and one of 1000 (0.341987), each get half of the link (5e8 B/s).
  const sim = new Simulation();
  const model = new FlowModel(sim, crossbar({ hosts: 3, speed: 1e9, bandwidth: 1e9, latency: 0 }), { tcpGamma: 0, bandwidthFactor: parseSizeFactor(SMPI_BW_FACTOR, 'bw') });
  let small = -1;
  model.send(1, 0, 1000, 0, () => (small = sim.now()));
  model.send(2, 0, 100000, 0, () => {});
  sim.run();
  close(small, 1000 / (5e8 * 0.341987), 'the small flow at half the link times its factor');
});
