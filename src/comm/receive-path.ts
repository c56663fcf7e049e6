/**
 * The receiving side of the point-to-point engine (ob1's recvreq and recvfrag): the matching
 * queues of every context, eager messages (delivered into the matched receive, or copied into the
 * unexpected queue), pipelined eager messages arriving over several frames, and rendezvous
 * announcements (a match answers with a clear-to-send; the DATA frames then land straight in the
 * receive's buffer). Unexpected large messages cost only their announcement, never a buffer.
 */
import type { RankTrace } from '../trace/rank-trace.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { copyBytes, copyInto, copyOut } from '../transport/copy-bytes.js';
import { FrameVerdict, type InboundFrame, type Link } from '../transport/link.js';
import type { Progress } from '../transport/progress.js';
import { PayloadKind, decodeValue, isRawKind, kindName, viewAs, type Encoded } from './codec.js';
import { sharedAllocation } from '../transport/shared-memory.js';
import { CANCEL_REPLY_WORD, CTS_DISCARD, CTS_PULLED, PULL_REFERENCE_BYTES, readPullReference, FRAME_HEADER_WORDS, CTS_WORD, FrameType, H_AUX, H_CONTEXT, H_LENGTH, H_SEQ, H_SOURCE, H_TAG, H_TOTAL, H_TYPE, frameKind, frameType } from './frame-header.js';
import { MatchQueues, ReceiveRequest, type IncomingMessage, type RendezvousReceive, type UnexpectedMessage } from './matching.js';
import type { Request, RequestDriver } from './request.js';
import type { ScratchPool } from './scratch-pool.js';
import { Status } from './status.js';

/** What the receive path needs of its endpoint. */
export interface ReceivePathHost {
  readonly rank: number;
  readonly engine: Progress;
  readonly driver: RequestDriver;
  /** Polls the links once (a receive first looks at what has arrived). */
  poll(): void;
  /** Sends a payload-less frame to world rank `peer` (a clear-to-send). */
  control(peer: number, header: Int32Array): void;
  /** The rank's scratch buffers: unexpected eager payloads wait in them. */
  readonly scratch: ScratchPool;
}

/**
 * Unexpected payloads larger than this wait in a buffer of the scratch pool; smaller ones in a
 * fresh array, which V8 allocates on its own heap. A fresh ArrayBuffer per larger message (a
 * backing store from the allocator, and external memory that drives the collector) doubled the
 * time of a 2-rank exchange of 32 KiB messages (`npm run bench -- exchange`).
 */
const POOLED_UNEXPECTED_BYTES = 64;
/**
 * Values from this many bytes on are built through the engine's `building` (the simulator times
 * them): a smaller one costs about what the link's receive cost already holds.
 */
const BUILT_FROM = 4096;

export class ReceivePath {
  private readonly host: ReceivePathHost;
  /** The rank's timeline recorder, when tracing. */
  tracer: RankTrace | undefined = undefined;
  /** Matching queues by context id (ids are small integers handed out in order). */
  private readonly contexts: (MatchQueues | undefined)[] = [];
  /** Rendezvous receives whose data is on its way, by the id their clear-to-send carried. */
  private readonly receives = new Map<number, RendezvousReceive>();
  /** Pipelined eager messages being received, by sender world rank * 2^32 + message id. */
  private readonly incoming = new Map<number, IncomingMessage>();
  private readonly header = new Int32Array(FRAME_HEADER_WORDS);
  private nextReceiveId = 1;
  /** Messages (and their bytes) copied straight out of a sender's shared allocation. */
  pulledMessages = 0;
  pulledBytes = 0;
  /** Unexpected messages whose frames their links keep in place (at most one per link). */
  private readonly kept: UnexpectedMessage[] = [];
  /**
   * True during the poll a receive makes as it is posted: an unexpected eager frame on a link
   * that can keep frames stays where it is, for this receive or the next one to copy straight
   * from (one copy instead of two, and no buffer). Any other poll first copies kept frames out
   * ({@link releaseKept}): a rank that waits, tests or sleeps needs what lies behind them.
   */
  keeping = false;
  /**
   * The receive whose post-time poll runs: once a frame completes it, the poll stops, and the
   * frames behind it stay in their ring for the receives posted next (a window of receives
   * behind a sender that ran ahead took each message through an unexpected record and a copy).
   */
  private posting: ReceiveRequest | null = null;
  /**
   * Above 0 while the endpoint runs work from inside a poll (nonblocking collectives' steps): a
   * receive posted there keeps nothing, since the poll's caller may be about to sleep.
   */
  insidePoll = 0;
  /** Receives {@link receiveNow} was asked for (every eighth goes the posted way). */
  private receivedNow = 0;

