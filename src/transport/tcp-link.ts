/**
 * Links over TCP sockets. Every rank sends to a peer on its own connection (opened on the first
 * frame, authenticated by the handshake) and receives from that peer on the peer's connection,
 * so each direction is one FIFO socket and no two ranks race to open one connection.
 *
 * - Sending: small frames (<= COPY_LIMIT) are built in one buffer (one `write`); larger payloads
 *   passed with `borrow` go out with writev straight from the caller's memory (no copy), and
 *   `whenReleased` calls back once the socket has handed them to the kernel. Nagle is off.
 * - Bursts: a frame flagged FRAME_BURST (a program's nonblocking send) that follows another such
 *   frame since the rank last polled or its job last ended is held in the corked socket, with
 *   what follows it, until the next poll, the job's end or HOLD_LIMIT bytes (publish-batch.ts).
 *   The first goes at once; held frames leave in one writev. A window of 64 sends of 64 KiB
 *   each made 64 writev calls, and streamed below plain Node sockets, which gather the writes
 *   queued behind a pending one.
 * - Backpressure: when `socket.write` says the buffer is full, `trySend` refuses until 'drain',
 *   then the link signals `events.drain`.
 * - Lifetime: sockets are unref'd (an idle connection must not keep a finished rank alive), except
 *   while written bytes are still on their way out (so nothing sent is lost when a rank ends).
 * - Receiving: a FrameParser turns chunks into frames; a malformed or oversized frame closes the
 *   connection with a clear error, it never throws into the rank.
 */
import type { Socket } from 'node:net';
import { FRAME_BURST, FRAME_HEADER_BYTES, FRAME_HEADER_WORDS, type InboundFrame, type Link, type LinkEvents, type LinkLimits } from './link.js';
import type { HeldRecords, PublishBatch } from './publish-batch.js';
import { FrameError, FrameParser, LENGTH_PREFIX_BYTES, writeFrameHead } from './tcp-frames.js';

/** Payloads up to this size are copied into the frame buffer; larger borrowed ones are not. */
const COPY_LIMIT = 16 * 1024;
/** The smallest eager payload a TCP link writes from the sender's buffer (tsmpi calibrate fits a range from it). */
export const TCP_BORROW_FROM = COPY_LIMIT + 1;
/**
 * Eager payloads above this size go as a first frame of this size and a splittable rest: a 1 MiB
 * eager frame delivered whole was copied into the receive only once all of it had arrived.
 */
const SPLIT_EAGER_FROM = 64 * 1024;
/**
 * Bytes a connection may hold in user space before `trySend` refuses. A socket's own
 * high-water mark (16 KiB) would stop a 1 MiB message after its first frame and make every
 * further frame wait for a 'drain' and a wake-up; borrowed frames cost no copy to queue.
 */
const BUFFER_LIMIT = 4 * 1024 * 1024;
/**
 * Copied frames at least this large are built in buffers the link keeps and reuses once the socket
 * has written them: a fresh 64 KiB buffer per eager send made the garbage collector the largest
 * cost of a 64 KiB ping-pong (about 100 us per message). Smaller ones come from Node's pool.
 */
const REUSED_FROM = 8 * 1024;
/** Spare frame buffers kept per size class (a power of two). */
const SPARES_PER_CLASS = 8;
/** Bytes of a burst held in the corked socket at which the link writes them at once. */
export const HOLD_LIMIT = BUFFER_LIMIT / 2;

export function tcpLimits(maxFramePayload: number, eagerLimit: number): LinkLimits {
  return { maxFramePayload, eagerLimit, latency: 40e-6, bandwidth: 3e9, polled: false, borrowEagerFrom: TCP_BORROW_FROM, splitEagerFrom: SPLIT_EAGER_FROM };
}

/** The sending side of a connection to `peer`. */
export class TcpSendLink implements Link, HeldRecords {
  readonly peer: number;
  readonly direction = 'send' as const;
  readonly limits: LinkLimits;
  private readonly events: LinkEvents;
  private socket: Socket | undefined;
  private state: 'connecting' | 'open' | 'closed' = 'connecting';
  private blocked = false;
  private borrowed = 0;
  private releaseWaiters: (() => void)[] = [];
  private unflushed = 0;
  private readonly spares = new Map<number, Buffer[]>();
  private readonly batch: PublishBatch;
  /** Kept by the batch (HeldRecords). */
  sentInEpoch = -1;
  listed = false;
  /** The socket is corked on frames of a burst; `heldBytes` of them wait. */
  private holding = false;
  private heldBytes = 0;
  private readonly flushed = (): void => {
    if (--this.unflushed === 0) this.socket?.unref();
  };
  private readonly releasedBorrow = (): void => {
    this.flushed();
    this.released();
  };

