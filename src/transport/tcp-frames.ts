/**
 * Framing of the TCP link: every frame is
 *
 * ```
 *  u32 LE  frame bytes (header + payload), at most maxFrameBytes
 *  32 B    header (FRAME_HEADER_WORDS Int32 LE words)
 *  ...     payload
 * ```
 * The parser takes socket chunks of any size (libuv hands out at most 64 KiB) and calls back with
 * whole frames. A frame that lies inside one chunk is delivered from that chunk (no copy); one
 * that spans chunks is assembled in a reused buffer. A length below the header size or above the
 * limit is a protocol error: the caller closes the connection.
 */
import { FRAME_HEADER_BYTES, FRAME_HEADER_WORDS } from './link.js';

export const LENGTH_PREFIX_BYTES = 4;

/** Writes the prefix and header of a frame with `payloadLength` bytes into `out` at `offset`. */
export function writeFrameHead(out: Buffer, offset: number, header: Int32Array, payloadLength: number): void {
  out.writeUInt32LE(FRAME_HEADER_BYTES + payloadLength, offset);
  for (let i = 0; i < FRAME_HEADER_WORDS; i++) out.writeInt32LE(header[i]!, offset + LENGTH_PREFIX_BYTES + i * 4);
}

export class FrameError extends Error {}

/** Receives one whole frame: header words (a reused array) and the payload's place in `bytes`. */
export type FrameHandler = (words: Int32Array, bytes: Buffer, payloadOffset: number, payloadLength: number) => void;

export class FrameParser {
  private readonly maxFrameBytes: number;
  private readonly onFrame: FrameHandler;
  private readonly words = new Int32Array(FRAME_HEADER_WORDS);
  /** Bytes of a frame (prefix included) that spans chunks. */
  private partial: Buffer = Buffer.alloc(0);
  private partialLength = 0;

  constructor(maxFrameBytes: number, onFrame: FrameHandler) {
    this.maxFrameBytes = maxFrameBytes;
    this.onFrame = onFrame;
  }

  /** Feeds a chunk; throws FrameError on a malformed length. */
  push(chunk: Buffer): void {
    let at = 0;
    if (this.partialLength > 0) {
      at = this.fillPartial(chunk);
      if (at < 0) return;
    }
    while (at < chunk.length) {
      const left = chunk.length - at;
      if (left < LENGTH_PREFIX_BYTES) {
        this.startPartial(chunk, at);
        return;
      }
      const frameBytes = this.checkLength(chunk.readUInt32LE(at));
      if (left < LENGTH_PREFIX_BYTES + frameBytes) {
        this.startPartial(chunk, at);
        return;
      }
      this.deliver(chunk, at);
      at += LENGTH_PREFIX_BYTES + frameBytes;
    }
  }

  /** True when no frame is half-received. */
  get idle(): boolean {
    return this.partialLength === 0;
  }

  private checkLength(frameBytes: number): number {
    if (frameBytes < FRAME_HEADER_BYTES || frameBytes > this.maxFrameBytes) {
      throw new FrameError(`a frame of ${frameBytes} bytes (allowed: ${FRAME_HEADER_BYTES} to ${this.maxFrameBytes})`);
    }
    return frameBytes;
  }

  private deliver(buffer: Buffer, at: number): void {
    const frameBytes = buffer.readUInt32LE(at);
    const head = at + LENGTH_PREFIX_BYTES;
    for (let i = 0; i < FRAME_HEADER_WORDS; i++) this.words[i] = buffer.readInt32LE(head + i * 4);
    this.onFrame(this.words, buffer, head + FRAME_HEADER_BYTES, frameBytes - FRAME_HEADER_BYTES);
  }

  private startPartial(chunk: Buffer, at: number): void {
    const left = chunk.length - at;
    const need = left >= LENGTH_PREFIX_BYTES ? LENGTH_PREFIX_BYTES + chunk.readUInt32LE(at) : LENGTH_PREFIX_BYTES;
    if (this.partial.length < need) this.partial = Buffer.allocUnsafe(Math.max(need, 64 * 1024));
    chunk.copy(this.partial, 0, at);
    this.partialLength = left;
  }

  /** Continues a frame that spans chunks; returns where the chunk's next frame starts, or -1. */
  private fillPartial(chunk: Buffer): number {
    let at = 0;
    if (this.partialLength < LENGTH_PREFIX_BYTES) {
      const take = Math.min(LENGTH_PREFIX_BYTES - this.partialLength, chunk.length);
      chunk.copy(this.partial, this.partialLength, 0, take);
      this.partialLength += take;
      at = take;
      if (this.partialLength < LENGTH_PREFIX_BYTES) return -1;
      const total = LENGTH_PREFIX_BYTES + this.checkLength(this.partial.readUInt32LE(0));
      if (this.partial.length < total) {
        const bigger = Buffer.allocUnsafe(total);
        this.partial.copy(bigger, 0, 0, this.partialLength);
        this.partial = bigger;
      }
    }
    const total = LENGTH_PREFIX_BYTES + this.checkLength(this.partial.readUInt32LE(0));
    const take = Math.min(total - this.partialLength, chunk.length - at);
    chunk.copy(this.partial, this.partialLength, at, at + take);
    this.partialLength += take;
    at += take;
    if (this.partialLength < total) return -1;
    this.partialLength = 0;
    this.deliver(this.partial, 0);
    return at;
  }
}
