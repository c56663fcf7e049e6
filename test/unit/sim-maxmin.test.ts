// The max-min fair sharing solver: hand-worked cases (expected numbers worked out in the comment
// above each check, as SimGrid's maxmin_test.cpp does), a property test against a brute-force
// progressive filling, and the incrementality of solve().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MaxMinSystem } from '../../src/sim/network/maxmin.ts';

function close(actual: number, expected: number, tol = 1e-12, floor = 0): boolean {
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= Math.max(tol * Math.max(Math.abs(actual), Math.abs(expected)), floor);
}

function assertClose(actual: number, expected: number, what: string): void {
  assert.ok(close(actual, expected), `${what}: got ${actual}, expected ${expected}`);
}

function sorted(ids: readonly number[]): number[] {
  return [...ids].sort((a, b) => a - b);
}

// ------------------------------------------------------------------------------------------------
// Hand-worked cases

test('maxmin: one flow on one link gets the capacity', () => {
  // link L cap 100, flow f over L alone: level = 100 / 1 = 100, so f = 100.
  const sys = new MaxMinSystem();
  const l = sys.addLink(100);
  const f = sys.addFlow([l]);
  assert.deepEqual(sys.solve(), [f]);
  assertClose(sys.rate(f), 100, 'f');
  assertClose(sys.usage(l), 100, 'usage');
  assert.equal(sys.flowCount, 1);
  assert.equal(sys.linkCount, 1);
});

test('maxmin: n flows on one link share it equally', () => {
  // link cap 100, 4 flows of weight 1: level = 100 / 4 = 25, each flow 25.
  const sys = new MaxMinSystem();
  const l = sys.addLink(100);
  const flows = [0, 1, 2, 3].map(() => sys.addFlow([l]));
  assert.deepEqual(sorted(sys.solve()), sorted(flows));
  for (const f of flows) assertClose(sys.rate(f), 25, `flow ${f}`);
  assertClose(sys.usage(l), 100, 'usage');
});

test('maxmin: weights 1 and 2 on one link get 1/3 and 2/3', () => {
  // link cap 90, f1 weight 1, f2 weight 2: level = 90 / (1 + 2) = 30,
  // f1 = 1 * 30 = 30 (1/3), f2 = 2 * 30 = 60 (2/3).
  const sys = new MaxMinSystem();
  const l = sys.addLink(90);
  const f1 = sys.addFlow([l], { weight: 1 });
  const f2 = sys.addFlow([l], { weight: 2 });
  sys.solve();
  assertClose(sys.rate(f1), 30, 'f1');
  assertClose(sys.rate(f2), 60, 'f2');
});

test('maxmin: three flows, two links, one flow crossing both', () => {
  // A cap 10 carries f1, f3; B cap 20 carries f2, f3.
  // keys: A = 10 / 2 = 5, B = 20 / 2 = 10. A is the bottleneck: f1 = f3 = 5.
  // B then has 20 - 5 = 15 left for f2 alone (key 15 / 1): f2 = 15.
  // usage: A = 5 + 5 = 10 (saturated), B = 15 + 5 = 20 (saturated).
  const sys = new MaxMinSystem();
  const a = sys.addLink(10);
  const b = sys.addLink(20);
  const f1 = sys.addFlow([a]);
  const f2 = sys.addFlow([b]);
  const f3 = sys.addFlow([a, b]);
  assert.deepEqual(sorted(sys.solve()), [f1, f2, f3]);
  assertClose(sys.rate(f1), 5, 'f1');
  assertClose(sys.rate(f2), 15, 'f2');
  assertClose(sys.rate(f3), 5, 'f3');
  assertClose(sys.usage(a), 10, 'usage A');
  assertClose(sys.usage(b), 20, 'usage B');
  assert.deepEqual(sys.linksOf(f3), [a, b]);
});

