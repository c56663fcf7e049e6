/**
 * The point-to-point engine of one rank (Open MPI's pml): it owns the rank's links, the matching
 * queues of every context, and the eager and rendezvous protocols.
 *
 * - Eager (message <= eager limit): one EAGER frame; the send completes once the frame is in the
 *   link. An unmatched eager message is copied into the unexpected queue.
 * - Rendezvous (larger): RTS -> (receive matches) -> CTS -> DATA frames streamed straight into the
 *   receive's buffer; the send completes when its last byte is in the link. Unexpected large
 *   messages cost only their announcement, never a buffer.
 *
 * Every link has a FIFO of frames that did not fit yet; a link's frames leave in order, so MPI's
 * order per (source, tag, context) holds. The endpoint never blocks: waiting belongs to the
 * {@link ProgressEngine}.
 */
import type { Settings } from '../config/tunables.js';
import { FRAME_SPLITTABLE, FRAME_UNORDERED, type InboundFrame, type Link, type LinkEvents } from '../transport/link.js';
import { copyBytes, copyOut } from '../transport/copy-bytes.js';
import type { Transport } from '../transport/transport.js';
import { PayloadKind, bytesOf, decodeValue, encodeValue, isRawKind, kindName, rawKindOf, viewAs, type Encoded } from './codec.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import {
  CTS_DISCARD,
  FRAME_HEADER_WORDS,
  FrameType,
  H_AUX,
  H_CONTEXT,
  H_LENGTH,
  H_SEQ,
  H_SOURCE,
  H_TAG,
  H_TOTAL,
  H_TYPE,
  frameKind,
  frameType,
  typeWord,
} from './frame-header.js';
import { ContextNames } from './context-names.js';
import { MatchQueues, ReceiveRequest, type IncomingMessage, type UnexpectedMessage } from './matching.js';
import type { Progress, ProgressHost } from '../transport/progress.js';
import { Request, type RequestDescription, type RequestDriver, type Status } from './request.js';

/** A frame waiting for room in its link. */
interface OutboundFrame {
  header: Int32Array;
  payload: Uint8Array | null;
  length: number;
  /** Completed once the frame is written (queued eager sends). */
  request: Request<unknown> | null;
  stream: null;
}

/** The data of a rendezvous send, streamed after its CTS. */
interface OutboundStream {
  header: null;
  payload: null;
  length: 0;
  request: null;
  stream: RendezvousSend;
}

type OutboundJob = OutboundFrame | OutboundStream;

/** A send whose bytes stream in DATA (after a CTS) or EAGER_DATA frames (pipelined eager). */
interface RendezvousSend {
  readonly id: number;
  readonly request: Request<unknown>;
  readonly bytes: Uint8Array;
  readonly peer: number;
  /** FrameType.Data or FrameType.EagerData. */
  dataType: number;
  /** Receiver request id (DATA) or this send's message id (EAGER_DATA). */
  receiverId: number;
  offset: number;
}

interface PeerState {
  readonly link: Link;
  queue: OutboundJob[];
  head: number;
  backlogged: boolean;
  /** Why the sending link closed: what is sent to the peer afterwards fails at once. */
  failed: TsmpiError | undefined;
}

export class Endpoint implements RequestDriver {
  readonly rank: number;
  readonly size: number;
  readonly engine: Progress;
  private readonly transport: Transport;
  private readonly settings: Settings;
  private readonly peers: (PeerState | undefined)[];
  private readonly polled: Link[] = [];
  private readonly backlog: PeerState[] = [];
  /** Matching queues by context id (ids are small integers handed out in order). */
  private readonly contexts: (MatchQueues | undefined)[] = [];
  private readonly sends = new Map<number, RendezvousSend>();
  private readonly receives = new Map<number, ReceiveRequest>();
  /** Pipelined eager messages being received, by sender world rank * 2^32 + message id. */
  private readonly incoming = new Map<number, IncomingMessage>();
  private readonly header = new Int32Array(FRAME_HEADER_WORDS);
  private readonly events: LinkEvents;
  private nextRequestId = 1;
  private writersSeen = 0;
  private pollCount = 0;
  private writersKnown = false;
  /** The next free context id this rank knows of (for dup/split agreement). */
  nextContext = 4;
  /** The communicators of this rank's contexts, by name (hang reports, errors). */
  readonly names = new ContextNames();
  /** Node of each world rank (the job's node map), for topology-aware planners; empty: one node. */
  nodeOfWorld: ArrayLike<number> = [];

