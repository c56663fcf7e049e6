// The random-diffusion balancer's pure policy (src/policy/balance/): the gossip of deficits, the
// speed predictors, the migration rows and the choice of tasks from the tail, property-tested with
// fast-check and on small cases worked by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { simulateBalanceStep, simulateGossip } from '../../bench/lib/balance-lockstep.ts';
import { defaultGossipRounds, defaultMessageCap, GossipKnowledge, gossipRng, type GossipRecord } from '../../src/policy/balance/gossip.ts';
import { imbalance, migrationRow, staggered, takeFromTail, targetLoads, tasksOf } from '../../src/policy/balance/migration.ts';
import { createSpeedModel, LastIntervalModel, TransitionModel, type SpeedModel } from '../../src/policy/balance/speed-model.ts';
import { Rng } from '../../src/rng.ts';

const close = (actual: number, expected: number, tolerance = 1e-9): void => {
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${actual} is not ${expected}`);
};
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** `count` underloaded ranks of `size`, drawn with `seed`, each with a deficit of 1. */
function underloaded(size: number, count: number, seed: number): GossipRecord[] {
  return new Rng(seed).sample(size, count).map((rank) => ({ rank, deficit: 1 }));
}

// ---------------------------------------------------------------- takeFromTail

interface Task {
  readonly id: number;
  readonly cost: number;
}

const queueArb = fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 30 }).map((costs) => costs.map((cost, id): Task => ({ id, cost })));
const planArb = fc.array(fc.record({ rank: fc.integer({ min: 0, max: 5 }), amount: fc.double({ min: 0, max: 60, noNaN: true }) }), { maxLength: 6 });
const distinctPlanArb = fc.uniqueArray(fc.record({ rank: fc.integer({ min: 0, max: 9 }), amount: fc.double({ min: 0, max: 60, noNaN: true }) }), { selector: (e) => e.rank, maxLength: 6 });

test('takeFromTail: every task exactly once, keep in queue order with the head, moves in queue order', () => {
  fc.assert(fc.property(queueArb, planArb, (queue, plan) => {
    const { keep, moves } = takeFromTail(queue, (t) => t.cost, plan);
    const all = [...keep, ...[...moves.values()].flat()].map((t) => t.id).sort((a, b) => a - b);
    assert.deepEqual(all, queue.map((t) => t.id));
    const ascending = (tasks: Task[]): boolean => tasks.every((t, i) => i === 0 || tasks[i - 1]!.id < t.id);
    assert.ok(ascending(keep), 'keep in queue order');
    for (const [rank, tasks] of moves) {
      assert.ok(tasks.length > 0, `rank ${rank} listed with no task`);
      assert.ok(ascending(tasks), `moves to ${rank} in queue order`);
      assert.ok(plan.some((e) => e.rank === rank), `rank ${rank} not planned`);
    }
    if (queue.length > 0) assert.equal(keep[0], queue[0], 'the head never moves');
  }));
});

test('takeFromTail: amounts honoured cumulatively within half a task, and nothing left that would still fit', () => {
  fc.assert(fc.property(queueArb, distinctPlanArb, (queue, plan) => {
    const { keep, moves } = takeFromTail(queue, (t) => t.cost, plan);
    const movedTo = (rank: number): number => sum((moves.get(rank) ?? []).map((t) => t.cost));
    const maxCost = Math.max(0, ...queue.map((t) => t.cost));
    let planned = 0;
    let moved = 0;
    for (const { rank, amount } of plan) {
      planned += amount;
      moved += movedTo(rank);
      assert.ok(moved <= planned + maxCost / 2 + 1e-9, `moved ${moved} > planned ${planned} + half of ${maxCost}`);
    }
    // What was not covered is less than half of every task that stayed (but the head): scanning
    // from the tail took every one that fitted.
    const shortfall = planned - moved;
    if (shortfall > 1e-9) for (const task of keep.slice(1)) assert.ok(task.cost > 2 * shortfall - 1e-9, `task of ${task.cost} stayed with ${shortfall} uncovered`);
  }));
});

test('takeFromTail: with equal costs the tasks moved are exactly a tail of the queue', () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 5 }), planArb, (n, cost, plan) => {
    const queue = Array.from({ length: n }, (_, id): Task => ({ id, cost }));
    const { keep } = takeFromTail(queue, (t) => t.cost, plan);
    assert.deepEqual(keep, queue.slice(0, keep.length));
  }));
});

test('takeFromTail: scripted cases', () => {
  // Skips a task too big for the amount and keeps scanning: [10, 1, 1, 8], 3 for rank 1:
  //   8 > 2 * 3 stays; 1 (remaining 3 -> 2), 1 (2 -> 1) move; the head never moves.
  let out = takeFromTail([10, 1, 1, 8], (c) => c, [{ rank: 1, amount: 3 }]);
  assert.deepEqual(out.keep, [10, 8]);
  assert.deepEqual([...out.moves], [[1, [1, 1]]]);
  // Shortfalls carry over: four amounts of 0.8 against tasks of 2 (head 9).
  //   rank 1: remaining 0.8, 2 > 1.6, nothing;  rank 2: remaining 1.6, 2 <= 3.2, takes one (-> -0.4)
  //   rank 3: remaining 0.4, nothing;           rank 4: remaining 1.2, 2 <= 2.4, takes one (-> -0.8)
  //   4 moved for 3.2 planned: within half a task. Rounded one by one, nothing would move.
  out = takeFromTail([9, 2, 2, 2, 2], (c) => c, [1, 2, 3, 4].map((rank) => ({ rank, amount: 0.8 })));
  assert.deepEqual(out.keep, [9, 2, 2]);
  assert.deepEqual([...out.moves], [[2, [2]], [4, [2]]]);
  // A rank planned twice gets both shares in one list, in queue order; the plan's order of ranks.
  out = takeFromTail([5, 1, 1, 1, 1, 1], (c) => c, [{ rank: 7, amount: 2 }, { rank: 3, amount: 1 }, { rank: 7, amount: 1 }]);
  assert.deepEqual([...out.moves], [[7, [1, 1, 1]], [3, [1]]]);
  // Never empties the queue: the head stays whatever the plan asks.
  assert.deepEqual(takeFromTail([5], (c) => c, [{ rank: 1, amount: 100 }]), { keep: [5], moves: new Map() });
  assert.deepEqual(takeFromTail([], (c: number) => c, [{ rank: 1, amount: 100 }]), { keep: [], moves: new Map() });
  assert.throws(() => takeFromTail([1, -1], (c) => c, []), /task cost must be a finite number >= 0, got -1 \(queue index 1\)/);
  assert.throws(() => takeFromTail([1, 1], (c) => c, [{ rank: 0, amount: Number.NaN }]), /plan\[0\]\.amount/);
});

// ---------------------------------------------------------------- migrationRow

const receiversArb = fc.uniqueArray(fc.record({ rank: fc.integer({ min: 0, max: 99 }), deficit: fc.double({ min: -5, max: 50, noNaN: true }) }), { selector: (r) => r.rank, maxLength: 12 });

test('migrationRow: amounts add up to min(excess, deficits), none over its deficit, all > 0', () => {
  fc.assert(fc.property(fc.double({ min: 0, max: 500, noNaN: true }), receiversArb, (excess, receivers) => {
    const row = migrationRow(excess, receivers);
    const asked = sum(receivers.filter((r) => r.deficit > 0).map((r) => r.deficit));
    close(sum(row.map((e) => e.amount)), Math.min(excess, asked));
    for (const { rank, amount } of row) {
      assert.ok(amount > 0, `amount ${amount} for ${rank}`);
      assert.ok(amount <= receivers.find((r) => r.rank === rank)!.deficit * (1 + 1e-12), `${amount} over the deficit of ${rank}`);
    }
  }));
});

test('migrationRow: with full knowledge and total excess = total deficit, every receiver gets exactly its deficit', () => {
  fc.assert(fc.property(
    fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 1, maxLength: 10 }),
    fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 1, maxLength: 10 }),
    (excessShape, deficits) => {
      const receivers = deficits.map((deficit, rank) => ({ rank, deficit }));
      const scale = sum(deficits) / sum(excessShape);
      const inflow = new Array<number>(deficits.length).fill(0);
      for (const excess of excessShape.map((e) => e * scale)) {
        for (const { rank, amount } of migrationRow(excess, receivers)) inflow[rank]! += amount;
      }
      deficits.forEach((deficit, rank) => close(inflow[rank]!, deficit));
    },
  ));
});

test('migrationRow: scripted', () => {
  const receivers = [{ rank: 1, deficit: 4 }, { rank: 2, deficit: 8 }, { rank: 3, deficit: 0 }];
  // 6 of the 12 asked: half of each deficit, in the receivers' order; rank 3 asks nothing.
  assert.deepEqual(migrationRow(6, receivers), [{ rank: 1, amount: 2 }, { rank: 2, amount: 4 }]);
  // More than asked: every deficit in full, the rest stays.
  assert.deepEqual(migrationRow(20, receivers), [{ rank: 1, amount: 4 }, { rank: 2, amount: 8 }]);
  assert.deepEqual(migrationRow(0, receivers), []);
  assert.deepEqual(migrationRow(5, []), []);
});

// ---------------------------------------------------------------- gossip

test('gossip: defaults for P ranks', () => {
  assert.deepEqual([1, 2, 3, 1024, 4096].map(defaultGossipRounds), [2, 3, 4, 12, 14]);
  assert.deepEqual([1, 2, 3, 1024, 4096].map(defaultMessageCap), [0, 2, 4, 20, 24]);
});

test('GossipKnowledge: learn is idempotent, nextRound sends once per novelty to distinct peers other than itself', () => {
  const recordsArb = (size: number): fc.Arbitrary<GossipRecord[]> => fc.array(fc.record({ rank: fc.integer({ min: 0, max: size - 1 }), deficit: fc.double({ min: 0, max: 10, noNaN: true }) }), { maxLength: 20 });
  const caseArb = fc.integer({ min: 1, max: 40 }).chain((size) => fc.tuple(fc.constant(size), fc.integer({ min: 0, max: size - 1 }), recordsArb(size), fc.integer({ min: 1, max: 6 }), fc.integer()));
  fc.assert(fc.property(caseArb, ([size, self, records, fanout, seed]) => {
    const k = new GossipKnowledge(self, size, { messageCap: 1000 });
    const rng = new Rng(seed);
    assert.deepEqual(k.nextRound(fanout, rng), { targets: [], records: [] }, 'nothing learned, nothing sent');
    const fresh = k.learn(records);
    assert.equal(fresh, records.length > 0);
    const before = new Map(k.known);
    assert.equal(k.learn(records), false);
    assert.deepEqual(new Map(k.known), before);
    assert.equal(k.known.size, new Set(records.map((r) => r.rank)).size);
    const { targets, records: sent } = k.nextRound(fanout, rng);
    if (fresh) {
      assert.equal(targets.length, Math.min(fanout, size - 1));
      assert.equal(new Set(targets).size, targets.length, 'distinct');
      for (const t of targets) assert.ok(t !== self && t >= 0 && t < size, `target ${t} of ${self} in ${size}`);
      if (targets.length > 0) assert.deepEqual(new Set(sent), new Set(k.known.values()));
    }
    assert.deepEqual(k.nextRound(fanout, rng), { targets: [], records: [] }, 'nothing new since the last call');
  }));
});

test('GossipKnowledge: the message cap bounds the sends of one gossip; bad records are refused', () => {
  const k = new GossipKnowledge(0, 16, { messageCap: 3 });
  const rng = new Rng(1);
  const sends: number[] = [];
  for (let r = 1; r <= 4; r++) {
    k.learn([{ rank: r, deficit: 1 }]);
    sends.push(k.nextRound(2, rng).targets.length);
  }
  assert.deepEqual(sends, [2, 1, 0, 0]);
  assert.equal(k.messagesSent, 3);
  assert.equal(new GossipKnowledge(3, 16).messageCap, 8);
  assert.throws(() => k.learn([{ rank: 16, deficit: 1 }]), /rank must be in \[0, 16\), got 16/);
  assert.throws(() => k.learn([{ rank: 5, deficit: Number.NaN }]), /deficit must be finite/);
  assert.throws(() => new GossipKnowledge(4, 4), /self must be a rank in \[0, 4\)/);
});

test('simulateGossip: is the public nextRound/learn protocol, round by round', () => {
  // The same gossip driven by hand through the public API, as a runtime driver would.
  const size = 37;
  const sources = underloaded(size, 9, 5);
  const seed = 11;
  const ranks = Array.from({ length: size }, (_, r) => new GossipKnowledge(r, size));
  const rngs = ranks.map((_, r) => gossipRng(seed, r));
  for (const s of sources) ranks[s.rank]!.learn([s]);
  const coverage: number[] = [];
  for (let round = 1; round <= 8; round++) {
    const sends = ranks.map((k, r) => k.nextRound(2, rngs[r]!));
    if (sends.every((s) => s.targets.length === 0)) break;
    sends.forEach(({ targets, records }) => targets.forEach((t) => ranks[t]!.learn(records)));
    coverage.push(sum(ranks.map((k) => k.known.size)) / (size * sources.length));
    if (coverage.at(-1) === 1) break;
  }
  const run = simulateGossip(size, sources, { fanout: 2, maxRounds: 8, seed });
  assert.deepEqual(run.coverage, coverage);
  assert.equal(run.messagesPerRank.max, Math.max(...ranks.map((k) => k.messagesSent)));
});

test('simulateGossip: coverage never falls, the cap holds, the same seed gives the same run', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 200 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 4 }), fc.integer(), (size, fraction, fanout, seed) => {
    const sources = underloaded(size, Math.round(fraction * size), seed);
    const options = { fanout, maxRounds: defaultGossipRounds(size) + 4, seed };
    const run = simulateGossip(size, sources, options);
    const shown = `coverage ${run.coverage.join(', ')}, roundsTo99 ${run.roundsTo99}, messages ${JSON.stringify(run.messagesPerRank)}`;
    run.coverage.forEach((c, i) => assert.ok(i === 0 || c >= run.coverage[i - 1]!, shown));
    assert.ok(run.coverage.every((c) => c > 0 && c <= 1), shown);
    assert.ok(run.messagesPerRank.max <= defaultMessageCap(size), shown);
    assert.ok(run.messagesPerRank.mean <= run.messagesPerRank.max, shown);
    if (run.roundsTo99 > 0) assert.ok(run.coverage[run.roundsTo99 - 1]! >= 0.99 && (run.roundsTo99 === 1 || run.coverage[run.roundsTo99 - 2]! < 0.99), shown);
    assert.deepEqual(simulateGossip(size, sources, options), run);
  }), { numRuns: 60 });
});

test('simulateGossip: P = 1024, fanout 2, 25% underloaded: 99% within ceil(log2 P) + 2 rounds, at most 2 log2 P messages a rank', () => {
  const size = 1024;
  const bound = defaultGossipRounds(size); // 12
  for (const seed of [1, 2, 3, 4]) {
    const run = simulateGossip(size, underloaded(size, 256, seed), { fanout: 2, maxRounds: bound, seed });
    assert.ok(run.roundsTo99 > 0 && run.roundsTo99 <= bound, `seed ${seed}: ${run.roundsTo99} rounds`);
    assert.ok(run.messagesPerRank.max <= 20, `seed ${seed}: ${run.messagesPerRank.max} messages`);
  }
  // Deterministic: seed 1 reaches 97.58% after round 9 and 99.08% after round 10.
  const run = simulateGossip(size, underloaded(size, 256, 1), { fanout: 2, maxRounds: bound, seed: 1 });
  assert.equal(run.roundsTo99, 10);
  assert.deepEqual(run.coverage.slice(8, 10).map((c) => c.toFixed(4)), ['0.9758', '0.9908']);
  assert.equal(run.messagesPerRank.max, 20);
});

test('simulateGossip: edge cases', () => {
  assert.deepEqual(simulateGossip(8, [], { fanout: 2, maxRounds: 5, seed: 1 }), { coverage: [], roundsTo99: 0, messagesPerRank: { max: 0, mean: 0 } });
  assert.deepEqual(simulateGossip(1, [{ rank: 0, deficit: 3 }], { fanout: 2, maxRounds: 5, seed: 1 }), { coverage: [], roundsTo99: 0, messagesPerRank: { max: 0, mean: 0 } });
  // Two ranks, rank 1 underloaded: round 1 it tells rank 0, and every pair is known.
  assert.deepEqual(simulateGossip(2, [{ rank: 1, deficit: 3 }], { fanout: 2, maxRounds: 5, seed: 1 }), { coverage: [1], roundsTo99: 1, messagesPerRank: { max: 1, mean: 0.5 } });
  assert.equal(simulateGossip(64, underloaded(64, 16, 1), { fanout: 2, maxRounds: 1, seed: 1 }).roundsTo99, -1);
});

test('simulateGossip: a lone record stalls near 80% as written; quietRounds 2 takes it past 99% within the cap', () => {
  // Each informed rank forwards once to 2 peers: the fraction c reached solves 1 - c = exp(-2c), c = 0.797.
  const size = 1024;
  const lone = [{ rank: 17, deficit: 5 }];
  const asWritten = simulateGossip(size, lone, { fanout: 2, maxRounds: 40, seed: 1 });
  assert.equal(asWritten.roundsTo99, -1);
  close(asWritten.coverage.at(-1)!, 0.797, 0.03);
  for (const seed of [1, 2, 3]) {
    const run = simulateGossip(size, lone, { fanout: 2, maxRounds: defaultGossipRounds(size), seed, quietRounds: 2 });
    assert.ok(run.roundsTo99 > 0 && run.roundsTo99 <= 12, `seed ${seed}: ${run.roundsTo99} rounds`);
    assert.ok(run.messagesPerRank.max <= 6, `seed ${seed}: ${run.messagesPerRank.max} messages (3 sends of 2)`);
  }
  // ...and with many records it keeps to the cap: 2 * log2(1024) = 20.
  const many = simulateGossip(size, underloaded(size, 256, 1), { fanout: 2, maxRounds: 12, seed: 1, quietRounds: 2 });
  assert.ok(many.roundsTo99 > 0 && many.roundsTo99 <= 12 && many.messagesPerRank.max <= 20, JSON.stringify(many));
});

// ---------------------------------------------------------------- speed models

/** Feeds `speeds` one by one and returns the prediction made before each from the second on. */
function predictions(model: SpeedModel, speeds: readonly number[]): number[] {
  const out: number[] = [];
  speeds.forEach((speed, i) => {
    if (i > 0) out.push(model.predict()!);
    model.observe(speed);
  });
  return out;
}

/** Mean absolute error of the one-step predictions over intervals [from, end). */
function predictionError(model: SpeedModel, speeds: readonly number[], from = 10): number {
  const p = predictions(model, speeds);
  let error = 0;
  for (let i = from; i < speeds.length; i++) error += Math.abs(p[i - 1]! - speeds[i]!);
  return error / (speeds.length - from);
}

test('speed models: scripted predictions worked by hand', () => {
  const last = new LastIntervalModel();
  assert.equal(last.predict(), undefined);
  assert.deepEqual(predictions(last, [3, 5, 2]), [3, 5]);
  last.observe(0);
  last.observe(Number.NaN);
  assert.equal(last.predict(), 2, 'no measurement, no change');

  // TransitionModel, 5 states of the fastest speed (1): 1 -> state 4, 1/3 -> floor(5/3) = state 1; prior 0.5.
  const learned = new TransitionModel();
  assert.equal(learned.predict(), undefined);
  learned.observe(1);
  assert.equal(learned.predict(), 1, 'state 4, no transition out of it yet: the last speed');
  learned.observe(1 / 3);
  assert.equal(learned.predict(), 1 / 3, 'state 1, no transition out of it yet: the last speed');
  learned.observe(1);
  // In state 4; seen 4 -> 1 once; visited states {1, 4}: denominator 1 + 0.5 * 2 = 2,
  // P(1) = (1 + 0.5) / 2 = 0.75, P(4) = 0.5 / 2 = 0.25: 0.75 * 1/3 + 0.25 * 1 = 0.5.
  close(learned.predict()!, 0.5);
  learned.observe(1 / 3);
  learned.observe(1);
  // 4 -> 1 twice: denominator 2 + 1 = 3, P(1) = 2.5 / 3, P(4) = 0.5 / 3: 2.5/9 + 0.5/3 = 4/9.
  close(learned.predict()!, 4 / 9);
  // Without smoothing the estimate is the bare maximum likelihood: after a 1 always came 1/3.
  const ml = new TransitionModel({ prior: 0 });
  [1, 1 / 3, 1, 1 / 3, 1].forEach((s) => ml.observe(s));
  close(ml.predict()!, 1 / 3);
});

test('speed models: the learned model beats the last interval on periodic drift', () => {
  const alternating = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 1 : 1 / 3));
  const cycle3 = Array.from({ length: 60 }, (_, i) => [1, 0.5, 0.25][i % 3]!);
  for (const speeds of [alternating, cycle3]) {
    const baseline = predictionError(new LastIntervalModel(), speeds);
    const learnedError = predictionError(new TransitionModel(), speeds);
    assert.ok(baseline > 0.4, `baseline error ${baseline}`);
    assert.ok(learnedError < 0.1 * baseline, `learned ${learnedError} against last ${baseline}`);
  }
});

test('speed models: equal on a constant speed', () => {
  for (const speed of [2.5, 0.1, 7e6]) {
    const speeds = new Array<number>(40).fill(speed);
    const last = predictions(new LastIntervalModel(), speeds);
    const learned = predictions(new TransitionModel(), speeds);
    learned.forEach((p, i) => close(p, last[i]!, 1e-12));
    close(predictionError(new TransitionModel(), speeds), 0);
  }
});

test('speed models: by name', () => {
  assert.equal(createSpeedModel('last').name, 'last');
  assert.equal(createSpeedModel('learned').constructor, TransitionModel);
  assert.throws(() => new TransitionModel({ states: 0 }), /states must be an integer >= 1, got 0/);
});

// ---------------------------------------------------------------- targets and the whole step

test('targetLoads and imbalance: scripted', () => {
  // 40 units over speeds 2:1:1 -> 20, 10, 10. Before: times 0, 20, 20 against 40 / 4 = 10: 2.
  assert.deepEqual(targetLoads([0, 20, 20], [2, 1, 1]), [20, 10, 10]);
  assert.equal(imbalance([0, 20, 20], [2, 1, 1]), 2);
  assert.equal(imbalance([20, 10, 10], [2, 1, 1]), 1);
  assert.equal(imbalance([0, 0], [1, 1]), 1);
  assert.throws(() => targetLoads([1, 2], [1, 0]), /speeds\[1\] must be a finite number > 0, got 0/);
  assert.throws(() => targetLoads([1], [1, 1]), /one entry per rank/);
  assert.deepEqual(tasksOf(7, 3), [1, 3, 3]);
});

test('simulateBalanceStep: scripted, one sender and three receivers', () => {
  // Loads 30, 10, 10, 10 on equal speeds: target 15 each; rank 0 sheds 15, 5 to each receiver.
  // P = 4, fanout 3: in round 1 each receiver tells the three others; every pair is known after it.
  const r = simulateBalanceStep({ loads: [30, 10, 10, 10], speeds: [1, 1, 1, 1], taskCost: 1, fanout: 3, rounds: 4, seed: 1 });
  assert.deepEqual(r.loadsAfter, [15, 15, 15, 15]);
  assert.equal(r.migrated, 15);
  assert.equal(r.minimumMigration, 15);
  assert.equal(r.imbalanceBefore, 2);
  assert.equal(r.imbalanceAfter, 1);
  assert.deepEqual(r.gossip, { coverage: [1], roundsTo99: 1, messagesPerRank: { max: 3, mean: 2.25 } });
  assert.equal(r.overloaded, 1);
  assert.equal(r.underloaded, 3);
});

/** P ranks with integer loads, speeds, and a gossip where every rank reaches every other in round 1. */
const stepArb = fc.integer({ min: 2, max: 40 }).chain((size) => fc.record({
  loads: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: size, maxLength: size }),
  speeds: fc.array(fc.double({ min: 0.2, max: 5, noNaN: true }), { minLength: size, maxLength: size }),
  taskCost: fc.integer({ min: 1, max: 12 }),
  seed: fc.integer(),
})).filter((c) => sum(c.loads) > 0);

test('simulateBalanceStep: total load conserved exactly; moves within a task per sender of the minimum', () => {
  fc.assert(fc.property(stepArb, ({ loads, speeds, taskCost, seed }) => {
    const size = loads.length;
    const full = { fanout: size - 1, rounds: 4, seed, messageCap: size };
    const r = simulateBalanceStep({ loads, speeds, taskCost, ...full });
    assert.equal(sum(r.loadsAfter), sum(loads));
    assert.ok(r.loadsAfter.every((l) => l >= 0), `loads after ${r.loadsAfter.join(', ')}`);
    const exact = simulateBalanceStep({ loads, speeds, taskCost, threshold: 0, ...full });
    assert.equal(sum(exact.loadsAfter), sum(loads));
    assert.ok(exact.migrated >= exact.minimumMigration - exact.overloaded * taskCost - 1e-9, `${exact.migrated} moved, ${exact.minimumMigration} needed`);
    assert.ok(exact.migrated <= exact.minimumMigration + (exact.overloaded * taskCost) / 2 + 1e-9, `${exact.migrated} moved, ${exact.minimumMigration} needed`);
  }));
});

test('simulateBalanceStep: with full gossip and every deficit advertised, the fluid step reaches the targets', () => {
  fc.assert(fc.property(stepArb, ({ loads, speeds, seed }) => {
    const size = loads.length;
    const r = simulateBalanceStep({ loads, speeds, fanout: size - 1, rounds: 4, seed, messageCap: size, threshold: 0 });
    assert.ok(r.gossip.coverage.length === 0 || r.gossip.coverage.at(-1) === 1, `coverage ${r.gossip.coverage.join(', ')}`);
    assert.ok(r.imbalanceAfter <= r.imbalanceBefore * (1 + 1e-9), `${r.imbalanceAfter} after ${r.imbalanceBefore}`);
    close(r.imbalanceAfter, 1, 1e-6);
    close(r.migrated, r.minimumMigration, 1e-6);
    r.loadsAfter.forEach((l, i) => close(l, r.targets[i]!, 1e-6));
  }));
});

test('simulateBalanceStep: staggered rows, a sender\'s walk starts at its place among the ranks', () => {
  const receivers = [5, 1, 9, 7].map((rank) => ({ rank, deficit: 1 }));
  // By rank 1, 5, 7, 9; sender 6 of 8 starts at floor(6 / 8 * 4) = 3, sender 0 at the first.
  assert.deepEqual(staggered(receivers, 6, 8).map((r) => r.rank), [9, 1, 5, 7]);
  assert.deepEqual(staggered(receivers, 0, 8).map((r) => r.rank), [1, 5, 7, 9]);
  assert.deepEqual(staggered([], 3, 8), []);
});

test('simulateBalanceStep: P = 1024, static imbalance max/avg = 2 (even ranks 200 tasks, odd none)', () => {
  const size = 1024;
  const start: number[] = Array.from({ length: size }, (_, i) => (i % 2 === 0 ? 200 : 0));
  const speeds = new Array<number>(size).fill(1);
  // Full knowledge: each of the 512 senders splits 100 tasks over the 512 receivers (0.195 each, a
  // task every 5.12 receivers); the staggered starts make every receiver get exactly 100.
  const full = simulateBalanceStep({ loads: start, speeds, taskCost: 1, fanout: 64, rounds: 12, seed: 1, messageCap: 1 << 20 });
  assert.equal(full.gossip.coverage.at(-1), 1);
  assert.equal(full.imbalanceAfter, 1);
  assert.equal(full.migrated, full.minimumMigration);
  // The seed's gossip (fanout 2, default rounds and cap): three phases.
  let loads = start;
  let migrated = 0;
  const after: number[] = [];
  for (let phase = 1; phase <= 3; phase++) {
    const r = simulateBalanceStep({ loads, speeds, taskCost: 1, fanout: 2, rounds: defaultGossipRounds(size), seed: phase });
    assert.equal(sum(r.loadsAfter), sum(start));
    // Phase 1 gossips 512 records, which reach 99% in time; later phases have only a few
    // underloaded ranks left, whose records the seed's gossip takes to ~80-98% (see quietRounds).
    if (phase === 1) assert.ok(r.gossip.roundsTo99 > 0 && r.gossip.roundsTo99 <= 12, `phase 1: ${r.gossip.roundsTo99} rounds`);
    migrated += r.migrated;
    after.push(r.imbalanceAfter);
    loads = r.loadsAfter;
  }
  assert.ok(after[0]! <= 1.1 && after[2]! <= 1.1, `max/avg after each phase ${after.join(', ')}`);
  assert.ok(migrated <= 1.2 * (sum(start) / 2), `${migrated} moved for ${sum(start) / 2}`);
});
