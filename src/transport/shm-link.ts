/**
 * A Link between two ranks of one process over a pair of shared-memory rings: frames to the peer
 * go into ring (me -> peer), frames from it come out of ring (peer -> me). Sending copies the
 * payload into the ring once; the receiver copies it out once into its destination (copy-in,
 * copy-out, as Open MPI's vader without CMA). The receiver polls the ring; a sender wakes it
 * through its doorbell only when it sleeps.
 */
import { ControlArea } from './control-block.js';
import { copyBytes } from './copy-bytes.js';
import { FRAME_BURST, FRAME_HEADER_BYTES, FRAME_HEADER_WORDS, FrameVerdict, type InboundFrame, type Link, type LinkEvents, type LinkLimits } from './link.js';
import { PUBLISH_BATCH_BYTES, type HeldRecords, type PublishBatch } from './publish-batch.js';
import { ringRegion, type ShmArenaDescriptor } from './shm-arena.js';
import { runRingPaths, ShmRing } from './shm-ring.js';

/** Frames one poll() delivers from a link at most, so one busy peer cannot starve the others. */
const POLL_BATCH = 64;

export class ShmLink implements Link, HeldRecords {
  readonly peer: number;
  readonly limits: LinkLimits;
  private readonly out: ShmRing;
  private readonly in: ShmRing;
  private readonly control: ControlArea;
  private readonly mySlot: number;
  private readonly peerSlot: number;
  private readonly events: LinkEvents;
  private readonly frame: InboundFrame;
  private registered = false;
  private closed = false;
  /** Where the frame its handler kept lies (-1: none); nothing behind it is delivered meanwhile. */
  private keptAt = -1;
  /** Where the frame {@link peekFrame} gave lies. */
  private peekedAt = -1;
  private readonly batch: PublishBatch;
  /** Kept by the batch (HeldRecords). */
  sentInEpoch = -1;
  listed = false;

  constructor(arena: ShmArenaDescriptor, control: ControlArea, mySlot: number, peerSlot: number, peer: number, events: LinkEvents, batch: PublishBatch) {
    runRingPaths();
    const out = ringRegion(arena, mySlot, peerSlot);
    const inbound = ringRegion(arena, peerSlot, mySlot);
    this.out = new ShmRing(out.sab, out.offset, arena.ringBytes);
    this.in = new ShmRing(inbound.sab, inbound.offset, arena.ringBytes);
    this.control = control;
    this.mySlot = mySlot;
    this.peerSlot = peerSlot;
    this.peer = peer;
    this.events = events;
    this.batch = batch;
    this.limits = {
      maxFramePayload: this.out.maxBodyBytes - FRAME_HEADER_BYTES,
      latency: 0.3e-6,
      bandwidth: 15e9,
      polled: true,
      keepsFrames: true,
      sharesMemory: true,
    };
    this.frame = { words: this.in.i32, headerIndex: 0, bytes: this.in.u8, payloadOffset: 0, payloadLength: 0, pieceOffset: 0 };
  }

  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number): boolean {
    if (!this.registered) {
      this.control.registerWriter(this.peerSlot, this.mySlot);
      this.registered = true;
    }
    const body = FRAME_HEADER_BYTES + length;
    let at = this.out.reserve(body);
    if (at < 0) {
      // The receiver cannot free room it has not seen.
      if (this.out.unpublishedBytes() !== 0) this.publish();
      this.out.setProducerWaiting();
      at = this.out.reserve(body);
      if (at < 0) return false;
    }
    const words = this.out.i32;
    const w = at >> 2;
    for (let i = 0; i < FRAME_HEADER_WORDS; i++) words[w + i] = header[i]!;
    if (payload !== null && length > 0) copyBytes(this.out.u8, at + FRAME_HEADER_BYTES, payload, offset, length);
    this.out.append(body);
    const batch = this.batch;
    if ((header[0]! & FRAME_BURST) === 0 || !batch.continuesBurst(this) || this.out.unpublishedBytes() >= PUBLISH_BATCH_BYTES) this.publish();
    else batch.hold(this);
    return true;
  }

  publishHeld(): void {
    if (this.out.unpublishedBytes() !== 0) this.publish();
  }

  /** Makes every frame appended so far visible to the peer, and wakes it if it sleeps. */
  private publish(): void {
    this.out.publish();
    this.control.wake(this.peerSlot);
  }

  poll(): number {
    if (this.keptAt >= 0) return 0;
    let delivered = 0;
    const frame = this.frame;
    while (delivered < POLL_BATCH) {
      const at = this.in.peek();
      if (at < 0) break;
      frame.headerIndex = at >> 2;
      frame.payloadOffset = at + FRAME_HEADER_BYTES;
      frame.payloadLength = this.in.bodyLengthAt(at) - FRAME_HEADER_BYTES;
      delivered++;
      const verdict = this.events.frame(this, frame);
      if (verdict === FrameVerdict.Keep) {
        this.keptAt = at;
        break;
      }
      if (this.in.take(at) && this.in.publishTail()) this.control.wake(this.peerSlot);
      // The receive that stopped the poll took its frame: the tail waits for a later poll (or a
      // sixteenth of the ring), so a loop of receives behind a sender that ran ahead does not
      // store it once per message on a line the sender reads.
      if (verdict === FrameVerdict.Stop) return delivered;
    }
    if (this.in.publishTail()) this.control.wake(this.peerSlot);
    return delivered;
  }

  peekFrame(): InboundFrame | undefined {
    if (this.keptAt >= 0) return undefined;
    const at = this.in.peek();
    if (at < 0) return undefined;
    // A frame taken, as by a poll, ends a burst of sends (a ping-pong's reply goes at once).
    this.batch.pollStarts();
    const frame = this.frame;
    frame.headerIndex = at >> 2;
    frame.payloadOffset = at + FRAME_HEADER_BYTES;
    frame.payloadLength = this.in.bodyLengthAt(at) - FRAME_HEADER_BYTES;
    this.peekedAt = at;
    return frame;
  }

  takePeeked(): void {
    // Its tail is published by a later poll, or now once a sixteenth of the ring is taken (see poll).
    if (this.in.take(this.peekedAt) && this.in.publishTail()) this.control.wake(this.peerSlot);
  }

  releaseKept(): void {
    const at = this.keptAt;
    if (at < 0) return;
    this.keptAt = -1;
    if (this.in.release(at)) this.control.wake(this.peerSlot);
  }

  /** True when the peer has published frames not yet polled. */
  hasInbound(): boolean {
    return !this.in.isEmpty();
  }

  bytesInFlight(): number {
    return this.out.usedBytes();
  }

  close(): void {
    if (this.out.unpublishedBytes() !== 0) this.publish();
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get localSlot(): number {
    return this.mySlot;
  }
}