  /** `progress` builds how this rank waits (and its clock) around the endpoint's polling. */
  constructor(transport: Transport, settings: Settings, progress: (host: ProgressHost) => Progress) {
    this.transport = transport;
    this.settings = settings;
    this.rank = transport.rank;
    this.size = transport.size;
    this.peers = new Array(transport.size);
    this.engine = progress(this);
    this.events = {
      frame: (link, frame) => this.onFrame(link, frame),
      drain: () => this.engine.kick(),
      arrived: () => {
        // Frames from a socket may have queued work (a CTS starts a stream): wake the loop for it.
        if (this.backlog.length > 0) this.engine.kick();
        this.engine.progressed();
      },
      closed: (link, error) => this.onLinkClosed(link, error),
    };
    transport.attach?.(this.events);
  }

  // ---- requests -------------------------------------------------------------------------------

  waitUntil(condition: () => boolean, description: RequestDescription): Promise<void> {
    return this.engine.waitUntil(condition, description);
  }

  cancel(request: Request<unknown>): boolean {
    const queues = this.contexts[request.context];
    if (queues === undefined || !queues.removePosted(request)) return false;
    request.fail(new TsmpiError(ErrorCode.Cancelled, 'the receive was cancelled', { rank: this.rank, operation: request.operation }));
    return true;
  }

  spinFor(request: Request<unknown>): void {
    this.engine.spinFor(request);
  }

  // ---- sending --------------------------------------------------------------------------------

  /**
   * Starts a send of `value` to world rank `dest` on `context`, as comm rank `source` with `tag`.
   * Typed arrays are sent from the caller's memory: do not change them until the request completes.
   */
  isend(context: number, dest: number, source: number, tag: number, value: unknown, operation: string, peerRank: number): Request<void> {
    const raw = rawKindOf(value);
    if (raw >= 0) return this.isendBytes(context, dest, source, tag, raw, bytesOf(value as ArrayBufferView), operation, peerRank);
    const encoded = encodeValue(value, this.rank, operation);
    return this.isendBytes(context, dest, source, tag, encoded.kind, encoded.bytes, operation, peerRank);
  }

  /** {@link isend} of a value encoded already (collectives encode once and send many times). */
  isendEncoded(context: number, dest: number, source: number, tag: number, encoded: Encoded, operation: string, peerRank: number): Request<void> {
    return this.isendBytes(context, dest, source, tag, encoded.kind, encoded.bytes, operation, peerRank);
  }

  private isendBytes(context: number, dest: number, source: number, tag: number, kind: number, bytes: Uint8Array, operation: string, peerRank: number): Request<void> {
    const request = new Request<void>(this, operation, peerRank, tag, context);
    const peer = this.peer(dest);
    if (peer.failed !== undefined) {
      // The link to that rank is gone (it exited or failed): a frame queued on it would wait for ever.
      request.fail(new TsmpiError(ErrorCode.Transport, peer.failed.detail, { rank: this.rank, operation, hint: peer.failed.hint }));
      return request;
    }
    const length = bytes.length;
    const header = this.header;
    header[H_CONTEXT] = context;
    header[H_SOURCE] = source;
    header[H_TAG] = tag;
    header[H_SEQ] = 0;
    const limits = peer.link.limits;
    const eagerLimit = limits.eagerLimit ?? this.settings.eagerLimit;
    if (length <= Math.min(eagerLimit, limits.maxFramePayload)) {
      header[H_TYPE] = typeWord(FrameType.Eager, kind);
      header[H_LENGTH] = length;
      header[H_TOTAL] = length;
      header[H_AUX] = 0;
      if (this.write(peer, header, bytes, length, request)) request.complete(undefined);
      return request;
    }
    const id = this.nextRequestId++;
    if (length <= eagerLimit) {
      // Pipelined eager: the match header and a first chunk now, the rest right behind it.
      // The first frame is delivered whole (it is matched): keep it small; the rest may come in pieces.
      const first = Math.min(this.settings.chunkBytes, limits.maxFramePayload);
      const send: RendezvousSend = { id, request, bytes, peer: dest, dataType: FrameType.EagerData, receiverId: id, offset: first };
      this.sends.set(id, send);
      this.engine.retain();
      header[H_TYPE] = typeWord(FrameType.Eager, kind);
      header[H_LENGTH] = first;
      header[H_TOTAL] = length;
      header[H_AUX] = id;
      this.write(peer, header, bytes, first, null);
      peer.queue.push({ header: null, payload: null, length: 0, request: null, stream: send });
      this.markBacklogged(peer);
      this.pump(peer);
      return request;
    }
    this.sends.set(id, { id, request, bytes, peer: dest, dataType: FrameType.Data, receiverId: 0, offset: 0 });
    this.engine.retain();
    header[H_TYPE] = typeWord(FrameType.Rts, kind);
    header[H_LENGTH] = 0;
    header[H_TOTAL] = length;
    header[H_AUX] = id;
    this.write(peer, header, null, 0, null);
    return request;
  }