test('maxmin: a bound below the fair share', () => {
  // link cap 100, f1 bound 10, f2 and f3 unbounded. Fair share would be 100 / 3 = 33.3;
  // f1's bound key 10 / 1 = 10 is smaller, so f1 = 10; the link keeps 100 - 10 = 90
  // for weight 2: f2 = f3 = 45.
  const sys = new MaxMinSystem();
  const l = sys.addLink(100);
  const f1 = sys.addFlow([l], { bound: 10 });
  const f2 = sys.addFlow([l]);
  const f3 = sys.addFlow([l]);
  sys.solve();
  assertClose(sys.rate(f1), 10, 'f1');
  assertClose(sys.rate(f2), 45, 'f2');
  assertClose(sys.rate(f3), 45, 'f3');
  // A bound above the fair share does nothing: bound 50 > 100 / 3.
  sys.setBound(f1, 50);
  assert.deepEqual(sorted(sys.solve()), [f1, f2, f3]);
  for (const f of [f1, f2, f3]) assertClose(sys.rate(f), 100 / 3, `flow ${f}`);
});

test('maxmin: a flow over no links', () => {
  // No link constrains it: unbounded -> Infinity; bound 7 -> 7.
  const sys = new MaxMinSystem();
  const free = sys.addFlow([]);
  const capped = sys.addFlow([], { bound: 7 });
  assert.deepEqual(sorted(sys.solve()), [free, capped]);
  assert.equal(sys.rate(free), Infinity);
  assert.equal(sys.rate(capped), 7);
  assert.deepEqual(sys.solve(), []);
});

test('maxmin: halving a link changes exactly the rates of the flows it limits', () => {
  // A cap 10: f1, f3.  B cap 100: f2, f3.  C cap 8: f2.  (one component)
  // keys: A = 10/2 = 5, B = 100/2 = 50, C = 8/1 = 8.
  //   A first: f1 = f3 = 5. Then C = 8 < B = (100 - 5)/1 = 95: f2 = 8.
  // Halve A to 5: A = 5/2 = 2.5 -> f1 = f3 = 2.5; C = 8 < B = 97.5 -> f2 = 8 (unchanged).
  // solve() recomputes the component (3 flows) but reports only f1 and f3.
  const sys = new MaxMinSystem();
  const a = sys.addLink(10);
  const b = sys.addLink(100);
  const c = sys.addLink(8);
  const f1 = sys.addFlow([a]);
  const f2 = sys.addFlow([b, c]);
  const f3 = sys.addFlow([a, b]);
  sys.solve();
  assertClose(sys.rate(f1), 5, 'f1');
  assertClose(sys.rate(f2), 8, 'f2');
  assertClose(sys.rate(f3), 5, 'f3');
  sys.setCapacity(a, 5);
  assert.equal(sys.capacityOf(a), 5);
  assert.deepEqual(sorted(sys.solve()), [f1, f3]);
  assert.equal(sys.lastRecomputed, 3);
  assertClose(sys.rate(f1), 2.5, 'f1');
  assertClose(sys.rate(f2), 8, 'f2');
  assertClose(sys.rate(f3), 2.5, 'f3');
  assertClose(sys.usage(b), 10.5, 'usage B'); // 8 + 2.5
  // Setting the same capacity again is not a change.
  sys.setCapacity(a, 5);
  assert.deepEqual(sys.solve(), []);
  assert.equal(sys.lastRecomputed, 0);
});

test('maxmin: removing a flow frees bandwidth for the others', () => {
  // link cap 90, three flows: 90 / 3 = 30 each. Remove one: 90 / 2 = 45 each,
  // and solve() reports the two that remain.
  const sys = new MaxMinSystem();
  const l = sys.addLink(90);
  const f1 = sys.addFlow([l]);
  const f2 = sys.addFlow([l]);
  const f3 = sys.addFlow([l]);
  sys.solve();
  for (const f of [f1, f2, f3]) assertClose(sys.rate(f), 30, `flow ${f}`);
  sys.removeFlow(f2);
  assert.equal(sys.flowCount, 2);
  assert.deepEqual(sorted(sys.solve()), [f1, f3]);
  assertClose(sys.rate(f1), 45, 'f1');
  assertClose(sys.rate(f3), 45, 'f3');
  assertClose(sys.usage(l), 90, 'usage');
  assert.throws(() => sys.rate(f2), RangeError);
  // The freed id is reused.
  assert.equal(sys.addFlow([l]), f2);
});

