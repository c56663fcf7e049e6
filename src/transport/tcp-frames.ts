/**
 * Framing of the TCP link: every frame is
 *
 * ```
 *  u32 LE  frame bytes (header + payload), at most maxFrameBytes
 *  32 B    header (FRAME_HEADER_WORDS Int32 LE words)
 *  ...     payload
 * ```
 * The parser takes socket chunks of any size (libuv hands out at most 64 KiB) and calls back
 * with frames. A frame whose first header word carries FRAME_SPLITTABLE is delivered in pieces as
 * its bytes arrive (each piece says where it sits in the payload), so bulk data is copied once,
 * from the socket's chunk to its destination. Other frames are delivered whole: straight from the
 * chunk when they lie inside it, else assembled in a reused buffer. A length below the header
 * size or above the limit is a protocol error: the caller closes the connection.
 */
import { FRAME_HEADER_BYTES, FRAME_HEADER_WORDS, FRAME_SPLITTABLE } from './link.js';

export const LENGTH_PREFIX_BYTES = 4;
const HEAD_BYTES = LENGTH_PREFIX_BYTES + FRAME_HEADER_BYTES;

/** Writes the prefix and header of a frame with `payloadLength` bytes into `out` at `offset`. */
export function writeFrameHead(out: Buffer, offset: number, header: Int32Array, payloadLength: number): void {
  out.writeUInt32LE(FRAME_HEADER_BYTES + payloadLength, offset);
  for (let i = 0; i < FRAME_HEADER_WORDS; i++) out.writeInt32LE(header[i]!, offset + LENGTH_PREFIX_BYTES + i * 4);
}

export class FrameError extends Error {}

/**
 * Receives a frame, or a piece of a splittable one: header words (a reused array), the bytes
 * holding the piece, and where the piece sits in the frame's payload.
 */
export type FrameHandler = (words: Int32Array, bytes: Buffer, offset: number, length: number, pieceOffset: number) => void;

export class FrameParser {
  private readonly maxFrameBytes: number;
  private readonly onFrame: FrameHandler;
  private readonly words = new Int32Array(FRAME_HEADER_WORDS);
  /** Prefix and header of the current frame, while they are incomplete. */
  private readonly head = Buffer.alloc(HEAD_BYTES);
  private headLength = 0;
  /** Payload bytes of the current frame, and how many have been seen. */
  private payloadLength = -1;
  private payloadSeen = 0;
  private splittable = false;
  /** Assembly buffer for a whole (not splittable) frame that spans chunks. */
  private assembly: Buffer = Buffer.alloc(0);

  constructor(maxFrameBytes: number, onFrame: FrameHandler) {
    this.maxFrameBytes = maxFrameBytes;
    this.onFrame = onFrame;
  }

  /** True when no frame is half-received. */
  get idle(): boolean {
    return this.headLength === 0 && this.payloadLength < 0;
  }

  /** Feeds a chunk; throws FrameError on a malformed length. */
  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.payloadLength < 0) {
        // Fast path: a whole frame head inside the chunk.
        if (this.headLength === 0 && chunk.length - at >= HEAD_BYTES) {
          this.startFrame(chunk, at);
          at += HEAD_BYTES;
        } else {
          const take = Math.min(HEAD_BYTES - this.headLength, chunk.length - at);
          const before = this.headLength;
          chunk.copy(this.head, this.headLength, at, at + take);
          this.headLength += take;
          at += take;
          // Refuse a bad length as soon as its four bytes are in, not once the header is.
          if (before < LENGTH_PREFIX_BYTES && this.headLength >= LENGTH_PREFIX_BYTES) this.checkLength(this.head.readUInt32LE(0));
          if (this.headLength < HEAD_BYTES) return;
          this.startFrame(this.head, 0);
          this.headLength = 0;
        }
        if (this.payloadLength === 0) {
          this.finishFrame(chunk, at, 0);
          continue;
        }
        if (at === chunk.length) return;
      }
      const left = this.payloadLength - this.payloadSeen;
      const take = Math.min(left, chunk.length - at);
      if (this.splittable) {
        this.onFrame(this.words, chunk, at, take, this.payloadSeen);
        this.payloadSeen += take;
        if (this.payloadSeen === this.payloadLength) this.payloadLength = -1;
      } else if (this.payloadSeen === 0 && take === left) {
        this.finishFrame(chunk, at, take);
      } else {
        chunk.copy(this.assembly, this.payloadSeen, at, at + take);
        this.payloadSeen += take;
        if (this.payloadSeen === this.payloadLength) this.finishFrame(this.assembly, 0, this.payloadLength);
      }
      at += take;
    }
  }

  private checkLength(frameBytes: number): number {
    if (frameBytes < FRAME_HEADER_BYTES || frameBytes > this.maxFrameBytes) {
      throw new FrameError(`a frame of ${frameBytes} bytes (allowed: ${FRAME_HEADER_BYTES} to ${this.maxFrameBytes})`);
    }
    return frameBytes;
  }

  private startFrame(buffer: Buffer, at: number): void {
    const frameBytes = this.checkLength(buffer.readUInt32LE(at));
    for (let i = 0; i < FRAME_HEADER_WORDS; i++) this.words[i] = buffer.readInt32LE(at + LENGTH_PREFIX_BYTES + i * 4);
    this.payloadLength = frameBytes - FRAME_HEADER_BYTES;
    this.payloadSeen = 0;
    this.splittable = (this.words[0]! & FRAME_SPLITTABLE) !== 0;
    if (!this.splittable && this.assembly.length < this.payloadLength) this.assembly = Buffer.allocUnsafe(Math.max(this.payloadLength, 64 * 1024));
  }

  private finishFrame(buffer: Buffer, at: number, length: number): void {
    this.payloadLength = -1;
    this.onFrame(this.words, buffer, at, length, 0);
  }
}