  /** Writes a frame now or queues it behind the link's backlog; true when written now. */
  private write(peer: PeerState, header: Int32Array, payload: Uint8Array | null, length: number, request: Request<unknown> | null): boolean {
    if (!peer.backlogged && peer.link.trySend(header, payload, 0, length)) return true;
    peer.queue.push({ header: header.slice(), payload, length, request, stream: null });
    if (request !== null) this.engine.retain();
    this.markBacklogged(peer);
    return false;
  }

  private markBacklogged(peer: PeerState): void {
    if (!peer.backlogged) {
      peer.backlogged = true;
      this.backlog.push(peer);
    }
  }

  /** Writes as much of a peer's backlog as its link takes; true when it is now empty. */
  private pump(peer: PeerState): boolean {
    const link = peer.link;
    while (peer.head < peer.queue.length) {
      const job = peer.queue[peer.head]!;
      if (job.stream === null) {
        if (!link.trySend(job.header, job.payload, 0, job.length)) return false;
        if (job.request !== null) {
          job.request.complete(undefined);
          this.engine.countCompletion();
          this.engine.release();
        }
      } else if (!this.streamData(link, job.stream)) {
        return false;
      }
      peer.queue[peer.head++] = undefined as unknown as OutboundJob;
    }
    peer.queue = [];
    peer.head = 0;
    peer.backlogged = false;
    return true;
  }

  /** Streams DATA frames of a rendezvous send; true when all of it is written. */
  private streamData(link: Link, send: RendezvousSend): boolean {
    const header = this.header;
    const total = send.bytes.length;
    const chunk = this.chunkFor(link);
    // DATA lands by offset in a posted buffer: any order, any pieces. EAGER_DATA must follow its
    // EAGER frame (which creates the message it belongs to), so it keeps the link's order.
    header[H_TYPE] = send.dataType | FRAME_SPLITTABLE | (send.dataType === FrameType.Data ? FRAME_UNORDERED : 0);
    header[H_SEQ] = send.receiverId;
    while (send.offset < total) {
      const length = Math.min(chunk, total - send.offset);
      header[H_LENGTH] = length;
      header[H_TOTAL] = send.offset;
      if (!link.trySend(header, send.bytes, send.offset, length, true)) return false;
      send.offset += length;
    }
    // A link that writes straight from the caller's memory holds it until the bytes are out.
    if (link.whenReleased !== undefined) {
      link.whenReleased(() => {
        this.finishSend(send);
        // This runs from the socket's write callback, outside any poll: settle its waiter now.
        this.engine.progressed();
      });
    } else {
      this.finishSend(send);
    }
    return true;
  }

  /**
   * Bytes per DATA frame: TSMPI_CHUNK_BYTES through a ring (frames must fit it many times over);
   * a socket's full frame size otherwise (fewer, larger writes; the receiver takes pieces anyway).
   */
  private chunkFor(link: Link): number {
    return link.limits.polled ? Math.min(this.settings.chunkBytes, link.limits.maxFramePayload) : link.limits.maxFramePayload;
  }

  private finishSend(send: RendezvousSend): void {
    if (!this.sends.delete(send.id)) return;
    send.request.complete(undefined);
    this.engine.countCompletion();
    this.engine.release();
  }

