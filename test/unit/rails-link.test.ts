// The multi-rail link over fake links (any Link will do: it reads only the link flags of word 0).
// Two ranks, 2-4 rails of FIFO wires; the upper layer sends ordered frames and bulk frames
// (UNORDERED | SPLITTABLE) mixed; wires deliver in random pieces with the rails interleaved at
// random, data rails fail (part of what was on the wire arrives, the rest is lost) and come back.
// The receiver's upper layer must get every ordered frame once and in order, every bulk byte
// exactly once with its frame's own header, nothing of the link layer's frames, and the sender's
// memory must be released only after every segment was acknowledged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Clock, TimerHandle } from '../../src/clock.ts';
import { createRailPolicy, RAIL_POLICY_NAMES, type RailPolicyName } from '../../src/policy/rail/index.ts';
import { MultiRailTransport } from '../../src/rails/multi-rail-transport.ts';
import { FRAME_HEADER_WORDS, FRAME_LINK, FRAME_SPLITTABLE, FRAME_UNORDERED, type InboundFrame, type Link, type LinkEvents, type LinkLimits } from '../../src/transport/link.ts';
import type { LinkSource } from '../../src/transport/transport.ts';

class ManualClock implements Clock {
  time = 0;
  private next = 1;
  readonly timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.time;
  }
  schedule(seconds: number, fn: () => void): TimerHandle {
    const id = this.next++;
    this.timers.set(id, { at: this.time + seconds, fn });
    return { id };
  }
  cancel(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }
  /** Moves time on and runs the timers due. */
  advance(seconds: number): void {
    this.time += seconds;
    for (const [id, t] of [...this.timers]) {
      if (t.at > this.time) continue;
      this.timers.delete(id);
      t.fn();
    }
  }
}

interface Sent {
  header: Int32Array;
  bytes: Uint8Array;
  delivered: number;
}

const LIMITS: LinkLimits = { maxFramePayload: 1 << 30, latency: 1e-5, bandwidth: 1e8, polled: false };

/** One direction of one rail: a FIFO wire. */
class FakeLink implements Link {
  readonly limits = LIMITS;
  open = true;
  /** Whether it told its owner it is ready (a reopened rail rejoins on that). */
  signalled = false;
  constructor(
    readonly peer: number,
    readonly wire: Sent[],
    readonly events: LinkEvents,
  ) {}
  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number): boolean {
    if (!this.open) return false;
    this.wire.push({ header: header.slice(0, FRAME_HEADER_WORDS), bytes: payload === null ? new Uint8Array(0) : payload.slice(offset, offset + length), delivered: 0 });
    return true;
  }
  poll(): number {
    return 0;
  }
  bytesInFlight(): number {
    return 0;
  }
  close(): void {
    this.open = false;
  }
}

class FakeNetwork {
  /** wires[from][rail] (two ranks: a rank's wire goes to the other). */
  readonly wires: Sent[][][];
  readonly links: (FakeLink | undefined)[][];
  readonly receivers: (LinkEvents | undefined)[][];
  constructor(rails: number) {
    this.wires = [0, 1].map(() => Array.from({ length: rails }, () => []));
    this.links = [0, 1].map(() => new Array(rails).fill(undefined));
    this.receivers = [0, 1].map(() => new Array(rails).fill(undefined));
  }
  source(rank: number, rail: number): LinkSource {
    return {
      createLink: (peer, events) => {
        this.wires[rank]![rail] = []; // a new connection starts empty
        const link = new FakeLink(peer, this.wires[rank]![rail]!, events);
        this.links[rank]![rail] = link;
        return link;
      },
      attach: (events) => {
        this.receivers[rank]![rail] = events;
      },
      close: () => {},
    };
  }
  /** Hands up to `budget` bytes (at least one frame head) from rank `from`'s wire on `rail` to the other rank. */
  deliver(from: number, rail: number, budget: number): void {
    const wire = this.wires[from]![rail]!;
    const to = 1 - from;
    const events = this.receivers[to]![rail]!;
    const frame: InboundFrame = { words: new Int32Array(FRAME_HEADER_WORDS), headerIndex: 0, bytes: new Uint8Array(0), payloadOffset: 0, payloadLength: 0, pieceOffset: 0 };
    while (wire.length > 0) {
      const head = wire[0]!;
      const splittable = (head.header[0]! & FRAME_SPLITTABLE) !== 0;
      const n = splittable ? Math.max(Math.min(budget, head.bytes.length - head.delivered), head.bytes.length === 0 ? 0 : 1) : head.bytes.length;
      frame.words.set(head.header);
      frame.bytes = head.bytes;
      frame.payloadOffset = head.delivered;
      frame.payloadLength = n;
      frame.pieceOffset = head.delivered;
      events.frame({ peer: from } as Link, frame);
      head.delivered += n;
      budget -= n;
      if (head.delivered < head.bytes.length) return;
      wire.shift();
      if (budget <= 0) return;
    }
  }
}