  constructor(host: ReceivePathHost) {
    this.host = host;
  }

  /**
   * Posts a receive on `context` from comm rank `source` (or ANY_SOURCE) with `tag` (or ANY_TAG).
   * With `into`, the message's bytes land in it and the request yields a Status; without, the
   * request yields the decoded value, or with `encoded` its {@link Encoded} form (not decoded).
   */
  irecv(context: number, source: number, sourceWorld: number, tag: number, into: Uint8Array | null, operation: string, encoded = false): Request<unknown> {
    const posted = new ReceiveRequest(this.host.driver, operation, source, tag, context, into, encoded, sourceWorld);
    const queues = this.queues(context);
    // What arrived before the receive matches first, in arrival order.
    const index = queues.findUnexpected(source, tag);
    if (index >= 0) {
      this.takeMessage(posted, queues.takeUnexpectedAt(index));
      return posted;
    }
    // A receive posted behind a pending one that takes the same sender's messages skips the poll:
    // what it could match waits in the ring behind that one's message, and the wait that completes
    // that one drains the ring in a batch (a window of receives then polls once, not once each).
    const poll = !queues.posted.pendingFrom(source);
    // Posted before its poll: a frame for it still in the ring goes straight into it, without an
    // unexpected record and a copy on the way (half the messages of a 2-rank exchange loop
    // arrive just before their receive).
    queues.posted.push(posted);
    if (poll) {
      this.keeping = this.insidePoll === 0;
      this.posting = this.keeping ? posted : null;
      this.host.poll();
      this.keeping = false;
      this.posting = null;
    }
    return posted;
  }

  /**
   * A receive of a small message from `source` with `tag` (neither a wildcard) into `into`, taken
   * straight from `link` when it is the next frame there and nothing else could take it (no
   * receive posted for that source, no earlier message of it waiting, no timeline): its length in
   * bytes, the bytes in `into`; -1 when it must be posted ({@link irecv}). A bcast leaf's receive
   * made a request, a status and a poll of every link for a message that was there already. One
   * call in eight goes the posted way, so that the rank's other links are still polled in a loop
   * of such receives.
   */
  receiveNow(link: Link, context: number, source: number, tag: number, into: Uint8Array): number {
    return this.receiveSoon(link, context, source, tag, into, 1);
  }

  /**
   * {@link receiveNow}, looking at the link up to `looks` times while it has no frame: a
   * program's receive whose message is on its way (a ping-pong's reply) takes it as it lands,
   * without the request, posting, poll of every link and matching that a posted receive costs.
   * A frame that is not the message ends the looking (-1: post the receive).
   */
  receiveSoon(link: Link, context: number, source: number, tag: number, into: Uint8Array, looks: number): number {
    if (this.tracer !== undefined || link.peekFrame === undefined || (++this.receivedNow & 7) === 0) return -1;
    const queues = this.contexts[context];
    if (queues !== undefined && (queues.posted.pendingFrom(source) || queues.findUnexpected(source, tag) >= 0)) return -1;
    let frame = link.peekFrame();
    for (let look = 1; frame === undefined && look < looks; look++) frame = link.peekFrame();
    if (frame === undefined) return -1;
    const w = frame.words;
    const h = frame.headerIndex;
    const word0 = w[h + H_TYPE]!;
    const length = frame.payloadLength;
    if (frameType(word0) !== FrameType.Eager || w[h + H_CONTEXT] !== context || w[h + H_SOURCE] !== source || w[h + H_TAG] !== tag || w[h + H_TOTAL] !== length) return -1;
    if (!isRawKind(frameKind(word0)) || length > into.length) return -1;
    copyInto(into, 0, frame.bytes, frame.payloadOffset, length);
    link.takePeeked!();
    this.host.engine.countCompletion();
    return length;
  }