  // ---- receiving ------------------------------------------------------------------------------

  /**
   * Posts a receive on `context` from comm rank `source` (or ANY_SOURCE) with `tag` (or ANY_TAG).
   * With `into`, the message's bytes land in it and the request yields a Status; without, the
   * request yields the decoded value, or with `encoded` its {@link Encoded} form (not decoded).
   */
  irecv(context: number, source: number, sourceWorld: number, tag: number, into: Uint8Array | null, operation: string, encoded = false): Request<unknown> {
    const posted = new ReceiveRequest(this, operation, source, tag, context, into, encoded, sourceWorld);
    const queues = this.queues(context);
    this.poll();
    const index = queues.findUnexpected(source, tag);
    if (index >= 0) {
      const message = queues.takeUnexpectedAt(index);
      if (message.incoming !== undefined) {
        // Still arriving: this receive takes it when its last byte is in.
        message.incoming.receiver = posted;
        message.incoming.entry = null;
        posted.peerWorld = message.peer;
      } else if (message.data !== null) this.deliverEager(posted, message.source, message.tag, message.kind, message.data, 0, message.bytes);
      else this.matchRendezvous(posted, message.source, message.tag, message.kind, message.bytes, message.peer, message.senderRequest);
    } else {
      queues.posted.push(posted);
    }
    return posted;
  }

  /** The status of the earliest unexpected message matching (source, tag), after one poll. */
  iprobe(context: number, source: number, tag: number): Status | undefined {
    this.poll();
    const queues = this.queues(context);
    const index = queues.findUnexpected(source, tag);
    if (index < 0) return undefined;
    const m: UnexpectedMessage = queues.unexpected.at(index);
    return { source: m.source, tag: m.tag, bytes: m.bytes };
  }

  private queues(context: number): MatchQueues {
    let queues = this.contexts[context];
    if (queues === undefined) {
      queues = new MatchQueues();
      this.contexts[context] = queues;
    }
    return queues;
  }

  private deliverEager(posted: ReceiveRequest, source: number, tag: number, kind: number, bytes: Uint8Array, offset: number, length: number): void {
    const request = posted;
    const status: Status = { source, tag, bytes: length };
    this.engine.countCompletion();
    if (posted.into !== null) {
      const error = this.checkInto(posted.into, kind, length, request.operation, source, tag);
      if (error !== undefined) {
        request.fail(error);
        return;
      }
      copyBytes(posted.into, 0, bytes, offset, length);
      request.complete(status, status);
      return;
    }
    if (posted.encoded) {
      request.complete({ kind, bytes: copyOut(bytes, offset, length) } satisfies Encoded, status);
      return;
    }
    try {
      request.complete(decodeValue(kind, bytes, offset, length), status);
    } catch (cause) {
      request.fail(new TsmpiError(ErrorCode.Encode, `cannot decode a ${kindName(kind)} message of ${length} bytes`, {
        rank: this.rank,
        operation: request.operation,
        hint: 'the sender and receiver must run the same tsmpi version',
        cause,
      }));
    }
  }

  private checkInto(into: Uint8Array, kind: number, length: number, operation: string, source: number, tag: number): TsmpiError | undefined {
    if (!isRawKind(kind)) {
      const what = kind === PayloadKind.String ? 'a string' : 'an object, array or other value';
      return new TsmpiError(ErrorCode.Type, `the message from rank ${source}, tag ${tag} is an encoded value (${what}), not a typed array's bytes`, {
        rank: this.rank,
        operation,
        hint: 'send it as a typed array, or receive it with recv(), which returns any value',
      });
    }
    if (length > into.length) {
      return new TsmpiError(ErrorCode.Truncate, `the ${length}-byte message from rank ${source}, tag ${tag} does not fit the ${into.length}-byte receive buffer`, {
        rank: this.rank,
        operation,
        hint: `pass a buffer of at least ${length} bytes, or probe() first and size the buffer from status.bytes`,
      });
    }
    return undefined;
  }