test('maxmin: bad arguments throw RangeError', () => {
  const sys = new MaxMinSystem();
  const l = sys.addLink(1);
  assert.throws(() => sys.addLink(-1), RangeError);
  assert.throws(() => sys.addFlow([l, l]), RangeError);
  assert.throws(() => sys.addFlow([l + 1]), RangeError);
  assert.throws(() => sys.addFlow([l], { weight: 0 }), RangeError);
  assert.throws(() => sys.addFlow([l], { bound: -1 }), RangeError);
  assert.throws(() => sys.setCapacity(7, 1), RangeError);
  assert.throws(() => sys.removeFlow(0), RangeError);
});

test('maxmin: a flow of count n gets the rate of each of n identical flows', () => {
  // Link A (12): f (count 3, weight 1) and g (weight 1): 4 shares of 3 -> f = g = 3, A full.
  // Link B (10): f alone: 3 x 3 = 9 used. count 1 -> A: 2 shares of 6 but B caps f at 10.
  const sys = new MaxMinSystem();
  const a = sys.addLink(12);
  const b = sys.addLink(10);
  const f = sys.addFlow([a, b], { count: 3 });
  const g = sys.addFlow([a]);
  sys.solve();
  assertClose(sys.rate(f), 3, 'f');
  assertClose(sys.rate(g), 3, 'g');
  assertClose(sys.usage(a), 12, 'usage A');
  assertClose(sys.usage(b), 9, 'usage B');
  sys.setCount(f, 1);
  assert.deepEqual(sorted(sys.solve()), sorted([f, g]));
  assertClose(sys.rate(f), 6, 'f alone');
  assertClose(sys.rate(g), 6, 'g');
  assert.throws(() => sys.setCount(f, 0), RangeError);
  assert.throws(() => sys.addFlow([a], { count: 1.5 }), RangeError);
});

// ------------------------------------------------------------------------------------------------
// Property test against a brute-force reference

interface RefFlow {
  links: number[];
  /** Consumption per unit of rate on each link (1 when absent). */
  coefs?: number[];
  weight: number;
  bound: number;
}

/** Plain progressive filling over every flow, recomputed from scratch; O((F + L)^2 * E). */
function referenceRates(caps: readonly number[], flows: readonly RefFlow[]): number[] {
  const rates = flows.map(() => NaN);
  const remaining = [...caps];
  let left = flows.length;
  while (left > 0) {
    let level = Infinity;
    let link = -1;
    let flow = -1;
    for (let l = 0; l < caps.length; l++) {
      let ws = 0;
      flows.forEach((f, i) => {
        const k = f.links.indexOf(l);
        if (Number.isNaN(rates[i]!) && k >= 0) ws += f.weight * (f.coefs?.[k] ?? 1);
      });
      if (ws > 0 && Math.max(0, remaining[l]!) / ws < level) {
        level = Math.max(0, remaining[l]!) / ws;
        link = l;
        flow = -1;
      }
    }
    flows.forEach((f, i) => {
      if (Number.isNaN(rates[i]!) && f.bound / f.weight < level) {
        level = f.bound / f.weight;
        flow = i;
        link = -1;
      }
    });
    if (level === Infinity) break;
    const fix = (i: number, r: number): void => {
      rates[i] = r;
      left--;
      flows[i]!.links.forEach((l, k) => {
        if (remaining[l] !== Infinity) remaining[l] = remaining[l]! - r * (flows[i]!.coefs?.[k] ?? 1);
      });
    };
    if (flow >= 0) fix(flow, flows[flow]!.bound);
    else flows.forEach((f, i) => {
      if (Number.isNaN(rates[i]!) && f.links.includes(link)) fix(i, f.weight * level);
    });
  }
  return rates.map((r) => (Number.isNaN(r) ? Infinity : r));
}

const capacityArb = fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: 0.5, max: 1000, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, Infinity) },
);
const weightArb = fc.double({ min: 0.1, max: 10, noNaN: true });
const boundArb = fc.option(fc.double({ min: 0, max: 500, noNaN: true }), { nil: undefined, freq: 2 });

const opArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      links: fc.uniqueArray(fc.nat(7), { maxLength: 4 }),
      // Cross-traffic's coefficients (0.05 on the reverse route, 1.05 where it meets the route) or any.
      coefs: fc.option(fc.array(fc.oneof(fc.constantFrom(0.05, 1, 1.05), fc.double({ min: 0.01, max: 3, noNaN: true })), { minLength: 4, maxLength: 4 }), { nil: undefined }),
      weight: weightArb,
      bound: boundArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('capacity' as const), link: fc.nat(7), capacity: capacityArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bound' as const), pick: fc.nat(), bound: boundArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('weight' as const), pick: fc.nat(), weight: weightArb }) },
);

test('maxmin: matches brute-force progressive filling and satisfies max-min fairness', () => {
  fc.assert(
    fc.property(fc.array(capacityArb, { minLength: 1, maxLength: 8 }), fc.array(opArb, { maxLength: 40 }), (caps, ops) => {
      const sys = new MaxMinSystem();
      const capacity = [...caps];
      for (const c of capacity) sys.addLink(c);
      const live = new Map<number, RefFlow>(); // flow id -> spec
      for (const op of ops) {
        const fresh = new Set<number>();
        switch (op.kind) {
          case 'add': {
            if (live.size >= 12) break;
            const links = op.links.filter((l) => l < capacity.length);
            const coefs = op.coefs?.slice(0, links.length);
            const id = sys.addFlow(links, { weight: op.weight, bound: op.bound, ...(coefs !== undefined ? { coefficients: coefs } : {}) });
            assert.ok(!live.has(id));
            live.set(id, { links, ...(coefs !== undefined ? { coefs } : {}), weight: op.weight, bound: op.bound ?? Infinity });
            fresh.add(id);
            break;
          }
          case 'remove': {
            if (live.size === 0) break;
            const id = [...live.keys()][op.pick % live.size]!;
            sys.removeFlow(id);
            live.delete(id);
            break;
          }
          case 'capacity': {
            const l = op.link % capacity.length;
            capacity[l] = op.capacity;
            sys.setCapacity(l, op.capacity);
            break;
          }
          case 'bound': {
            if (live.size === 0) break;
            const id = [...live.keys()][op.pick % live.size]!;
            live.get(id)!.bound = op.bound ?? Infinity;
            sys.setBound(id, op.bound ?? Infinity);
            break;
          }
          case 'weight': {
            if (live.size === 0) break;
            const id = [...live.keys()][op.pick % live.size]!;
            live.get(id)!.weight = op.weight;
            sys.setWeight(id, op.weight);
            break;
          }
        }
        const before = new Map<number, number>();
        for (const id of live.keys()) if (!fresh.has(id)) before.set(id, sys.rate(id));
        const changed = new Set(sys.solve());
        assert.equal(sys.flowCount, live.size);

        // Reported exactly: new flows, and flows whose rate moved; the others kept their rate.
        for (const id of changed) assert.ok(live.has(id), `reported flow ${id} is not live`);
        for (const id of fresh) assert.ok(changed.has(id), `new flow ${id} not reported`);
        for (const [id, old] of before) {
          if (changed.has(id)) assert.notEqual(sys.rate(id), old, `flow ${id} reported but unchanged`);
          else assert.equal(sys.rate(id), old, `flow ${id} changed but not reported`);
        }

        // Same rates as the reference.
        const ids = [...live.keys()];
        const specs = ids.map((id) => live.get(id)!);
        const expected = referenceRates(capacity, specs);
        const finiteCaps = capacity.filter((c) => c < Infinity);
        const floor = 1e-12 * Math.max(1, ...finiteCaps, ...specs.map((s) => (s.bound < Infinity ? s.bound : 0)));
        ids.forEach((id, i) => {
          const got = sys.rate(id);
          assert.ok(close(got, expected[i]!, 1e-9, floor), `flow ${id}: got ${got}, reference ${expected[i]}`);
          assert.ok(got >= 0, `flow ${id} has negative rate ${got}`);
        });

        // Feasible: no link over capacity (usage() is the sum of its flows' rates times their coefficients).
        const usage = capacity.map((_, l) => sys.usage(l));
        for (let l = 0; l < capacity.length; l++) {
          let sum = 0;
          ids.forEach((id, i) => {
            const k = specs[i]!.links.indexOf(l);
            if (k >= 0) sum += sys.rate(id) * (specs[i]!.coefs?.[k] ?? 1);
          });
          assert.ok(close(usage[l]!, sum, 1e-12, floor), `usage(${l})`);
          assert.ok(usage[l]! <= capacity[l]! * (1 + 1e-9) + floor, `link ${l} over capacity: ${usage[l]} > ${capacity[l]}`);
        }

        // Max-min: each flow is at its bound, or crosses a saturated link on which it has the
        // largest rate / weight (so it could only go faster by slowing a flow no faster than it).
        ids.forEach((id, i) => {
          const spec = specs[i]!;
          const r = sys.rate(id);
          if (r === Infinity) {
            assert.equal(spec.bound, Infinity);
            for (const l of spec.links) assert.equal(capacity[l], Infinity);
            return;
          }
          if (close(r, spec.bound, 1e-9, floor)) return;
          const bottleneck = spec.links.some((l) => {
            if (usage[l]! < capacity[l]! * (1 - 1e-9) - floor) return false;
            let maxShare = 0;
            ids.forEach((other, j) => {
              if (specs[j]!.links.includes(l)) maxShare = Math.max(maxShare, sys.rate(other) / specs[j]!.weight);
            });
            return r / spec.weight >= maxShare * (1 - 1e-9) - floor;
          });
          assert.ok(bottleneck, `flow ${id} (rate ${r}) has neither its bound nor a bottleneck link`);
        });
      }
    }),
    { numRuns: 300 },
  );
});