  /**
   * Takes the earliest unexpected message matching (source, tag) out of the queue, after one poll
   * (a matched probe: no other receive can match it now); undefined when none has arrived.
   */
  takeProbed(context: number, source: number, tag: number): UnexpectedMessage | undefined {
    this.host.poll();
    const queues = this.queues(context);
    const index = queues.findUnexpected(source, tag);
    if (index < 0) return undefined;
    const message = queues.takeUnexpectedAt(index);
    // The program holds a matched probe's message as long as it likes: its link must not wait.
    if (message.keptBy !== undefined) this.copyKept(message);
    return message;
  }

  /** Receives a message a matched probe took (see {@link takeProbed}); arguments as {@link irecv}. */
  receiveProbed(message: UnexpectedMessage, context: number, into: Uint8Array | null, operation: string, encoded = false): Request<unknown> {
    const posted = new ReceiveRequest(this.host.driver, operation, message.source, message.tag, context, into, encoded, message.peer);
    if (message.incoming !== undefined && !this.incoming.has(message.incoming.key)) {
      // Its sender's link failed while the message was still arriving.
      posted.fail(new TsmpiError(ErrorCode.Transport, `the message from rank ${message.source} was cut off: its sender's link closed`, { rank: this.host.rank, operation }));
      return posted;
    }
    this.takeMessage(posted, message);
    return posted;
  }

  /** A receive takes an unexpected message: deliver it, answer its announcement, or wait for its last bytes. */
  private takeMessage(posted: ReceiveRequest, message: UnexpectedMessage): void {
    this.tracer?.matched(message.peer, message.sequence, message.bytes);
    if (message.incoming !== undefined) {
      // Still arriving: this receive takes it when its last byte is in.
      message.incoming.receiver = posted;
      message.incoming.entry = null;
      posted.peerWorld = message.peer;
    } else if (message.data !== null) {
      // Delivery copies or decodes the payload: nothing holds `data` afterwards.
      this.deliverEager(posted, message.source, message.tag, message.kind, message.data, 0, message.bytes);
      if (message.keptBy !== undefined) this.releaseKeptOne(message);
      else if (message.pooled === true) this.host.scratch.give(message.data.buffer as ArrayBuffer);
    } else this.matchRendezvous(posted, message.source, message.tag, message.kind, message.bytes, message.peer, message.senderRequest, message.pullKey ?? -1, message.pullOffset ?? 0);
  }

  /** The status of the earliest unexpected message matching (source, tag), after one poll. */
  iprobe(context: number, source: number, tag: number): Status | undefined {
    this.host.poll();
    const queues = this.queues(context);
    const index = queues.findUnexpected(source, tag);
    if (index < 0) return undefined;
    const m: UnexpectedMessage = queues.unexpected.at(index);
    return new Status(m.source, m.tag, m.bytes);
  }

  /**
   * Withdraws a posted receive that has not matched, failing it with `error` (a cancellation by
   * default); false when it has matched (or is not a receive).
   */
  cancel(request: Request<unknown>, error?: TsmpiError): boolean {
    const queues = this.contexts[request.context];
    if (queues === undefined || !queues.removePosted(request)) return false;
    request.fail(error ?? new TsmpiError(ErrorCode.Cancelled, 'the receive was cancelled', { rank: this.host.rank, operation: request.operation }));
    return true;
  }

  /**
   * Drops the matching queues of a context whose communicator was freed, when nothing waits in
   * them; true when dropped (a receive still posted or a message not yet received keeps them).
   */
  forget(context: number): boolean {
    const queues = this.contexts[context];
    if (queues === undefined) return true;
    if (queues.posted.length > 0 || queues.unexpected.length > 0) return false;
    this.contexts[context] = undefined;
    return true;
  }

