// Each rail policy's decisions on scripted rail states: what it chooses, how it cuts, what it
// learns, and the patent's Q-learning update computed by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdaptivePolicy, QLearningPolicy, RoundRobinPolicy, WeightedPolicy, type RailView, type SegmentChoice } from '../../src/policy/rail/index.ts';
import { AckWindow, RateEstimator } from '../../src/policy/rail/rate-estimator.ts';

const MIB = 1 << 20;

function rail(index: number, over: Partial<RailView> = {}): RailView {
  return { index, up: true, latency: 0, nominalRate: 0, queuedBytes: 0, queuedSegments: 0, inFlightBytes: 0, lastWait: 0, ...over };
}

/** Plans a whole message the way the scheduler does (each choice queues on its rail). */
function plan(policy: { next(r: number, t: number, rails: readonly RailView[], now: number): SegmentChoice | undefined }, total: number, rails: RailView[], now = 0): SegmentChoice[] {
  const out: SegmentChoice[] = [];
  const views = rails.map((r) => ({ ...r }));
  let remaining = total;
  while (remaining > 0) {
    const c = policy.next(remaining, total, views, now);
    if (c === undefined) break;
    out.push(c);
    remaining -= c.bytes;
    views[c.rail]!.queuedBytes += c.bytes;
    views[c.rail]!.queuedSegments++;
  }
  return out;
}

const bytesOn = (choices: SegmentChoice[], r: number): number => choices.filter((c) => c.rail === r).reduce((n, c) => n + c.bytes, 0);

test('round-robin: equal segments of seg_max in turn, skipping rails that are down', () => {
  const p = new RoundRobinPolicy({ segMax: MIB });
  const choices = plan(p, 5 * MIB + 10, [rail(0), rail(1), rail(2, { up: false })]);
  assert.deepEqual(choices.map((c) => c.rail), [0, 1, 0, 1, 0, 1]);
  assert.deepEqual(choices.map((c) => c.bytes), [MIB, MIB, MIB, MIB, MIB, 10]);
});

test('weighted: configured 4:1 rates split a small message in one proportional chunk per rail, a large one 4:1', () => {
  const rails = [rail(0, { nominalRate: 100e6 }), rail(1, { nominalRate: 25e6 })];
  const small = plan(new WeightedPolicy({ segMax: MIB }), MIB, rails);
  assert.deepEqual(small, [{ rail: 0, bytes: 838861 }, { rail: 1, bytes: MIB - 838861 }]);
  const large = plan(new WeightedPolicy({ segMax: MIB }), 50 * MIB, rails);
  assert.equal(bytesOn(large, 0), 40 * MIB);
  assert.equal(bytesOn(large, 1), 10 * MIB);
});

test('weighted: without configured rates it splits equally until probed, then freezes the measured weights', () => {
  const p = new WeightedPolicy({ segMax: MIB, probeSamples: 2 });
  const rails = [rail(0), rail(1)];
  assert.equal(bytesOn(plan(p, 10 * MIB, rails), 0), 5 * MIB);
  for (let i = 0; i < 2; i++) {
    p.completed({ rail: 0, bytes: MIB, sentAt: i, serviceStart: i, ackedAt: i + 0.01, afterIdle: false });
    p.completed({ rail: 1, bytes: MIB, sentAt: i, serviceStart: i, ackedAt: i + 0.04, afterIdle: false });
  }
  const after = plan(new WeightedPolicy({ segMax: MIB }), 0, rails);
  assert.equal(after.length, 0);
  const frozen = plan(p, 100 * MIB, rails);
  // Rail 0 measured 4x faster: weighted round-robin evens the shares over the policy's lifetime,
  // so of all 110 MiB (5 + 5 while probing) rail 0 ends with 4/5: 88 MiB, 83 of them now.
  assert.equal(bytesOn(frozen, 0), 83 * MIB);
  assert.equal(bytesOn(frozen, 1), 17 * MIB);
  // Later completions change nothing: the weights are static.
  p.completed({ rail: 1, bytes: MIB, sentAt: 9, serviceStart: 9, ackedAt: 9.001, afterIdle: false });
  assert.deepEqual((p.describe().weights as number[]).map((w) => Math.round(w / 1e6)), [105, 26]);
});

