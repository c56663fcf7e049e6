/**
 * The Link contract: one rail to one peer.
 *
 * Lifecycle
 * ---------
 * 1. A transport's factory creates a link for (this rank, peer) when the peer is first used
 *    (or eagerly, where the transport wants it), handing it the {@link LinkEvents} of the
 *    endpoint that owns it. Creating a link costs nothing on the peer until the first frame.
 * 2. `trySend` writes one frame (a header of {@link FRAME_HEADER_WORDS} Int32 words and a
 *    payload) if there is room now and returns true; otherwise it returns false and writes
 *    nothing, and the link calls `events.drain(link)` (or its owner polls) when room appears.
 *    A frame's payload is at most `limits.maxFramePayload` bytes. Frames on a link arrive in the
 *    order they were sent. A link may hold back frames flagged FRAME_BURST until the rank's
 *    next poll or the end of its current job (shared-memory rings and sockets: publish-batch.ts).
 *    The header is read during the call only (callers reuse one scratch header). Once
 *    `trySend` returns true the caller may reuse the payload memory,
 *    unless it passed `borrow`: then the link may keep reading it (a socket writing straight
 *    from it, with no copy) until `whenReleased` calls back.
 * 3. Received frames are handed to `events.frame(link, frame)`. The {@link InboundFrame} and the
 *    bytes it points at are only valid during that call: copy what you keep (or, on a link whose
 *    `limits.keepsFrames` is set, return true to keep the frame in place until `releaseKept()`). Links that need
 *    polling (shared-memory rings) deliver from `poll()`; event-driven links (sockets, the
 *    simulator) deliver from their own events, return 0 from `poll()`, and call
 *    `events.arrived(link)` after a batch so a sleeping rank re-checks what it waits for.
 * 4. `close(reason)` ends the link; a link that fails calls `events.closed(link, error)`.
 *
 * Rules of progress: a link never blocks and never spins; waiting is the progress engine's job.
 * Nothing above a link switches on what kind of link it is: it reads `limits`.
 */

/**
 * Header words of every frame. Their meaning is the protocol's (comm/frame-header.ts), except the
 * top bits of word 0, which are the links' own: the flags below. The protocol's word 0 keeps to
 * bits 0-15.
 */
export const FRAME_HEADER_WORDS = 8;
export const FRAME_HEADER_BYTES = FRAME_HEADER_WORDS * 4;
/**
 * A flag in header word 0: the frame's payload may reach the receiver in pieces (each with its
 * `pieceOffset`), so a link may hand bytes on as they arrive instead of assembling the frame.
 */
export const FRAME_SPLITTABLE = 1 << 30;
/**
 * A flag in header word 0: the frame need not arrive in order with the link's other frames (its
 * receiver places it by its own fields). A link may deliver it as soon as it arrives, and a link
 * over several rails may cut a frame that is also SPLITTABLE into pieces on all of them.
 */
export const FRAME_UNORDERED = 1 << 29;
/**
 * A flag in header word 0: a frame a link layer exchanges with its peer layer (a multi-rail
 * link's segments and acknowledgements), which owns the rest of its header. It never reaches
 * the layer above the link; that layer never sets it.
 */
export const FRAME_LINK = 1 << 28;
/**
 * A flag in header word 0: the frame only coordinates a transfer (a rendezvous' request to send
 * and clear to send) and carries no message bytes. Real links send it like any other; a
 * simulated network that models matching as SimGrid does (a transfer begins once both sides are
 * posted, with no handshake on the wire) delivers it without network time.
 */
export const FRAME_HANDSHAKE = 1 << 27;
/**
 * A flag in header word 0: the program may send more right behind this frame (its nonblocking
 * send). A link may hold it back, with the frames after it, until the rank's next poll or the end
 * of its current job, and publish them at once (shared-memory rings and sockets: publish-batch.ts).
 */
export const FRAME_BURST = 1 << 26;