  private queues(context: number): MatchQueues {
    let queues = this.contexts[context];
    if (queues === undefined) {
      queues = new MatchQueues();
      this.contexts[context] = queues;
    }
    return queues;
  }

  // ---- frames ---------------------------------------------------------------------------------

  /**
   * An EAGER frame: a whole message, or the first frame of a pipelined one. Keep: its link is to
   * keep it ({@link keeping}); Stop: it completed the receive being posted ({@link posting}).
   */
  onEager(link: Link, frame: InboundFrame): FrameVerdict {
    const w = frame.words;
    const h = frame.headerIndex;
    const word0 = w[h + H_TYPE]!;
    const context = w[h + H_CONTEXT]!;
    const source = w[h + H_SOURCE]!;
    const tag = w[h + H_TAG]!;
    const queues = this.queues(context);
    if (w[h + H_TOTAL]! > frame.payloadLength) {
      this.startIncoming(link.peer, w[h + H_AUX]!, queues, source, tag, frameKind(word0), w[h + H_TOTAL]!, w[h + H_SEQ]!);
      this.onIncomingBytes(link.peer * 4294967296 + w[h + H_AUX]!, 0, frame);
      return FrameVerdict.Next;
    }
    const posted = queues.takePosted(source, tag);
    if (posted !== undefined) {
      this.tracer?.matched(link.peer, w[h + H_SEQ]!, frame.payloadLength);
      this.deliverEager(posted, source, tag, frameKind(word0), frame.bytes, frame.payloadOffset, frame.payloadLength);
      if (posted === this.posting) return FrameVerdict.Stop;
    } else {
      const length = frame.payloadLength;
      // A small payload is copied out at once (onto V8's heap, cheaply): keeping it would stop the
      // poll at every frame of a burst, one receive per poll.
      const keep = this.keeping && length > POOLED_UNEXPECTED_BYTES && link.limits.keepsFrames === true;
      const message: UnexpectedMessage = {
        source,
        tag,
        kind: frameKind(word0),
        bytes: length,
        data: keep ? frame.bytes.subarray(frame.payloadOffset, frame.payloadOffset + length) : this.copyOfPayload(frame.bytes, frame.payloadOffset, length),
        pooled: !keep && length > POOLED_UNEXPECTED_BYTES,
        keptBy: keep ? link : undefined,
        peer: link.peer,
        senderRequest: 0,
        sequence: w[h + H_SEQ]!,
      };
      queues.unexpected.push(message);
      if (keep) {
        this.kept.push(message);
        return FrameVerdict.Keep;
      }
    }
    return FrameVerdict.Next;
  }

  /** A copy of an unexpected payload: in a pooled buffer when large enough (see POOLED_UNEXPECTED_BYTES). */
  private copyOfPayload(bytes: Uint8Array, offset: number, length: number): Uint8Array {
    const data = length > POOLED_UNEXPECTED_BYTES ? new Uint8Array(this.host.scratch.takeExact(length)) : new Uint8Array(length);
    copyBytes(data, 0, bytes, offset, length);
    return data;
  }

  /**
   * Before a poll: unless it is a receive's own, copies every kept unexpected message out of its
   * link's frame and lets the links go on.
   */
  beforePoll(): void {
    if (this.kept.length > 0 && !this.keeping) this.releaseKept();
  }

  private releaseKept(): void {
    const kept = this.kept;
    for (let i = 0; i < kept.length; i++) this.copyKept(kept[i]!, false);
    kept.length = 0;
  }

  /** Moves a kept message's bytes into a buffer of its own and frees its link's frame. */
  private copyKept(message: UnexpectedMessage, unlist = true): void {
    const link = message.keptBy!;
    const data = message.data!;
    message.data = this.copyOfPayload(data, 0, data.length);
    message.pooled = data.length > POOLED_UNEXPECTED_BYTES;
    message.keptBy = undefined;
    if (unlist) this.unlistKept(message);
    link.releaseKept!();
  }