  private matchRendezvous(posted: ReceiveRequest, source: number, tag: number, kind: number, total: number, peer: number, senderRequest: number): void {
    const header = this.header;
    // A clear-to-send is found by the sender's request id: it need not queue behind other frames.
    header[H_TYPE] = FrameType.Cts | FRAME_UNORDERED;
    header[H_LENGTH] = 0;
    header[H_AUX] = senderRequest;
    if (posted.into !== null) {
      const error = this.checkInto(posted.into, kind, total, posted.operation, source, tag);
      if (error !== undefined) {
        header[H_SEQ] = CTS_DISCARD;
        this.write(this.peer(peer), header, null, 0, null);
        this.engine.countCompletion();
        posted.fail(error);
        return;
      }
    }
    posted.matchedSource = source;
    posted.matchedTag = tag;
    posted.peerWorld = peer;
    posted.kind = kind;
    posted.total = total;
    posted.received = 0;
    posted.dest = posted.into ?? new Uint8Array(total);
    const id = this.nextRequestId++;
    this.receives.set(id, posted);
    header[H_SEQ] = id;
    this.write(this.peer(peer), header, null, 0, null);
    if (total === 0) this.finishRendezvousReceive(id, posted);
  }

  private finishRendezvousReceive(id: number, posted: ReceiveRequest): void {
    this.receives.delete(id);
    this.engine.countCompletion();
    const status: Status = { source: posted.matchedSource, tag: posted.matchedTag, bytes: posted.total };
    if (posted.into !== null) {
      posted.complete(status, status);
      return;
    }
    const dest = posted.dest!;
    if (posted.encoded) {
      posted.complete({ kind: posted.kind, bytes: dest } satisfies Encoded, status);
      return;
    }
    try {
      const value = isRawKind(posted.kind) ? viewAs(posted.kind, dest) : decodeValue(posted.kind, dest, 0, dest.length);
      posted.complete(value, status);
    } catch (cause) {
      posted.fail(cause);
    }
  }

  // ---- frames ---------------------------------------------------------------------------------

  private onFrame(link: Link, frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const word0 = w[h + H_TYPE]!;
    switch (frameType(word0)) {
      case FrameType.Eager: {
        const context = w[h + H_CONTEXT]!;
        const source = w[h + H_SOURCE]!;
        const tag = w[h + H_TAG]!;
        const queues = this.queues(context);
        if (w[h + H_TOTAL]! > frame.payloadLength) {
          this.startIncoming(link.peer, w[h + H_AUX]!, queues, source, tag, frameKind(word0), w[h + H_TOTAL]!);
          this.onIncomingBytes(link.peer * 4294967296 + w[h + H_AUX]!, 0, frame);
          return;
        }
        const posted = queues.takePosted(source, tag);
        if (posted !== undefined) {
          this.deliverEager(posted, source, tag, frameKind(word0), frame.bytes, frame.payloadOffset, frame.payloadLength);
        } else {
          queues.unexpected.push({
            source,
            tag,
            kind: frameKind(word0),
            bytes: frame.payloadLength,
            data: copyOut(frame.bytes, frame.payloadOffset, frame.payloadLength),
            peer: link.peer,
            senderRequest: 0,
          });
        }
        return;
      }
      case FrameType.Rts: {
        const context = w[h + H_CONTEXT]!;
        const source = w[h + H_SOURCE]!;
        const tag = w[h + H_TAG]!;
        const total = w[h + H_TOTAL]!;
        const senderRequest = w[h + H_AUX]!;
        const queues = this.queues(context);
        const posted = queues.takePosted(source, tag);
        if (posted !== undefined) this.matchRendezvous(posted, source, tag, frameKind(word0), total, link.peer, senderRequest);
        else queues.unexpected.push({ source, tag, kind: frameKind(word0), bytes: total, data: null, peer: link.peer, senderRequest });
        return;
      }
      case FrameType.Cts: {
        const send = this.sends.get(w[h + H_AUX]!);
        if (send === undefined) return;
        const receiverId = w[h + H_SEQ]!;
        if (receiverId === CTS_DISCARD) {
          this.finishSend(send);
          return;
        }
        send.receiverId = receiverId;
        const peer = this.peer(link.peer);
        peer.queue.push({ header: null, payload: null, length: 0, request: null, stream: send });
        this.markBacklogged(peer);
        return;
      }
      case FrameType.Data: {
        const id = w[h + H_SEQ]!;
        const posted = this.receives.get(id);
        if (posted === undefined) return;
        const length = frame.payloadLength;
        copyBytes(posted.dest!, w[h + H_TOTAL]! + frame.pieceOffset, frame.bytes, frame.payloadOffset, length);
        posted.received += length;
        if (posted.received >= posted.total) this.finishRendezvousReceive(id, posted);
        return;
      }
      case FrameType.EagerData:
        this.onIncomingBytes(link.peer * 4294967296 + w[h + H_SEQ]!, w[h + H_TOTAL]! + frame.pieceOffset, frame);
        return;
      default:
        throw new TsmpiError(ErrorCode.Internal, `unknown frame type ${frameType(word0)} from rank ${link.peer}`, {
          rank: this.rank,
          operation: 'progress',
        });
    }
  }

