// Eager messages that arrive before their receive wait as unexpected messages: in their link's
// frame when the link can keep it (a ring), during the poll a receive makes as it is posted, or
// else copied out, larger ones into buffers of the rank's scratch pool that go back to it once
// delivered. Property: whatever mix of sizes, arrivals, receives (into a buffer, decoded, by a
// matched probe) and waits, every receive gets the bytes its message carried, in MPI's order,
// though a link overwrites a frame's memory as soon as it is let go, and the pool hands the same
// buffers out again; and a kept frame holds back the frames behind it only until a poll that is
// not a receive's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PayloadKind } from '../../src/comm/codec.ts';
import { FRAME_HEADER_WORDS, FrameType, H_CONTEXT, H_LENGTH, H_SEQ, H_SOURCE, H_TAG, H_TOTAL, H_TYPE, typeWord } from '../../src/comm/frame-header.ts';
import { ReceivePath } from '../../src/comm/receive-path.ts';
import type { Request, RequestDriver } from '../../src/comm/request.ts';
import { ScratchPool } from '../../src/comm/scratch-pool.ts';
import type { Progress } from '../../src/transport/progress.ts';
import { FrameVerdict, type InboundFrame, type Link, type LinkLimits } from '../../src/transport/link.ts';

const driver: RequestDriver = { testPoll: () => false, spinFor: () => {}, waitUntil: () => Promise.resolve(), cancel: () => false };
const engine = { countCompletion: () => {} } as unknown as Progress;

type Step = { arrive: number } | { receive: 'into' | 'decoded' | 'probed' } | { wait: true };

function content(id: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (id * 31 + i * 7) & 255;
  return bytes;
}

/** A polled link over one shared frame buffer, as a ring: a frame let go is overwritten at once. */
class FakeRing {
  readonly peer = 1;
  readonly limits: LinkLimits;
  readonly pending: Uint8Array[] = [];
  kept = false;
  private readonly memory = new Uint8Array(new SharedArrayBuffer(4096));
  private readonly words = new Int32Array(FRAME_HEADER_WORDS);
  private sequence = 0;
  onFrame: (link: Link, frame: InboundFrame) => FrameVerdict = () => FrameVerdict.Next;

  constructor(keeps: boolean) {
    this.limits = { maxFramePayload: 4000, latency: 0, bandwidth: 1e9, polled: true, keepsFrames: keeps };
  }

  poll(): number {
    let delivered = 0;
    while (!this.kept && this.pending.length > 0) {
      const bytes = this.pending[0]!;
      const w = this.words;
      w[H_TYPE] = typeWord(FrameType.Eager, PayloadKind.Uint8);
      w[H_CONTEXT] = 0;
      w[H_SOURCE] = 1;
      w[H_TAG] = 5;
      w[H_SEQ] = ++this.sequence;
      w[H_LENGTH] = bytes.length;
      w[H_TOTAL] = bytes.length;
      this.memory.set(bytes, 64);
      delivered++;
      const verdict = this.onFrame(this as unknown as Link, { words: w, headerIndex: 0, bytes: this.memory, payloadOffset: 64, payloadLength: bytes.length, pieceOffset: 0 });
      if (verdict === FrameVerdict.Keep) {
        assert.ok(this.limits.keepsFrames, 'a frame was kept on a link that cannot keep one');
        this.kept = true;
        break;
      }
      this.letGo();
      // As a ring does: the frames behind one that completed the receive being posted wait.
      if (verdict === FrameVerdict.Stop) break;
    }
    return delivered;
  }

  releaseKept(): void {
    assert.ok(this.kept, 'releaseKept without a kept frame');
    this.kept = false;
    this.letGo();
  }

  private letGo(): void {
    this.pending.shift();
    this.memory.fill(0xee);
  }
}