test('adaptive: shares follow the learnt rates, and the tail is split so both rails end together', () => {
  const p = new AdaptivePolicy({ segMax: 4 * MIB, horizon: Infinity });
  const rails = [rail(0), rail(1)];
  // Teach it 100 MB/s and 25 MB/s from back-to-back acknowledgements.
  for (let i = 0; i < 10; i++) {
    p.completed({ rail: 0, bytes: 1e6, sentAt: 0, serviceStart: i * 0.01, ackedAt: (i + 1) * 0.01, afterIdle: i === 0 });
    p.completed({ rail: 1, bytes: 1e6, sentAt: 0, serviceStart: i * 0.04, ackedAt: (i + 1) * 0.04, afterIdle: i === 0 });
  }
  assert.deepEqual((p.describe().rates as number[]).map((r) => Math.round(r / 1e6)), [100, 25]);
  const choices = plan(p, 64 * MIB, rails, 1);
  const finish0 = bytesOn(choices, 0) / 100e6;
  const finish1 = bytesOn(choices, 1) / 25e6;
  assert.ok(Math.abs(finish0 - finish1) < 0.001, `rails finish at ${finish0} and ${finish1}`);
  // Segments on the slow rail are about 5 ms of its time (125 kB; up to 1.5 of that for a tail share).
  const slow = choices.filter((c) => c.rail === 1).map((c) => c.bytes);
  assert.ok(slow.every((b) => b <= 187_500), `slow-rail segments ${slow.join(' ')}`);
  assert.ok(slow.filter((b) => b === 125_000).length >= slow.length - 2, `slow-rail segments ${slow.join(' ')}`);
});

test('adaptive: a rail that cannot finish its share before the others finish everything gets nothing', () => {
  const p = new AdaptivePolicy({ segMax: MIB, horizon: Infinity });
  // Rail 1 is 10x slower and already holds 1 s of work: a 1 MiB message finishes on rail 0 long before.
  const rails = [rail(0, { nominalRate: 100e6 }), rail(1, { nominalRate: 10e6, inFlightBytes: 10e6 })];
  const choices = plan(p, MIB, rails);
  assert.equal(bytesOn(choices, 1), 0);
  assert.equal(bytesOn(choices, 0), MIB);
});

test('adaptive: holds while every rail has its horizon of work, and probes a rail left idle', () => {
  const p = new AdaptivePolicy({ segMax: MIB, probeInterval: 0.1, probeBytes: 4096 });
  const busy = [rail(0, { nominalRate: 100e6, inFlightBytes: 4 * MIB }), rail(1, { nominalRate: 100e6, inFlightBytes: 4 * MIB })];
  assert.equal(p.next(MIB, MIB, busy, 0), undefined);
  // Rail 1 (10 ms away) is left out of a 2 ms message; after 100 ms without a sample it gets a probe.
  const q = new AdaptivePolicy({ segMax: MIB, probeInterval: 0.1, probeBytes: 4096, horizon: Infinity });
  const rails = [rail(0, { nominalRate: 100e6 }), rail(1, { nominalRate: 100e6, latency: 0.01 })];
  // Never used: probed at once; 50 ms later not again; after 100 ms quiet, again.
  const first = plan(q, 200_000, rails, 0);
  assert.deepEqual(first[0], { rail: 1, bytes: 4096 });
  assert.ok(first.slice(1).every((c) => c.rail === 0));
  assert.equal(q.probes, 1);
  assert.ok(plan(q, 200_000, rails, 0.05).every((c) => c.rail === 0));
  const later = plan(q, 200_000, rails, 0.5);
  assert.deepEqual(later[0], { rail: 1, bytes: 4096 });
  assert.equal(q.probes, 2);
  assert.ok(later.slice(1).every((c) => c.rail === 0));
  assert.equal(later.slice(1).reduce((n, c) => n + c.bytes, 0), 200_000 - 4096);
});

test('rate estimator: a lone outlier moves the estimate a little, a lasting change moves it at once', () => {
  const e = new RateEstimator({ lastingSeconds: 0.02 });
  e.add(100, 0);
  e.add(50, 0.01); // outlier: 5% of the way
  assert.equal(e.rate, 97.5);
  e.add(100, 0.02);
  e.add(50, 0.03);
  e.add(50, 0.04);
  e.add(50, 0.06); // three in a row over 30 ms: lasting
  assert.equal(e.rate, 50);
  // Never clamped to any nominal value.
  for (let i = 0; i < 4; i++) e.add(1e12, 1 + i * 0.01);
  assert.equal(e.rate, 1e12);
});

