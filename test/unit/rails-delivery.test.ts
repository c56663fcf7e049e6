// Multi-rail delivery, end to end without sockets: messages cut by each policy into segments,
// queued per rail, delivered in random pieces with the rails interleaved at random, rails failing
// at random points (a random part of what was on the wire arrives, the rest is lost) and coming
// back. Every message must arrive byte for byte, every byte be handed up exactly once, and every
// send complete exactly once, after its last byte arrived.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Clock, TimerHandle } from '../../src/clock.ts';
import { createRailPolicy, RAIL_POLICY_NAMES, type RailPolicyName } from '../../src/policy/rail/index.ts';
import { RailScheduler, type RailMessage, type RailSegment } from '../../src/rails/rail-scheduler.ts';
import { RangeSet, SegmentTracker } from '../../src/rails/segment-tracker.ts';

class ManualClock implements Clock {
  time = 0;
  now(): number {
    return this.time;
  }
  schedule(): TimerHandle {
    return { id: 0 };
  }
  cancel(): void {}
}

interface Payload {
  index: number;
  bytes: Uint8Array;
}

/** A segment on the wire, partly delivered. */
interface OnWire {
  segment: RailSegment<Payload>;
  delivered: number;
}

interface Scenario {
  policy: RailPolicyName;
  rails: number;
  segMax: number;
  sizes: number[];
  /** Per step: which rail to deliver from, how many bytes, and whether a rail fails or recovers. */
  steps: { rail: number; bytes: number; event: 'none' | 'fail' | 'recover'; target: number; keep: number; dt: number }[];
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  policy: fc.constantFrom(...RAIL_POLICY_NAMES),
  rails: fc.integer({ min: 2, max: 4 }),
  segMax: fc.integer({ min: 4096, max: 65536 }),
  sizes: fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 6 }),
  steps: fc.array(
    fc.record({
      rail: fc.nat(3),
      bytes: fc.integer({ min: 1, max: 50_000 }),
      event: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'none', 'none', 'fail', 'recover'),
      target: fc.nat(3),
      keep: fc.nat(100),
      dt: fc.integer({ min: 0, max: 2000 }),
    }),
    { minLength: 50, maxLength: 400 },
  ),
});