for (const keeps of [true, false]) {
  test(`unexpected eager messages (${keeps ? 'a link that keeps frames' : 'a socket-like link'}): every receive gets its own bytes, in order`, () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ arrive: fc.integer({ min: 0, max: 3000 }) }),
            fc.record({ receive: fc.constantFrom('into' as const, 'decoded' as const, 'probed' as const) }),
            fc.record({ wait: fc.constant(true as const) }),
          ),
          { maxLength: 120 },
        ),
        (steps: Step[]) => {
          const ring = new FakeRing(keeps);
          // As the endpoint polls: a poll that is not a receive's own first copies kept frames out.
          const poll = (): void => {
            path.beforePoll();
            ring.poll();
          };
          const path: ReceivePath = new ReceivePath({
            rank: 0,
            engine,
            driver,
            poll,
            control: () => {},
            scratch: new ScratchPool(),
          });
          ring.onFrame = (link, frame) => path.onEager(link, frame);
          const sent: Uint8Array[] = [];
          const got: Uint8Array[] = [];
          const pending: { request: Request<unknown>; into: Uint8Array | null }[] = [];
          const settle = (): void => {
            while (pending.length > 0 && pending[0]!.request.done) {
              const { request, into } = pending.shift()!;
              got.push(Uint8Array.from(into === null ? (request.result as Uint8Array) : into.subarray(0, request.status!.bytes)));
            }
          };
          let receives = 0;
          const receive = (how: 'into' | 'decoded' | 'probed'): void => {
            if (how === 'probed') {
              // A matched probe may only take what has arrived, and only while nothing is posted.
              if (pending.length > 0) return;
              const message = path.takeProbed(0, 1, 5);
              if (message === undefined) return;
              receives++;
              pending.push({ request: path.receiveProbed(message, 0, null, 'mrecv'), into: null });
              return;
            }
            receives++;
            const into = how === 'into' ? new Uint8Array(3000) : null;
            pending.push({ request: path.irecv(0, 1, 1, 5, into, 'recv'), into });
          };
          const arrive = (length: number): void => {
            const bytes = content(sent.length, length);
            sent.push(bytes);
            ring.pending.push(bytes);
          };
          for (const step of steps) {
            if ('arrive' in step) arrive(step.arrive);
            else if ('wait' in step) {
              poll();
              assert.ok(!ring.kept, 'a poll that is not a receive\'s own left a frame kept');
            } else receive(step.receive);
            settle();
          }
          // Drain: a receive for every message and a message for every receive, then a wait's poll.
          while (receives < sent.length) receive('into');
          while (sent.length < receives) arrive(100);
          poll();
          settle();
          assert.equal(pending.length, 0, 'a receive is left unmatched though its message arrived');
          assert.equal(got.length, sent.length);
          for (let i = 0; i < sent.length; i++) assert.deepEqual([...got[i]!], [...sent[i]!], `receive ${i}`);
        },
      ),
      { numRuns: 300 },
    );
  });
}

test('receives posted one by one behind frames already in a ring each take their own frame from it: the frames behind stay there', () => {
  const ring = new FakeRing(true);
  const path: ReceivePath = new ReceivePath({ rank: 0, engine, driver, poll: () => { path.beforePoll(); ring.poll(); }, control: () => {}, scratch: new ScratchPool() });
  ring.onFrame = (link, frame) => path.onEager(link, frame);
  for (let i = 0; i < 5; i++) ring.pending.push(content(i, 8));
  const left: number[] = [];
  const got: number[][] = [];
  for (let i = 0; i < 5; i++) {
    const into = new Uint8Array(8);
    const request = path.irecv(0, 1, 1, 5, into, 'recv');
    assert.ok(request.done, `receive ${i} found its frame`);
    left.push(ring.pending.length);
    got.push([...into]);
  }
  // Without the stop, the first receive's poll copied the other four out as unexpected messages.
  assert.deepEqual(left, [4, 3, 2, 1, 0]);
  assert.deepEqual(got, [0, 1, 2, 3, 4].map((i) => [...content(i, 8)]));
});
