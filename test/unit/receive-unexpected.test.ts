// Eager messages that arrive before their receive wait in the unexpected queue, larger ones in
// buffers of the rank's scratch pool that go back to it once delivered. Property: whatever mix of
// sizes, arrivals and receives (into a buffer, decoded, or mprobe-style), every receive gets the
// bytes its message carried, in MPI's order, though the frame's memory is overwritten at once and
// the pool hands the same buffers out again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PayloadKind } from '../../src/comm/codec.ts';
import { FRAME_HEADER_WORDS, FrameType, H_CONTEXT, H_LENGTH, H_SEQ, H_SOURCE, H_TAG, H_TOTAL, H_TYPE, typeWord } from '../../src/comm/frame-header.ts';
import { ReceivePath } from '../../src/comm/receive-path.ts';
import type { Request, RequestDriver } from '../../src/comm/request.ts';
import { ScratchPool } from '../../src/comm/scratch-pool.ts';
import type { Progress } from '../../src/transport/progress.ts';
import type { Link } from '../../src/transport/link.ts';

const driver: RequestDriver = { testPoll: () => false, spinFor: () => {}, waitUntil: () => Promise.resolve(), cancel: () => false };
const engine = { countCompletion: () => {} } as unknown as Progress;
const link = { peer: 1 } as unknown as Link;

type Step = { arrive: number } | { receive: 'into' | 'decoded' | 'probed' };

function content(id: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (id * 31 + i * 7) & 255;
  return bytes;
}

test('unexpected eager messages: every receive gets its own bytes, in order, through reused pool buffers', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.record({ arrive: fc.integer({ min: 0, max: 3000 }) }), fc.record({ receive: fc.constantFrom('into' as const, 'decoded' as const, 'probed' as const) })), { maxLength: 120 }),
      (steps: Step[]) => {
        const scratch = new ScratchPool();
        const path = new ReceivePath({ rank: 0, engine, driver, poll: () => {}, control: () => {}, scratch });
        const memory = new Uint8Array(new SharedArrayBuffer(4096));
        const words = new Int32Array(FRAME_HEADER_WORDS);
        const sent: Uint8Array[] = [];
        const got: (Uint8Array | undefined)[] = [];
        const pending: { index: number; request: Request<unknown>; into: Uint8Array | null }[] = [];
        let received = 0;
        const settle = (): void => {
          while (pending.length > 0 && pending[0]!.request.done) {
            const { index, request, into } = pending.shift()!;
            const result = into === null ? (request.result as Uint8Array) : into.subarray(0, request.status!.bytes);
            got[index] = Uint8Array.from(result);
          }
        };
        for (const step of steps) {
          if ('arrive' in step) {
            const id = sent.length;
            const bytes = content(id, step.arrive);
            sent.push(bytes);
            words[H_TYPE] = typeWord(FrameType.Eager, PayloadKind.Uint8);
            words[H_CONTEXT] = 0;
            words[H_SOURCE] = 1;
            words[H_TAG] = 5;
            words[H_SEQ] = id + 1;
            words[H_LENGTH] = bytes.length;
            words[H_TOTAL] = bytes.length;
            memory.set(bytes, 100);
            path.onEager(link, { words, headerIndex: 0, bytes: memory, payloadOffset: 100, payloadLength: bytes.length, pieceOffset: 0 });
            memory.fill(0xee); // the ring's space is reused at once
          } else {
            const index = received++;
            if (step.receive === 'probed') {
              const message = path.takeProbed(0, 1, 5);
              if (message === undefined) {
                received--;
                continue;
              }
              pending.push({ index, request: path.receiveProbed(message, 0, null, 'mrecv'), into: null });
            } else {
              const into = step.receive === 'into' ? new Uint8Array(3000) : null;
              pending.push({ index, request: path.irecv(0, 1, 1, 5, into, 'recv'), into });
            }
          }
          settle();
        }
        settle();
        for (let i = 0; i < got.length; i++) {
          if (got[i] === undefined) continue;
          assert.deepEqual([...got[i]!], [...sent[i]!], `receive ${i}`);
        }
        assert.equal(got.filter((g) => g !== undefined).length, Math.min(sent.length, received));
      },
    ),
    { numRuns: 300 },
  );
});