  /** The first frame of a pipelined eager message: match it now, its bytes follow. */
  private startIncoming(peer: number, id: number, queues: MatchQueues, source: number, tag: number, kind: number, total: number): void {
    const key = peer * 4294967296 + id;
    const message: IncomingMessage = { key, source, tag, kind, total, peer, received: 0, dest: null, direct: false, receiver: null, entry: null };
    const posted = queues.takePosted(source, tag);
    if (posted !== undefined) {
      posted.peerWorld = peer;
      message.receiver = posted;
      if (posted.into !== null) {
        const error = this.checkInto(posted.into, kind, total, posted.operation, source, tag);
        if (error !== undefined) {
          // The receive fails now; the message's bytes are read and dropped as they come.
          this.engine.countCompletion();
          posted.fail(error);
          message.receiver = null;
        } else {
          message.dest = posted.into;
          message.direct = true;
        }
      } else {
        message.dest = new Uint8Array(total);
      }
    } else {
      message.dest = new Uint8Array(total);
      const entry: UnexpectedMessage = { source, tag, kind, bytes: total, data: message.dest, peer, senderRequest: 0, incoming: message };
      message.entry = entry;
      queues.unexpected.push(entry);
    }
    this.incoming.set(key, message);
  }

  /** Bytes of a pipelined eager message at `offset`; delivers it when the last one is in. */
  private onIncomingBytes(key: number, offset: number, frame: InboundFrame): void {
    const message = this.incoming.get(key);
    if (message === undefined) return;
    if (message.dest !== null) copyBytes(message.dest, offset, frame.bytes, frame.payloadOffset, frame.payloadLength);
    message.received += frame.payloadLength;
    if (message.received < message.total) return;
    this.incoming.delete(key);
    if (message.entry !== null) message.entry.incoming = undefined; // complete, still unexpected
    const receiver = message.receiver;
    if (receiver === null || message.dest === null) return;
    if (message.direct) {
      const status: Status = { source: message.source, tag: message.tag, bytes: message.total };
      this.engine.countCompletion();
      receiver.complete(status, status);
      return;
    }
    receiver.matchedSource = message.source;
    receiver.matchedTag = message.tag;
    if (receiver.into === null && !receiver.encoded && isRawKind(message.kind) && message.kind !== PayloadKind.Number) {
      // Our own freshly allocated buffer becomes the received array: no second copy.
      this.engine.countCompletion();
      const status: Status = { source: message.source, tag: message.tag, bytes: message.total };
      receiver.complete(viewAs(message.kind, message.dest), status);
      return;
    }
    this.deliverEager(receiver, message.source, message.tag, message.kind, message.dest, 0, message.total);
  }