  /** A kept message was delivered from its frame: free the frame. */
  private releaseKeptOne(message: UnexpectedMessage): void {
    const link = message.keptBy!;
    message.keptBy = undefined;
    this.unlistKept(message);
    link.releaseKept!();
  }

  private unlistKept(message: UnexpectedMessage): void {
    const kept = this.kept;
    const at = kept.indexOf(message);
    if (at >= 0) kept.splice(at, 1);
  }

  /** An RTS: a large message announced; matched now, or kept as an announcement. */
  onRts(link: Link, frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const context = w[h + H_CONTEXT]!;
    const source = w[h + H_SOURCE]!;
    const tag = w[h + H_TAG]!;
    const total = w[h + H_TOTAL]!;
    const senderRequest = w[h + H_AUX]!;
    const kind = frameKind(w[h + H_TYPE]!);
    // The sender's shared memory the message lies in, when it names it.
    const pull = frame.payloadLength >= PULL_REFERENCE_BYTES ? readPullReference(frame.bytes, frame.payloadOffset) : undefined;
    const queues = this.queues(context);
    const posted = queues.takePosted(source, tag);
    if (posted !== undefined) {
      this.tracer?.matched(link.peer, w[h + H_SEQ]!, total);
      this.matchRendezvous(posted, source, tag, kind, total, link.peer, senderRequest, pull?.key ?? -1, pull?.byteOffset ?? 0);
    } else {
      const entry: UnexpectedMessage = { source, tag, kind, bytes: total, data: null, peer: link.peer, senderRequest, sequence: w[h + H_SEQ]! };
      if (pull !== undefined) {
        entry.pullKey = pull.key;
        entry.pullOffset = pull.byteOffset;
      }
      queues.unexpected.push(entry);
    }
  }

  /**
   * A sender cancels a send it announced: withdraw the announcement if no receive (nor a matched
   * probe) has taken it, and tell the sender which it was.
   */
  onCancel(link: Link, frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const senderRequest = w[h + H_AUX]!;
    const unexpected = this.queues(w[h + H_CONTEXT]!).unexpected;
    let withdrawn = 0;
    for (let i = 0; i < unexpected.length; i++) {
      const m = unexpected.at(i);
      if (m.peer === link.peer && m.data === null && m.senderRequest === senderRequest) {
        unexpected.removeAt(i);
        withdrawn = 1;
        break;
      }
    }
    const header = this.header;
    header[H_TYPE] = CANCEL_REPLY_WORD;
    header[H_LENGTH] = 0;
    header[H_SEQ] = withdrawn;
    header[H_AUX] = senderRequest;
    this.host.control(link.peer, header);
  }

  /** Bytes of a rendezvous message, at their offset in the receive's buffer. */
  onData(frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const id = w[h + H_SEQ]!;
    const receive = this.receives.get(id);
    if (receive === undefined) return;
    const length = frame.payloadLength;
    copyInto(receive.dest, w[h + H_TOTAL]! + frame.pieceOffset, frame.bytes, frame.payloadOffset, length);
    receive.received += length;
    if (receive.received >= receive.total) this.finishRendezvousReceive(id, receive);
  }

  /** Bytes of a pipelined eager message after its first frame. */
  onEagerData(link: Link, frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    this.onIncomingBytes(link.peer * 4294967296 + w[h + H_SEQ]!, w[h + H_TOTAL]! + frame.pieceOffset, frame);
  }

  // ---- delivery -------------------------------------------------------------------------------