  /** `connect` opens and authenticates the socket; the link refuses frames until it resolves. */
  constructor(peer: number, limits: LinkLimits, events: LinkEvents, batch: PublishBatch, connect: () => Promise<Socket>) {
    this.peer = peer;
    this.limits = limits;
    this.events = events;
    this.batch = batch;
    connect().then(
      (socket) => this.open(socket),
      (error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private open(socket: Socket): void {
    if (this.state === 'closed') {
      socket.destroy();
      return;
    }
    this.socket = socket;
    this.state = 'open';
    socket.unref();
    socket.on('drain', () => {
      this.blocked = false;
      this.events.drain(this);
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(undefined));
    // Nothing arrives on a sending connection after the handshake; anything that does is an error.
    socket.on('data', () => this.fail(new Error(`rank ${this.peer} sent data on a connection it should only receive on`)));
    this.events.drain(this);
  }

  private fail(error: Error | undefined): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.socket?.destroy();
    this.events.closed(this, error);
  }

  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number, borrow = false): boolean {
    if (this.state !== 'open' || this.blocked) return false;
    const socket = this.socket!;
    const burst = (header[0]! & FRAME_BURST) !== 0;
    if (burst && this.batch.continuesBurst(this)) this.hold(socket);
    let room: boolean;
    if (borrow && payload !== null && length > COPY_LIMIT) {
      const head = Buffer.allocUnsafe(LENGTH_PREFIX_BYTES + FRAME_HEADER_BYTES);
      writeFrameHead(head, 0, header, length);
      this.borrowed++;
      this.unflushed += 2;
      socket.cork();
      socket.write(head, this.flushed);
      room = socket.write(payload.subarray(offset, offset + length), this.releasedBorrow);
      socket.uncork();
    } else {
      const bytes = LENGTH_PREFIX_BYTES + FRAME_HEADER_BYTES + length;
      const kept = bytes >= REUSED_FROM ? this.spareFor(bytes) : undefined;
      const frame = kept === undefined ? Buffer.allocUnsafe(bytes) : kept.subarray(0, bytes);
      writeFrameHead(frame, 0, header, length);
      if (payload !== null && length > 0) frame.set(payload.subarray(offset, offset + length), LENGTH_PREFIX_BYTES + FRAME_HEADER_BYTES);
      this.unflushed++;
      room = socket.write(frame, kept === undefined ? this.flushed : () => this.recycle(kept));
    }
    if (this.unflushed > 0) socket.ref();
    // A frame that is not part of a burst is followed by a wait: it goes now, with what was held.
    if (this.holding && (!burst || (this.heldBytes += length) >= HOLD_LIMIT)) this.release(socket);
    if (!room && socket.writableLength >= BUFFER_LIMIT) {
      // Refusing until 'drain': what is held must be on its way for the socket to drain.
      this.blocked = true;
      if (this.holding) this.release(socket);
    }
    return true;
  }

  /** Corks the socket for the frames of a burst, listed with the batch until it publishes them. */
  private hold(socket: Socket): void {
    if (this.holding) return;
    this.holding = true;
    socket.cork();
    this.batch.hold(this);
  }

  private release(socket: Socket): void {
    this.holding = false;
    this.heldBytes = 0;
    socket.uncork();
  }

  publishHeld(): void {
    if (this.holding && this.socket !== undefined) this.release(this.socket);
  }

  /** A spare buffer of the size class of `bytes`, or a new one of that class. */
  private spareFor(bytes: number): Buffer {
    const size = 2 ** Math.ceil(Math.log2(bytes));
    return this.spares.get(size)?.pop() ?? Buffer.allocUnsafeSlow(size);
  }

  /** The socket has written a frame built in `buffer`: it may be reused. */
  private recycle(buffer: Buffer): void {
    this.flushed();
    let list = this.spares.get(buffer.length);
    if (list === undefined) this.spares.set(buffer.length, (list = []));
    if (list.length < SPARES_PER_CLASS) list.push(buffer);
  }

  private released(): void {
    if (--this.borrowed === 0) {
      const waiters = this.releaseWaiters;
      this.releaseWaiters = [];
      for (const fn of waiters) fn();
    }
  }

  whenReleased(fn: () => void): void {
    if (this.borrowed === 0) fn();
    else this.releaseWaiters.push(fn);
  }

  poll(): number {
    return 0;
  }

  bytesInFlight(): number {
    return this.socket?.writableLength ?? 0;
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.socket?.end();
  }

  abort(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.socket?.destroy();
  }
}

/** The receiving side of a connection from `peer` (accepted by this rank's listener). */
export class TcpReceiveLink implements Link {
  readonly peer: number;
  readonly direction = 'receive' as const;
  readonly limits: LinkLimits;
  private readonly socket: Socket;
  private readonly events: LinkEvents;
  private readonly parser: FrameParser;
  private readonly frame: InboundFrame = { words: new Int32Array(FRAME_HEADER_WORDS), headerIndex: 0, bytes: new Uint8Array(0), payloadOffset: 0, payloadLength: 0, pieceOffset: 0 };
  private closed = false;

  /**
   * `consume` hands the link every read of the socket from now on (tcp-reader.ts, where a read's
   * bytes are valid only until the link returns); without it the link listens for 'data'.
   */
  constructor(peer: number, limits: LinkLimits, socket: Socket, events: LinkEvents, first: Buffer, maxFrameBytes: number, consume?: (consumer: (chunk: Buffer) => void) => void) {
    this.peer = peer;
    this.limits = limits;
    this.socket = socket;
    this.events = events;
    socket.unref();
    this.parser = new FrameParser(maxFrameBytes, (words, bytes, payloadOffset, payloadLength, pieceOffset) => {
      this.frame.words = words;
      this.frame.bytes = bytes;
      this.frame.payloadOffset = payloadOffset;
      this.frame.payloadLength = payloadLength;
      this.frame.pieceOffset = pieceOffset;
      this.events.frame(this, this.frame);
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(this.parser.idle ? undefined : new Error('the connection closed in the middle of a frame')));
    events.opened?.(this);
    if (first.length > 0) this.receive(first);
    const receive = (chunk: Buffer): void => this.receive(chunk);
    if (consume !== undefined) consume(receive);
    else socket.on('data', receive);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.parser.push(chunk);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.fail(new Error(`rank ${this.peer} sent ${error.message}: the connection is closed`));
      return;
    }
    this.events.arrived(this);
  }

  private fail(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.events.closed(this, error);
  }

  trySend(): boolean {
    return false;
  }

  poll(): number {
    return 0;
  }

  bytesInFlight(): number {
    return 0;
  }

  close(): void {
    this.closed = true;
    this.socket.end();
  }
}