  /**
   * A link failed or its peer went away: everything this rank still expects from or owes to that
   * peer fails with ERR_TRANSPORT (a receive from any source keeps waiting: another rank may match
   * it). A peer that finished cleanly and owes nothing costs nothing.
   */
  private onLinkClosed(link: Link, error: Error | undefined): void {
    const peerRank = link.peer;
    // A closed sending connection loses what we owe the peer; a closed receiving one (after its
    // last frame was delivered) what we expect from it. A ring pair carries both.
    const sends = link.direction !== 'receive';
    const receives = link.direction !== 'send';
    const reason = error?.message ?? 'the connection closed';
    const failure = (operation: string): TsmpiError =>
      new TsmpiError(ErrorCode.Transport, `the link to world rank ${peerRank} failed: ${reason}`, {
        rank: this.rank,
        operation,
        hint: `world rank ${peerRank} exited or failed: look for its error above`,
      });
    for (const send of [...this.sends.values()]) {
      if (!sends || send.peer !== peerRank) continue;
      this.sends.delete(send.id);
      send.request.fail(failure(send.request.operation));
      this.engine.release();
    }
    for (const [id, posted] of [...this.receives]) {
      if (!receives || posted.peerWorld !== peerRank) continue;
      this.receives.delete(id);
      posted.fail(failure(posted.operation));
    }
    for (const [key, message] of [...this.incoming]) {
      if (!receives || message.peer !== peerRank) continue;
      this.incoming.delete(key);
      message.receiver?.fail(failure(message.receiver.operation));
      if (message.entry !== null) {
        const queues = this.contexts.find((q) => q !== undefined && q.unexpected.indexOf(message.entry!) >= 0);
        if (queues !== undefined) queues.unexpected.removeAt(queues.unexpected.indexOf(message.entry));
      }
    }
    const peer = this.peers[peerRank];
    if (sends && peer !== undefined && peer.link === link) peer.failed = failure('send');
    if (sends && peer !== undefined) {
      for (let i = peer.head; i < peer.queue.length; i++) {
        const job = peer.queue[i]!;
        if (job.request !== null) {
          job.request.fail(failure(job.request.operation));
          this.engine.release();
        }
      }
      peer.queue = [];
      peer.head = 0;
    }
    for (const queues of this.contexts) {
      if (!receives || queues === undefined) continue;
      for (const posted of queues.posted.removeWhere((p) => p.peerWorld === peerRank)) posted.fail(failure(posted.operation));
    }
    this.engine.kick();
  }

  /** Links this rank has created (one per peer it has talked to, itself included). */
  linkCount(): number {
    let n = 0;
    for (const p of this.peers) if (p !== undefined) n++;
    return n;
  }

  /** Opens the link to every peer now (TSMPI_TCP_CONNECT=eager) instead of on first use. */
  connectAll(): void {
    for (let r = 0; r < this.size; r++) this.peer(r);
  }

  /** Resolves when every send this rank started has left it (finalize). */
  flush(): Promise<void> {
    return this.engine.waitUntil(() => this.sends.size === 0 && this.backlog.length === 0, {
      operation: 'finalize',
      peer: -1,
      tag: -1,
      context: -1,
    });
  }

  // ---- progress -------------------------------------------------------------------------------

  private peer(rank: number): PeerState {
    let peer = this.peers[rank];
    if (peer === undefined) {
      const link = this.transport.createLink(rank, this.events);
      peer = { link, queue: [], head: 0, backlogged: false, failed: undefined };
      this.peers[rank] = peer;
      if (rank === this.rank) this.polled.push(link);
    }
    return peer;
  }

  /** Polls once: new writers, backlogged links, inbound frames. True when anything progressed. */
  poll(): boolean {
    // A peer's first frame is rare: look for new writers on every 16th poll only (an atomic load
    // of a line other ranks write to costs more than polling a known ring).
    return this.pollLinks((++this.pollCount & 15) === 0);
  }

  /** Polls everything, new writers included (the last look before the rank sleeps). */
  pollFully(): boolean {
    return this.pollLinks(true);
  }

  private pollLinks(lookForWriters: boolean): boolean {
    let progressed = false;
    if ((lookForWriters || !this.writersKnown) && (!this.writersKnown || (this.transport.writerCount?.() ?? 0) !== this.writersSeen)) {
      this.discoverWriters();
    }
    if (this.backlog.length > 0) {
      let kept = 0;
      for (let i = 0; i < this.backlog.length; i++) {
        const peer = this.backlog[i]!;
        const before = peer.head;
        if (!this.pump(peer)) this.backlog[kept++] = peer;
        if (peer.head !== before || !peer.backlogged) progressed = true;
      }
      this.backlog.length = kept;
    }
    const polled = this.polled;
    for (let i = 0; i < polled.length; i++) if (polled[i]!.poll() > 0) progressed = true;
    return progressed;
  }

  private discoverWriters(): void {
    this.writersSeen = this.transport.writerCount?.() ?? 0;
    this.writersKnown = this.transport.discoverWriters((peer) => {
      const state = this.peer(peer);
      if (peer !== this.rank) this.polled.push(state.link);
    });
  }
}