// ------------------------------------------------------------------------------------------------
// Incrementality

test('maxmin: a change in one component leaves the other alone', () => {
  // Component 1: link A cap 12, flows a1 a2 a3 (4 each). Component 2: link B cap 10, b1 b2 (5 each).
  // Halve A -> a1 a2 a3 = 2 each; b1 b2 are neither recomputed nor reported.
  const sys = new MaxMinSystem();
  const a = sys.addLink(12);
  const b = sys.addLink(10);
  const as = [sys.addFlow([a]), sys.addFlow([a]), sys.addFlow([a])];
  const bs = [sys.addFlow([b]), sys.addFlow([b])];
  sys.solve();
  assert.equal(sys.lastRecomputed, 5);
  sys.setCapacity(a, 6);
  assert.deepEqual(sorted(sys.solve()), sorted(as));
  assert.equal(sys.lastRecomputed, 3);
  for (const f of as) assertClose(sys.rate(f), 2, `a flow ${f}`);
  for (const f of bs) assertClose(sys.rate(f), 5, `b flow ${f}`);

  // A third flow on B: 10 / 3 each; only B's component (3 flows) is recomputed.
  const b3 = sys.addFlow([b]);
  assert.deepEqual(sorted(sys.solve()), sorted([...bs, b3]));
  assert.equal(sys.lastRecomputed, 3);
  for (const f of [...bs, b3]) assertClose(sys.rate(f), 10 / 3, `b flow ${f}`);

  // Nothing touched: nothing recomputed.
  assert.deepEqual(sys.solve(), []);
  assert.equal(sys.lastRecomputed, 0);
});

test('maxmin: removing the flow that joined two components splits them', () => {
  // A cap 10: f1, f3; B cap 20: f2, f3 (one component: 3 flows). Remove f3:
  // f1 = 10 and f2 = 20 (2 flows recomputed). Then changing A touches f1 only.
  const sys = new MaxMinSystem();
  const a = sys.addLink(10);
  const b = sys.addLink(20);
  const f1 = sys.addFlow([a]);
  const f2 = sys.addFlow([b]);
  const f3 = sys.addFlow([a, b]);
  sys.solve();
  sys.removeFlow(f3);
  assert.deepEqual(sorted(sys.solve()), [f1, f2]);
  assert.equal(sys.lastRecomputed, 2);
  assertClose(sys.rate(f1), 10, 'f1');
  assertClose(sys.rate(f2), 20, 'f2');
  sys.setCapacity(a, 4);
  assert.deepEqual(sys.solve(), [f1]);
  assert.equal(sys.lastRecomputed, 1);
  assertClose(sys.rate(f1), 4, 'f1');
  assertClose(sys.rate(f2), 20, 'f2');
});

