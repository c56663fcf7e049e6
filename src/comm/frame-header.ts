/**
 * Every wire header of the point-to-point protocol (ob1 keeps them in one file too). A frame is
 * {@link FRAME_HEADER_WORDS} Int32 words and a payload.
 *
 * ```
 * word  EAGER                RTS                  CTS                  DATA / EAGER_DATA
 * 0     type | kind << 8     type | kind << 8     type                 type | SPLITTABLE
 * 1     context              context              -                    -
 * 2     source (comm rank)   source (comm rank)   -                    -
 * 3     tag                  tag                  -                    -
 * 4     payload bytes        0                    0                    payload bytes
 * 5     message bytes        message bytes        -                    offset in message
 * 6     sequence             sequence             receiver request id  receiver id / message id
 * 7     message id           sender request id    sender request id    -
 * ```
 * EAGER carries a whole small message, or the start of a pipelined one (message bytes larger
 * than its payload: EAGER_DATA frames with the sender's message id carry the rest, on links
 * whose eager limit exceeds one frame, such as TCP). RTS announces a large message; the receiver
 * answers with CTS once a receive matches (receiver request id -1: the receive failed, complete
 * without data); the sender then streams DATA frames straight into the matched receive's buffer.
 * An RTS sent from a shared allocation (transport/shared-memory.ts) on a link whose peer shares
 * this process's memory carries a payload of PULL_REFERENCE_BYTES: the allocation's key (two
 * Uint32 words, low first) and the message's byte offset in it. A receiver that knows the
 * allocation copies the message out of it and answers CTS with receiver id CTS_PULLED: no DATA
 * follows; one that does not answers an ordinary CTS.
 * DATA and EAGER_DATA are FRAME_SPLITTABLE: a link may deliver them in pieces. CTS and DATA are
 * FRAME_UNORDERED: found by request id, they need not keep the link's order (a multi-rail link
 * spreads DATA over its rails; the simulator lets them overtake). RTS and CTS are
 * FRAME_HANDSHAKE: they carry no message bytes. Bits 27-31 of word 0 are the links'
 * (transport/link.ts); the protocol keeps to bits 0-15.
 *
 * ```
 * word  CANCEL               CANCEL_REPLY
 * 0     type                 type | UNORDERED
 * 1     context              -
 * 6     -                    1: withdrawn, 0: a receive had matched
 * 7     sender request id    sender request id
 * ```
 * CANCEL asks the receiver to withdraw a send it has been announced (an RTS) but has not
 * matched; it keeps the link's order, so it arrives after the announcement it names. The reply
 * is found by the sender's request id.
 *
 * GOODBYE (word 0 only) is the last frame a rank sends on each of its links when it finalizes
 * (or, under the simulator, ends): in the link's order, after everything it sent, so a receiver
 * that reads it knows nothing more will come from that rank.
 */
import { FRAME_HANDSHAKE, FRAME_UNORDERED } from '../transport/link.js';

export { FRAME_HEADER_WORDS } from '../transport/link.js';

export const H_TYPE = 0;
export const H_CONTEXT = 1;
export const H_SOURCE = 2;
export const H_TAG = 3;
export const H_LENGTH = 4;
export const H_TOTAL = 5;
export const H_SEQ = 6;
export const H_AUX = 7;

export const FrameType = {
  Eager: 1,
  Rts: 2,
  Cts: 3,
  Data: 4,
  EagerData: 5,
  Cancel: 6,
  CancelReply: 7,
  Goodbye: 8,
} as const;

export function frameType(word0: number): number {
  return word0 & 0xff;
}

export function frameKind(word0: number): number {
  return (word0 >>> 8) & 0xff;
}

export function typeWord(type: number, kind: number): number {
  return type | (kind << 8);
}

/** Word 0 of a clear-to-send: found by the sender's request id, it need not keep the link's order. */
export const CTS_WORD = FrameType.Cts | FRAME_UNORDERED | FRAME_HANDSHAKE;

/** Word 0 of a request to send: in the link's order (it is matched), and a handshake. */
export function rtsWord(kind: number): number {
  return typeWord(FrameType.Rts, kind) | FRAME_HANDSHAKE;
}

/** CTS receiver id meaning "the receive failed; complete the send without data". */
export const CTS_DISCARD = -1;
/** CTS receiver id meaning "the receiver copied the message out of the sender's shared memory". */
export const CTS_PULLED = -2;
/** Payload bytes of an RTS that names the shared memory its message lies in. */
export const PULL_REFERENCE_BYTES = 12;

/** Writes the reference to `key`'s allocation at `byteOffset` into an RTS payload. */
export function writePullReference(out: Uint8Array, key: number, byteOffset: number): void {
  const view = new DataView(out.buffer, out.byteOffset, PULL_REFERENCE_BYTES);
  view.setUint32(0, key % 4294967296, true);
  view.setUint32(4, Math.floor(key / 4294967296), true);
  view.setUint32(8, byteOffset, true);
}

/** The allocation key and byte offset an RTS payload names. */
export function readPullReference(bytes: Uint8Array, at: number): { key: number; byteOffset: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, PULL_REFERENCE_BYTES);
  return { key: view.getUint32(0, true) + view.getUint32(4, true) * 4294967296, byteOffset: view.getUint32(8, true) };
}

/** Word 0 of a request to withdraw an announced send: in the link's order, behind its RTS. */
export const CANCEL_WORD = FrameType.Cancel;

/** Word 0 of the answer to a CANCEL: found by the sender's request id. */
export const CANCEL_REPLY_WORD = FrameType.CancelReply | FRAME_UNORDERED;

/** Word 0 of the last frame of a link (its sender finalized): in the link's order. */
export const GOODBYE_WORD = FrameType.Goodbye;