test('ack window + estimator: acknowledgements released together after a receiver stall do not move the rate', () => {
  const window = new AckWindow(0.02);
  const windowed = new RateEstimator();
  const perSegment = new RateEstimator();
  // 1 MB every 10 ms (100 MB/s), a receiver stall of 20 ms, then three acknowledgements at once.
  const acks: [number, number][] = [[0, 0.01], [0.01, 0.02], [0.02, 0.03], [0.03, 0.04], [0.04, 0.07], [0.07, 0.0701], [0.0701, 0.0702], [0.0702, 0.08], [0.08, 0.09]];
  acks.forEach(([start, end], i) => {
    windowed.add(window.add(1e6, start, i === 0, end), end);
    perSegment.add(1e6 / (end - start), end);
    assert.ok(windowed.rate > 0.75e8 && windowed.rate < 1.25e8, `after ack ${i}: windowed estimate ${windowed.rate}`);
  });
  // Per segment, the burst reads as 10 GB/s twice in a row and drags the estimate far up.
  assert.ok(perSegment.rate > 5e8, `per-segment estimate ${perSegment.rate}`);
});

test('q-learning: C(m,2) tables, a seeded random first action, then the argmax of the summed tables', () => {
  const a = new QLearningPolicy({ segMax: MIB, seed: 3 });
  const b = new QLearningPolicy({ segMax: MIB, seed: 3 });
  const rails = [rail(0, { nominalRate: 1e8 }), rail(1, { nominalRate: 1e8 }), rail(2, { nominalRate: 1e8 })];
  assert.deepEqual(a.next(MIB, MIB, rails, 0), b.next(MIB, MIB, rails, 0));
  assert.equal(a.describe().tables, 3);
  const four = new QLearningPolicy({ segMax: MIB });
  four.next(MIB, MIB, [0, 1, 2, 3].map((i) => rail(i)), 0);
  assert.equal(four.describe().tables, 6);
});

test('q-learning: the update and reward of the patent, computed by hand for two rails', () => {
  const p = new QLearningPolicy({ segMax: MIB, states: 8, beta: 0.1, gamma: 0.95, queueMax: 8, seed: 1 });
  const rails = [rail(0, { nominalRate: MIB / 0.01 }), rail(1, { nominalRate: MIB / 0.01 })];
  // time_interval = seg_max / rate = 10 ms; queue_interval = 8 / 8 = 1 segment per state.
  const first = p.next(MIB, MIB, rails, 0)!;
  // Rail `first` now has 2 queued segments and its last segment waited 15 ms (1.5 intervals).
  p.dequeued(first.rail, 0.015);
  const after = rails.map((r) => (r.index === first.rail ? { ...r, queuedSegments: 2 } : r));
  const states = p.states(after);
  assert.equal(states[first.rail], 2 + 1); // floor(2 / 1) + floor(1.5)
  assert.equal(states[1 - first.rail], 0);
  // All Q are 0, so the second action is the seeded tie-break; the update uses
  // r = 1 / (1.5 + 1) - 3/8 = 0.025 and Q(s', a') = 0: Q(s0, a0) = 0.1 * 0.025.
  const second = p.next(MIB, MIB, after, 0.02)!;
  assert.ok(second.rail === 0 || second.rail === 1);
  const q = p.value([0, 0], first.rail);
  assert.ok(Math.abs(q - 0.1 * (1 / 2.5 - 3 / 8)) < 1e-12, `Q = ${q}`);
});

test('q-learning: queue_max blocks the chosen rail (the policy holds) until its queue drains', () => {
  const p = new QLearningPolicy({ segMax: MIB, queueMax: 2, seed: 5 });
  const full = [rail(0, { queuedSegments: 2, nominalRate: 1e8 }), rail(1, { queuedSegments: 2, nominalRate: 1e8 })];
  assert.equal(p.next(MIB, MIB, full, 0), undefined);
  const pendingRail = (p as unknown as { pending: { action: number } }).pending.action;
  const drained = full.map((r) => (r.index === pendingRail ? { ...r, queuedSegments: 1 } : r));
  assert.deepEqual(p.next(MIB, MIB, drained, 0.01), { rail: pendingRail, bytes: MIB });
});