test('maxmin: many separate components, one touched, cost is that component only', () => {
  // 2000 components, each a link of cap 8 with 4 flows (2 each). Halving one link recomputes
  // its 4 flows (1 each) and reports those 4.
  const sys = new MaxMinSystem();
  const groups: number[][] = [];
  const links: number[] = [];
  for (let g = 0; g < 2000; g++) {
    const l = sys.addLink(8);
    links.push(l);
    groups.push([0, 1, 2, 3].map(() => sys.addFlow([l])));
  }
  assert.equal(sys.solve().length, 8000);
  assert.equal(sys.lastRecomputed, 8000);
  sys.setCapacity(links[1234]!, 4);
  assert.deepEqual(sorted(sys.solve()), sorted(groups[1234]!));
  assert.equal(sys.lastRecomputed, 4);
  for (const f of groups[1234]!) assertClose(sys.rate(f), 1, `flow ${f}`);
  assertClose(sys.rate(groups[0]![0]!), 2, 'untouched flow');
});

test('maxmin: count n solves as n separate identical flows', () => {
  fc.assert(
    fc.property(
      fc.array(capacityArb, { minLength: 1, maxLength: 5 }),
      fc.array(fc.record({ links: fc.uniqueArray(fc.nat(4), { maxLength: 3 }), weight: fc.double({ min: 0.1, max: 10, noNaN: true }), count: fc.integer({ min: 1, max: 4 }), bounded: fc.boolean(), bound: fc.double({ min: 0.1, max: 100, noNaN: true }) }), { minLength: 1, maxLength: 6 }),
      (caps, specs) => {
        const grouped = new MaxMinSystem();
        const single = new MaxMinSystem();
        for (const c of caps) {
          grouped.addLink(c);
          single.addLink(c);
        }
        const pairs: [number, number[]][] = [];
        for (const s of specs) {
          const links = s.links.filter((l) => l < caps.length);
          const options = { weight: s.weight, ...(s.bounded ? { bound: s.bound } : {}) };
          const one = grouped.addFlow(links, { ...options, count: s.count });
          pairs.push([one, Array.from({ length: s.count }, () => single.addFlow(links, options))]);
        }
        grouped.solve();
        single.solve();
        for (const [one, many] of pairs) {
          for (const m of many) assert.ok(close(grouped.rate(one), single.rate(m), 1e-9, 1e-12), `${grouped.rate(one)} != ${single.rate(m)}`);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test("maxmin: cross-traffic coefficients: a flow's 0.05 on the reverse link takes its share there", () => {
  // Link 0 carries flow a forward; flow b uses link 0 only as its reverse route (0.05).
  // Level on link 0: 100 / (1 + 0.05) per unit weight: both get 95.238...; link 1 (b's route, 1000) does not bind.
  const sys = new MaxMinSystem();
  sys.addLink(100);
  sys.addLink(1000);
  const a = sys.addFlow([0]);
  const b = sys.addFlow([1, 0], { coefficients: [1, 0.05] });
  sys.solve();
  assertClose(sys.rate(a), 100 / 1.05, 'a');
  assertClose(sys.rate(b), 100 / 1.05, 'b');
  assertClose(sys.usage(0), 100, 'usage of link 0');
  // Where a flow's route and reverse route meet, 1.05 of its rate: alone at capacity / 1.05.
  const c = new MaxMinSystem();
  c.addLink(105);
  const f = c.addFlow([0], { coefficients: [1.05] });
  c.solve();
  assertClose(c.rate(f), 100, 'a flow over one link both ways');
  assert.throws(() => c.addFlow([0], { coefficients: [0] }), RangeError);
  assert.throws(() => c.addFlow([0], { coefficients: [1, 1] }), RangeError);
});
