/**
 * The link from a rank to itself (Open MPI's btl/self): frames are copied into a private queue and
 * delivered on the next poll, never synchronously inside `trySend` (a send must not run receive
 * handlers re-entrantly). A frame queued while none waited is announced (`announce`): a rank
 * asleep in its progress engine, or one whose other links are sockets that deliver by event,
 * would otherwise not poll the queue until something else woke it.
 */
import { copyOut } from './copy-bytes.js';
import { FRAME_HEADER_WORDS, type InboundFrame, type Link, type LinkEvents, type LinkLimits } from './link.js';

interface QueuedFrame {
  words: Int32Array;
  bytes: Uint8Array;
}

export class LoopbackLink implements Link {
  readonly peer: number;
  readonly limits: LinkLimits = { maxFramePayload: 1 << 24, latency: 0, bandwidth: 20e9, polled: true };
  private readonly events: LinkEvents;
  private queue: QueuedFrame[] = [];
  private head = 0;
  /** Frames were announced and no poll has begun since (one announcement per poll is enough). */
  private announced = false;
  private readonly frame: InboundFrame = {
    words: new Int32Array(FRAME_HEADER_WORDS),
    headerIndex: 0,
    bytes: new Uint8Array(0),
    payloadOffset: 0,
    payloadLength: 0,
    pieceOffset: 0,
  };

  constructor(rank: number, events: LinkEvents) {
    this.peer = rank;
    this.events = events;
  }

  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number): boolean {
    const words = new Int32Array(FRAME_HEADER_WORDS);
    words.set(header.subarray(0, FRAME_HEADER_WORDS));
    const bytes = payload === null || length === 0 ? new Uint8Array(0) : copyOut(payload, offset, length);
    this.queue.push({ words, bytes });
    if (!this.announced) {
      this.announced = true;
      this.announce();
    }
    return true;
  }

  /** Tells the endpoint that there is something to poll (its progress engine then polls, not now). */
  protected announce(): void {
    this.events.drain(this);
  }

  poll(): number {
    const end = this.queue.length;
    if (this.head === end) return 0;
    // Frames a handler queues during this poll wait for the next one: they are announced again.
    this.announced = false;
    let delivered = 0;
    // Deliver only what was queued before this poll began; frames queued by handlers wait.
    while (this.head < end) {
      const queued = this.queue[this.head++]!;
      this.frame.words = queued.words;
      this.frame.bytes = queued.bytes;
      this.frame.payloadLength = queued.bytes.length;
      this.events.frame(this, this.frame);
      delivered++;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    return delivered;
  }

  hasInbound(): boolean {
    return this.head < this.queue.length;
  }

  bytesInFlight(): number {
    let bytes = 0;
    for (let i = this.head; i < this.queue.length; i++) bytes += this.queue[i]!.bytes.length;
    return bytes;
  }

  close(): void {
    this.queue = [];
    this.head = 0;
    this.announced = false;
  }
}
