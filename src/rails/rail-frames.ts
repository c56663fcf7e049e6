/**
 * The multi-rail link's own frames (FRAME_LINK set in word 0): it owns their whole header. The
 * frames of the layer above travel unchanged on rail 0; a frame that is FRAME_UNORDERED and
 * FRAME_SPLITTABLE (bulk data placed by offset) and long enough is cut into SEGMENTs over all
 * rails instead. Before the first segment of a frame on a rail, that rail carries the frame's
 * ANNOUNCE (its 8 header words as payload): a rail is FIFO, so a receiver always knows a frame
 * before any of its segments, whichever rail they come on. Each segment received whole is
 * acknowledged by an ACK on the receiver's rail 0.
 *
 * ```
 * word  ANNOUNCE                 SEGMENT                             ACK
 * 0     LINK | ANNOUNCE          LINK | SEGMENT | SPLITTABLE         LINK | ACK
 * 1     frame id                 frame id                            segment id
 * 2     frame payload bytes      segment id                          segment id (0: none)
 * 3     -                        offset of the segment in the frame  segment id (0: none)
 * 4     -                        segment bytes                       segment id (0: none)
 * 5-7   -                        -                                   segment ids (0: none)
 * payload: the frame's 8 header words  the segment's bytes            -
 * ```
 * Frame ids are the sending link's (1, 2, ...); segment ids its scheduler's (never 0).
 */
import { FRAME_HEADER_WORDS, FRAME_LINK, FRAME_SPLITTABLE } from '../transport/link.js';

export const RailFrameType = {
  Announce: 1,
  Segment: 2,
  Ack: 3,
} as const;

/** The link-layer type of a FRAME_LINK frame's word 0. */
export function railFrameType(word0: number): number {
  return word0 & 0xff;
}

export const ANNOUNCE_WORD = FRAME_LINK | RailFrameType.Announce;
export const SEGMENT_WORD = FRAME_LINK | RailFrameType.Segment | FRAME_SPLITTABLE;
export const ACK_WORD = FRAME_LINK | RailFrameType.Ack;

/** Header words of an ACK that carry segment ids. */
export const ACK_IDS = FRAME_HEADER_WORDS - 1;

/** Word indices (see the table above). */
export const R_FRAME = 1;
export const R_FRAME_BYTES = 2;
export const R_SEGMENT = 2;
export const R_OFFSET = 3;
export const R_LENGTH = 4;

/** The announce's payload: a frame's header words as bytes (little-endian, as Int32Array holds them). */
export function headerBytes(header: Int32Array): Uint8Array {
  return new Uint8Array(header.buffer, header.byteOffset, FRAME_HEADER_WORDS * 4);
}