  private deliverEager(posted: ReceiveRequest, source: number, tag: number, kind: number, bytes: Uint8Array, offset: number, length: number): void {
    const request = posted;
    const status = new Status(source, tag, length);
    this.host.engine.countCompletion();
    if (posted.into !== null) {
      const error = this.checkInto(posted.into, kind, length, request.operation, source, tag);
      if (error !== undefined) {
        request.fail(error);
        return;
      }
      copyInto(posted.into, 0, bytes, offset, length);
      request.complete(status, status);
      return;
    }
    if (posted.encoded) {
      request.complete({ kind, bytes: copyOut(bytes, offset, length) } satisfies Encoded, status);
      return;
    }
    try {
      const engine = this.host.engine;
      request.complete(engine.building !== undefined && length >= BUILT_FROM ? engine.building(() => decodeValue(kind, bytes, offset, length)) : decodeValue(kind, bytes, offset, length), status);
    } catch (cause) {
      request.fail(
        new TsmpiError(ErrorCode.Encode, `cannot decode a ${kindName(kind)} message of ${length} bytes`, {
          rank: this.host.rank,
          operation: request.operation,
          hint: 'the sender and receiver must run the same tsmpi version',
          cause,
        }),
      );
    }
  }

  private checkInto(into: Uint8Array, kind: number, length: number, operation: string, source: number, tag: number): TsmpiError | undefined {
    if (!isRawKind(kind)) {
      const what = kind === PayloadKind.String ? 'a string' : 'an object, array or other value';
      return new TsmpiError(ErrorCode.Type, `the message from rank ${source}, tag ${tag} is an encoded value (${what}), not a typed array's bytes`, {
        rank: this.host.rank,
        operation,
        hint: 'send it as a typed array, or receive it with recv(), which returns any value',
      });
    }
    if (length > into.length) {
      return new TsmpiError(ErrorCode.Truncate, `the ${length}-byte message from rank ${source}, tag ${tag} does not fit the ${into.length}-byte receive buffer`, {
        rank: this.host.rank,
        operation,
        hint: `pass a buffer of at least ${length} bytes, or probe() first and size the buffer from status.bytes`,
      });
    }
    return undefined;
  }

  /**
   * A rendezvous matched: copy the message out of the sender's shared memory when the
   * announcement names an allocation this thread knows (`pullKey`, -1: none), else answer with a
   * clear-to-send naming where its data goes.
   */
  private matchRendezvous(posted: ReceiveRequest, source: number, tag: number, kind: number, total: number, peer: number, senderRequest: number, pullKey: number, pullOffset: number): void {
    const header = this.header;
    // A clear-to-send is found by the sender's request id: it need not queue behind other frames.
    header[H_TYPE] = CTS_WORD;
    header[H_LENGTH] = 0;
    header[H_AUX] = senderRequest;
    if (posted.into !== null) {
      const error = this.checkInto(posted.into, kind, total, posted.operation, source, tag);
      if (error !== undefined) {
        header[H_SEQ] = CTS_DISCARD;
        this.host.control(peer, header);
        this.host.engine.countCompletion();
        posted.fail(error);
        return;
      }
    }
    posted.peerWorld = peer;
    const receive: RendezvousReceive = { request: posted, source, tag, kind, total, received: 0, dest: posted.into ?? new Uint8Array(total) };
    const id = this.nextReceiveId++;
    const memory = pullKey >= 0 ? sharedAllocation(pullKey) : undefined;
    if (memory !== undefined && pullOffset + total <= memory.byteLength) {
      copyInto(receive.dest, 0, new Uint8Array(memory, pullOffset, total), 0, total);
      receive.received = total;
      this.pulledMessages++;
      this.pulledBytes += total;
      header[H_SEQ] = CTS_PULLED;
      this.host.control(peer, header);
      this.finishRendezvousReceive(id, receive);
      return;
    }
    this.receives.set(id, receive);
    header[H_SEQ] = id;
    this.host.control(peer, header);
    if (total === 0) this.finishRendezvousReceive(id, receive);
  }

  private finishRendezvousReceive(id: number, receive: RendezvousReceive): void {
    this.receives.delete(id);
    this.host.engine.countCompletion();
    const posted = receive.request;
    const status = new Status(receive.source, receive.tag, receive.total);
    if (posted.into !== null) {
      posted.complete(status, status);
      return;
    }
    const dest = receive.dest;
    if (posted.encoded) {
      posted.complete({ kind: receive.kind, bytes: dest } satisfies Encoded, status);
      return;
    }
    try {
      const value = isRawKind(receive.kind) ? viewAs(receive.kind, dest) : decodeValue(receive.kind, dest, 0, dest.length);
      posted.complete(value, status);
    } catch (cause) {
      posted.fail(cause);
    }
  }