/** What a link says about itself; upper layers decide from these numbers, never from its kind. */
export interface LinkLimits {
  /** Largest payload of one frame, in bytes. */
  readonly maxFramePayload: number;
  /**
   * Messages up to this size go eagerly, pipelined over several frames when larger than one; larger
   * ones wait for their receive (rendezvous). Undefined: the endpoint's TSMPI_EAGER_LIMIT, capped
   * at one frame (shared memory, where a receiver must not buffer large unexpected messages).
   */
  readonly eagerLimit?: number;
  /** One-way latency estimate, seconds. */
  readonly latency: number;
  /** Bandwidth estimate, bytes per second. */
  readonly bandwidth: number;
  /** True when the link must be polled to receive (shared memory). */
  readonly polled: boolean;
  /**
   * Eager payloads at least this large may be passed with `borrow`: the link lets go of them once
   * the operating system has them (`whenReleased`), which completes a send locally, as a copy
   * would. Undefined: eager payloads are copied (the link would hold them until they arrive).
   */
  readonly borrowEagerFrom?: number;
  /**
   * Eager payloads larger than this go as a matched first frame of this size and the rest as frames
   * the link may deliver in pieces (FRAME_SPLITTABLE), so the receiver copies them into the
   * receive while they arrive rather than after the whole message is in. Undefined: one frame
   * when the payload fits one.
   */
  readonly splitEagerFrom?: number;
  /**
   * The frame handler may keep a frame where it lies (`events.frame` returns FrameVerdict.Keep): the link then
   * delivers nothing behind it, and the frame's bytes stay valid, until `releaseKept()`. A
   * receiver keeps an unexpected message in a ring this way and copies it once, straight into the
   * receive that takes it, instead of into a buffer first.
   */
  readonly keepsFrames?: boolean;
  /**
   * The peer runs in this process: it can read the process's shared allocations
   * (transport/shared-memory.ts), so a large message sent from one may be copied straight out of
   * the sender's memory by the receiver instead of streaming through the link.
   */
  readonly sharesMemory?: boolean;
}

/** A received frame. Reused by the link for every frame: valid only inside `events.frame`. */
export interface InboundFrame {
  /** Int32 view holding the header words at `headerIndex .. headerIndex + 7`. */
  words: Int32Array;
  headerIndex: number;
  /** Byte view holding the payload at `payloadOffset .. payloadOffset + payloadLength`. */
  bytes: Uint8Array;
  payloadOffset: number;
  payloadLength: number;
  /** Where these bytes sit in the frame's payload (0 unless a FRAME_SPLITTABLE frame came in pieces). */
  pieceOffset: number;
}

/** What a frame handler asks of the link that delivered the frame (LinkEvents.frame). */
export const enum FrameVerdict {
  /** Done with the frame: free it and go on. */
  Next = 0,
  /** Keep the frame where it lies (links whose `limits.keepsFrames` is set; see there). */
  Keep = 1,
  /**
   * Done with the frame; deliver nothing more in this poll. A link that leaves frames in place
   * (a ring) leaves the ones behind it for the next poll; others may ignore it.
   */
  Stop = 2,
}

export interface LinkEvents {
  /** A frame, and what the link is to do next (nothing returned: FrameVerdict.Next). */
  frame(link: Link, frame: InboundFrame): FrameVerdict | void;
  /**
   * An event-driven link from a peer opened (an accepted socket, authenticated): its frames will
   * come, and its close after them. Called before its first frame.
   */
  opened?(link: Link): void;
  /** Event-driven links: frames were delivered outside poll(). */
  arrived(link: Link): void;
  /** Room appeared after a refused `trySend` (event-driven links; polled links are re-tried). */
  drain(link: Link): void;
  closed(link: Link, error: Error | undefined): void;
}

export interface Link {
  /** World rank of the other end. */
  readonly peer: number;
  /**
   * Which way frames go: a socket link carries one direction (each rank sends on its own
   * connection), a ring pair both. When a link closes, only what travels its way is lost.
   */
  readonly direction?: 'send' | 'receive';
  readonly limits: LinkLimits;
  /**
   * Writes a frame if there is room now. `header` holds {@link FRAME_HEADER_WORDS} words; the
   * payload is `payload[offset .. offset + length)` (or nothing when `payload` is null).
   */
  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number, borrow?: boolean): boolean;
  /** Calls `fn` once no payload passed with `borrow` is referenced any more (links that borrow). */
  whenReleased?(fn: () => void): void;
  /** Delivers frames that have arrived; returns how many. */
  poll(): number;
  /** Frees the frame the handler kept (`limits.keepsFrames`): the frames behind it come again. */
  releaseKept?(): void;
  /**
   * The next frame from the peer, not delivered (links that leave frames in place): undefined
   * when none is there or one is kept. It stays until {@link takePeeked} or the next poll.
   */
  peekFrame?(): InboundFrame | undefined;
  /** Frees the frame {@link peekFrame} gave, its receiver done with it. */
  takePeeked?(): void;
  /** Bytes sent and not yet taken by the peer (queue depth for policies). */
  bytesInFlight(): number;
  close(reason?: string): void;
  /**
   * Drops the link at once, discarding what it still holds (a rail given up as failed: its
   * frames are sent again elsewhere). Links without it are closed instead.
   */
  abort?(reason: string): void;
}