interface Scenario {
  policy: RailPolicyName;
  rails: number;
  segMax: number;
  frames: { bulk: boolean; size: number }[];
  steps: { from: number; rail: number; bytes: number; fail: number; keep: number }[];
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  policy: fc.constantFrom(...RAIL_POLICY_NAMES),
  rails: fc.integer({ min: 2, max: 4 }),
  segMax: fc.integer({ min: 2048, max: 32768 }),
  frames: fc.array(fc.record({ bulk: fc.boolean(), size: fc.integer({ min: 0, max: 120_000 }) }), { minLength: 1, maxLength: 12 }),
  steps: fc.array(
    fc.record({ from: fc.nat(1), rail: fc.nat(3), bytes: fc.integer({ min: 1, max: 40_000 }), fail: fc.integer({ min: -12, max: 3 }), keep: fc.nat(100) }),
    { minLength: 20, maxLength: 300 },
  ),
});

function run(s: Scenario): void {
  const net = new FakeNetwork(s.rails);
  const clocks = [new ManualClock(), new ManualClock()];
  const logs: string[] = [];
  const transports = [0, 1].map(
    (rank) =>
      new MultiRailTransport({
        rank,
        rails: Array.from({ length: s.rails }, (_, rail) => net.source(rank, rail)),
        settings: Array.from({ length: s.rails }, (_, i) => ({ latency: 1e-5 * (i + 1), nominalRate: 1e8 / (i + 1) })),
        policy: (peer) => createRailPolicy(s.policy, { segMax: s.segMax, seed: 3 + rank * 7 + peer }),
        clock: clocks[rank]!,
        minSplit: 4096,
        ackTimeout: 1e9,
        retryInterval: 0.01,
        log: (line) => logs.push(line),
      }),
  );
  // The receiver's upper layer: ordered frames by arrival, bulk bytes by frame and offset.
  const ordered: number[] = [];
  const bulk = new Map<number, Uint8Array>();
  const bulkCount = new Map<number, number>();
  const upper = (rank: number): LinkEvents => ({
    frame: (_link, frame) => {
      const w = frame.words;
      const h = frame.headerIndex;
      assert.equal(rank, 1, 'only rank 1 receives upper-layer frames');
      assert.equal(w[h]! & FRAME_LINK, 0, 'a link-layer frame reached the upper layer');
      const id = w[h + 1]!;
      const sent = frames[id]!;
      assert.equal(w[h + 2]!, sent.bytes.length, `frame ${id}: its own header words arrive with it`);
      assert.equal(w[h + 3]!, 0x5eed + id);
      if (!sent.bulk) {
        assert.equal(frame.pieceOffset, 0);
        assert.deepEqual(frame.bytes.subarray(frame.payloadOffset, frame.payloadOffset + frame.payloadLength), sent.bytes.subarray(0, frame.payloadLength));
        ordered.push(id);
        return;
      }
      const dest = bulk.get(id) ?? new Uint8Array(sent.bytes.length);
      bulk.set(id, dest);
      for (let i = 0; i < frame.payloadLength; i++) {
        assert.equal(dest[frame.pieceOffset + i], 0, `frame ${id}: byte ${frame.pieceOffset + i} handed up twice`);
        dest[frame.pieceOffset + i] = frame.bytes[frame.payloadOffset + i]!;
      }
      bulkCount.set(id, (bulkCount.get(id) ?? 0) + frame.payloadLength);
    },
    arrived: () => {},
    drain: () => {},
    closed: () => assert.fail('the link closed'),
  });
  transports.forEach((t, rank) => t.attach(upper(rank)));
  const link = transports[0]!.createLink(1, upper(0));
  // Bytes 1..255 (never 0: the receiver's check for doubles reads 0 as "not yet").
  const frames = s.frames.map((f, id) => ({ ...f, bytes: Uint8Array.from({ length: f.size }, (_, i) => ((i * 131 + id * 17) % 255) + 1) }));
  let released = false;
  const header = new Int32Array(FRAME_HEADER_WORDS);
  frames.forEach((f, id) => {
    header.fill(0);
    header[0] = 7 | (f.bulk ? FRAME_SPLITTABLE | FRAME_UNORDERED : 0);
    header[1] = id;
    header[2] = f.bytes.length;
    header[3] = 0x5eed + id;
    assert.ok(link.trySend(header, f.bytes, 0, f.bytes.length, f.bulk), `frame ${id} refused`);
  });
  link.whenReleased!(() => {
    released = true;
    for (const [id, f] of frames.entries()) if (f.bulk && f.size >= 4096) assert.equal(bulkCount.get(id), f.size, `frame ${id} released before all its bytes arrived`);
  });

  const steps = [...s.steps];
  const pending = (): boolean => net.wires.some((byRail) => byRail.some((w) => w.length > 0));
  for (let guard = 0; guard < 50_000; guard++) {
    const step = steps.shift() ?? { from: guard % 2, rail: guard >> 1, bytes: 65536, fail: -1, keep: 100 };
    if (steps.length === 0 && !pending() && released) break;
    clocks.forEach((c) => c.advance(0.004));
    for (const byRail of net.links) {
      for (const l of byRail) {
        if (l === undefined || l.signalled || !l.open) continue;
        l.signalled = true;
        l.events.drain(l);
      }
    }
    const rail = step.rail % s.rails;
    // A data rail of rank 0's link fails: part of its wire arrives, the rest is lost.
    if (step.fail > 0 && step.fail < s.rails) {
      const failing = net.links[0]![step.fail];
      if (failing?.open) {
        const wire = net.wires[0]![step.fail]!;
        const onWire = wire.reduce((n, f) => n + f.bytes.length - f.delivered, 0);
        net.deliver(0, step.fail, Math.floor((onWire * step.keep) / 100));
        wire.length = 0;
        failing.open = false;
        failing.events.closed(failing, new Error('test: rail down'));
      }
    }
    net.deliver(step.from, rail, step.bytes);
  }
  assert.ok(released, `the sender's memory was never released\n${logs.join('\n')}`);
  assert.deepEqual(ordered, frames.flatMap((f, id) => (f.bulk ? [] : [id])), 'ordered frames: each once, in order');
  for (const [id, f] of frames.entries()) {
    if (!f.bulk) continue;
    assert.equal(bulkCount.get(id) ?? 0, f.size, `bulk frame ${id}: bytes handed up`);
    if (f.size > 0) assert.deepEqual(bulk.get(id), f.bytes, `bulk frame ${id}: content`);
  }
}

test('multi-rail link over fake links: every frame arrives once (ordered ones in order), through random pieces, interleavings and rail failures', () => {
  fc.assert(fc.property(scenario, run), { numRuns: 200 });
});

test('multi-rail link: segments a failed rail gave back go out again under a policy that plans on a timer', () => {
  // Found by the property above: q-learning plans on its drain timer, which had stopped when the
  // rail failed, so the requeued segment waited for ever.
  const idle = { from: 0, rail: 0, bytes: 1, fail: 0, keep: 0 };
  run({
    policy: 'q-learning',
    rails: 2,
    segMax: 2048,
    frames: [
      { bulk: true, size: 4097 },
      { bulk: false, size: 0 },
    ],
    steps: [...Array(10).fill(idle), { ...idle, bytes: 22521 }, { ...idle, from: 1 }, idle, idle, { ...idle, fail: 1 }, ...Array(5).fill(idle)],
  });
});