function run(s: Scenario): void {
  const clock = new ManualClock();
  const wires: OnWire[][] = Array.from({ length: s.rails }, () => []);
  const up = Array.from({ length: s.rails }, () => true);
  const sources = s.sizes.map((n, index) => ({ index, bytes: Uint8Array.from({ length: n }, (_, i) => (i * 31 + index * 7 + 1) & 0xff) }));
  const received = sources.map((p) => new Uint8Array(p.bytes.length));
  const handedUp = sources.map(() => 0);
  const done = sources.map(() => 0);
  const tracker = new SegmentTracker<number>();
  const policy = createRailPolicy(s.policy, { segMax: s.segMax, seed: 7 });
  const scheduler: RailScheduler<Payload> = new RailScheduler<Payload>({
    rails: Array.from({ length: s.rails }, (_, i) => ({ latency: 1e-5 * (i + 1), nominalRate: 1e8 / (i + 1) })),
    policy,
    clock,
    window: 3 * s.segMax,
    ackTimeout: 1e9,
    transmit: (rail, segment) => {
      if (!up[rail]) return false;
      wires[rail]!.push({ segment, delivered: 0 });
      return true;
    },
    messageDone: (message: RailMessage<Payload>) => {
      const i = message.data.index;
      done[i]!++;
      assert.equal(handedUp[i], sources[i]!.bytes.length, `message ${i} completed before all its bytes arrived`);
    },
  });
  for (const p of sources) {
    tracker.open(`0:${p.index}`, p.bytes.length, p.index);
    scheduler.submit({ length: p.bytes.length, data: p });
  }

  const deliver = (rail: number, budget: number): void => {
    const wire = wires[rail]!;
    while (budget > 0 && wire.length > 0) {
      const head = wire[0]!;
      const { segment } = head;
      const n = Math.min(budget, segment.length - head.delivered);
      const start = segment.offset + head.delivered;
      const key = `0:${segment.message.data.index}`;
      for (const r of tracker.accept(key, start, start + n)?.fresh ?? []) {
        received[segment.message.data.index]!.set(segment.message.data.bytes.subarray(r.start, r.end), r.start);
        handedUp[segment.message.data.index]! += r.end - r.start;
      }
      head.delivered += n;
      budget -= n;
      if (head.delivered === segment.length) {
        wire.shift();
        scheduler.acked(segment.id);
      }
    }
  };

  const steps = [...s.steps];
  for (let guard = 0; guard < 20_000 && done.some((d) => d === 0); guard++) {
    const step = steps.shift() ?? { rail: guard, bytes: 65536, event: 'recover' as const, target: guard, keep: 100, dt: 100 };
    clock.time += step.dt * 1e-6;
    if (step.event === 'fail') {
      const target = step.target % s.rails;
      if (up[target] && up.filter(Boolean).length > 1) {
        // Part of what was on the wire still arrives; the rest is lost with the connection.
        const wire = wires[target]!;
        const onWire = wire.reduce((n, w) => n + w.segment.length - w.delivered, 0);
        deliver(target, Math.floor((onWire * step.keep) / 100));
        wires[target] = [];
        up[target] = false;
        scheduler.railFailed(target);
      }
    } else if (step.event === 'recover') {
      const target = step.target % s.rails;
      if (!up[target]) {
        up[target] = true;
        scheduler.railRecovered(target);
      }
    }
    deliver(step.rail % s.rails, step.bytes);
    scheduler.pump();
  }
  for (let i = 0; i < sources.length; i++) {
    assert.equal(done[i], 1, `message ${i} of ${sources[i]!.bytes.length} bytes completed ${done[i]} times`);
    assert.equal(handedUp[i], sources[i]!.bytes.length, `message ${i}: bytes handed up`);
    assert.deepEqual(received[i], sources[i]!.bytes, `message ${i} content`);
  }
  assert.equal(scheduler.busy, false);
}

test('multi-rail: every policy delivers every byte exactly once through random interleavings and rail failures', () => {
  fc.assert(fc.property(scenario, run), { numRuns: 300 });
});

test('range set: the fresh parts of any sequence of ranges add up to the union, never overlap', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(200), fc.nat(60)), { maxLength: 60 }), (ranges) => {
      const set = new RangeSet();
      const covered = new Uint8Array(300);
      for (const [start, length] of ranges) {
        for (const f of set.add(start, start + length)) {
          for (let i = f.start; i < f.end; i++) {
            assert.equal(covered[i], 0, `byte ${i} handed out twice`);
            covered[i] = 1;
          }
        }
      }
      const union = new Uint8Array(300);
      for (const [start, length] of ranges) union.fill(1, start, start + length);
      assert.deepEqual(covered, union);
      assert.equal(set.bytes, union.reduce((a, b) => a + b, 0));
      const list = set.toArray();
      for (let i = 1; i < list.length; i++) assert.ok(list[i - 1]!.end < list[i]!.start, 'ranges stay disjoint and separated');
    }),
  );
});

test('segment tracker: a frame is forgotten when complete, and late duplicates and announces are dropped', () => {
  const tracker = new SegmentTracker<string>();
  assert.equal(tracker.accept('a', 0, 4), undefined, 'not announced');
  tracker.open('a', 10, 'header of a');
  tracker.open('a', 10, 'announced again on another rail');
  assert.deepEqual(tracker.accept('a', 0, 6), { fresh: [{ start: 0, end: 6 }], data: 'header of a' });
  assert.deepEqual(tracker.accept('a', 4, 10), { fresh: [{ start: 6, end: 10 }], data: 'header of a' });
  assert.equal(tracker.openFrames, 0);
  assert.equal(tracker.accept('a', 0, 10), undefined, 'a late duplicate of a complete frame');
  tracker.open('a', 10, 'a late announce');
  assert.equal(tracker.openFrames, 0, 'a complete frame is not opened again');
});