  /** The first frame of a pipelined eager message: match it now, its bytes follow. */
  private startIncoming(peer: number, id: number, queues: MatchQueues, source: number, tag: number, kind: number, total: number, sequence: number): void {
    const key = peer * 4294967296 + id;
    const message: IncomingMessage = { key, source, tag, kind, total, peer, received: 0, dest: null, direct: false, receiver: null, entry: null };
    const posted = queues.takePosted(source, tag);
    if (posted !== undefined) {
      this.tracer?.matched(peer, sequence, total);
      posted.peerWorld = peer;
      message.receiver = posted;
      if (posted.into !== null) {
        const error = this.checkInto(posted.into, kind, total, posted.operation, source, tag);
        if (error !== undefined) {
          // The receive fails now; the message's bytes are read and dropped as they come.
          this.host.engine.countCompletion();
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
      const entry: UnexpectedMessage = { source, tag, kind, bytes: total, data: message.dest, peer, senderRequest: 0, sequence, incoming: message };
      message.entry = entry;
      queues.unexpected.push(entry);
    }
    this.incoming.set(key, message);
  }

  /** Bytes of a pipelined eager message at `offset`; delivers it when the last one is in. */
  private onIncomingBytes(key: number, offset: number, frame: InboundFrame): void {
    const message = this.incoming.get(key);
    if (message === undefined) return;
    if (message.dest !== null) copyInto(message.dest, offset, frame.bytes, frame.payloadOffset, frame.payloadLength);
    message.received += frame.payloadLength;
    if (message.received < message.total) return;
    this.incoming.delete(key);
    if (message.entry !== null) message.entry.incoming = undefined; // complete, still unexpected
    const receiver = message.receiver;
    if (receiver === null || message.dest === null) return;
    if (message.direct) {
      const status = new Status(message.source, message.tag, message.total);
      this.host.engine.countCompletion();
      receiver.complete(status, status);
      return;
    }
    if (receiver.into === null && !receiver.encoded && isRawKind(message.kind) && message.kind !== PayloadKind.Number) {
      // Our own freshly allocated buffer becomes the received array: no second copy.
      this.host.engine.countCompletion();
      const status = new Status(message.source, message.tag, message.total);
      receiver.complete(viewAs(message.kind, message.dest), status);
      return;
    }
    this.deliverEager(receiver, message.source, message.tag, message.kind, message.dest, 0, message.total);
  }

  /**
   * The link from world rank `peerRank` failed, or the rank ended: what this rank expects from it
   * fails with the error `failure` makes for each receive (a receive from any source keeps
   * waiting: another rank may match it).
   */
  failPeer(peerRank: number, failure: (request: Request<unknown>) => TsmpiError): void {
    // Matches are collected before anything fails (a failure's callbacks may post or drop
    // entries); at a job's end every peer ends, mostly with nothing pending: no copies then.
    const receives: [number, ReceiveRequest][] = [];
    for (const [id, receive] of this.receives) if (receive.request.peerWorld === peerRank) receives.push([id, receive.request]);
    for (const [id, posted] of receives) {
      this.receives.delete(id);
      posted.fail(failure(posted));
    }
    const incoming: [number, IncomingMessage][] = [];
    for (const entry of this.incoming) if (entry[1].peer === peerRank) incoming.push(entry);
    for (const [key, message] of incoming) {
      this.incoming.delete(key);
      if (message.receiver !== null) message.receiver.fail(failure(message.receiver));
      if (message.entry !== null) {
        const queues = this.contexts.find((q) => q !== undefined && q.unexpected.indexOf(message.entry!) >= 0);
        if (queues !== undefined) queues.unexpected.removeAt(queues.unexpected.indexOf(message.entry));
      }
    }
    for (const queues of this.contexts) {
      if (queues === undefined) continue;
      for (const posted of queues.posted.removeWhere((p) => p.peerWorld === peerRank)) posted.fail(failure(posted));
    }
  }
}
