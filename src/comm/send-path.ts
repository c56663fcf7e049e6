/**
 * The sending side of the point-to-point engine (ob1's sendreq): one link and one FIFO of frames
 * per peer, the eager and pipelined-eager sends, rendezvous announcements and, once the receiver
 * answers with a clear-to-send, the stream of DATA frames straight from the sender's memory.
 *
 * Every link has a FIFO of frames that did not fit yet; a link's frames leave in order, so MPI's
 * order per (source, tag, context) holds. A link that closed fails what is queued on it, and
 * every later send to that peer at once (a frame queued on a dead link would wait for ever).
 */
import type { RankTrace } from '../trace/rank-trace.js';
import type { Settings } from '../config/tunables.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { FRAME_BURST, FRAME_HEADER_WORDS, FRAME_SPLITTABLE, FRAME_UNORDERED, type InboundFrame, type Link, type LinkEvents, type LinkLimits } from '../transport/link.js';
import type { Progress } from '../transport/progress.js';
import type { Transport } from '../transport/transport.js';
import { copyOut, isUnchanging } from '../transport/copy-bytes.js';
import { sharedReference } from '../transport/shared-memory.js';
import { CANCEL_WORD, CTS_DISCARD, CTS_PULLED, FrameType, PULL_REFERENCE_BYTES, writePullReference, GOODBYE_WORD, rtsWord, H_AUX, H_CONTEXT, H_LENGTH, H_SEQ, H_SOURCE, H_TAG, H_TOTAL, H_TYPE, typeWord } from './frame-header.js';
import { Request, type RequestDriver } from './request.js';

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
  /** The request completed when the send started (TSMPI_DETACH_LIMIT): `bytes` is a copy. */
  detached?: boolean;
  /** A CANCEL went to the receiver; its reply says whether the send was withdrawn. */
  cancelling?: boolean;
}

export interface PeerState {
  readonly link: Link;
  queue: OutboundJob[];
  head: number;
  backlogged: boolean;
  /**
   * Why the sending link closed: what is sent to the peer afterwards fails at once. Made when
   * needed: at a job's end every rank learns that every peer ended, and an error per pair (with
   * its stack) cost a 64-rank replay tens of milliseconds.
   */
  failed: (() => TsmpiError) | undefined;
  /** Messages started to this peer: the next one's sequence number (timelines pair sends and receives by it). */
  sent: number;
}

/** What the send path needs of its endpoint. */
export interface SendPathHost {
  readonly rank: number;
  readonly engine: Progress;
  readonly settings: Settings;
  readonly transport: Transport;
  readonly events: LinkEvents;
  readonly driver: RequestDriver;
  /** A link to `rank` was made (the poller adds the loopback to what it polls). */
  linkMade(rank: number, link: Link): void;
}

export class SendPath {
  private readonly host: SendPathHost;
  private readonly peers: (PeerState | undefined)[];
  /** Peers with frames waiting for room. */
  readonly backlog: PeerState[] = [];
  private readonly sends = new Map<number, RendezvousSend>();
  private readonly header = new Int32Array(FRAME_HEADER_WORDS);
  private nextSendId = 1;
  /** The rank's timeline recorder, when tracing. */
  tracer: RankTrace | undefined = undefined;

  constructor(host: SendPathHost, size: number) {
    this.host = host;
    this.peers = new Array(size);
  }

  /** True when every send started has left this rank (finalize waits for it). */
  get idle(): boolean {
    return this.sends.size === 0 && this.backlog.length === 0;
  }

  private idleWaiters: (() => void)[] = [];

  /** Calls `fn` once every send started has left this rank (at once when none is left). */
  whenIdle(fn: () => void): void {
    if (this.idle) fn();
    else this.idleWaiters.push(fn);
  }

  private checkIdle(): void {
    if (this.idleWaiters.length > 0 && this.idle) for (const fn of this.idleWaiters.splice(0)) fn();
  }

  /** Links made so far (one per peer talked to, itself included). */
  linkCount(): number {
    let n = 0;
    for (const p of this.peers) if (p !== undefined) n++;
    return n;
  }

  /** The link to world rank `rank` if one is made. */
  linkTo(rank: number): Link | undefined {
    return this.peers[rank]?.link;
  }

  /** The state of world rank `rank`, its link made on first use. */
  peer(rank: number): PeerState {
    let peer = this.peers[rank];
    if (peer === undefined) {
      const link = this.host.transport.createLink(rank, this.host.events);
      peer = { link, queue: [], head: 0, backlogged: false, failed: undefined, sent: 0 };
      this.peers[rank] = peer;
      this.host.linkMade(rank, link);
    }
    return peer;
  }

  /**
   * Writes a small message to world rank `dest` at once, without a request, when its link takes
   * it now (eager, nothing queued before it, no timeline): true when sent, its send complete;
   * false when nothing was done (make a request with {@link isend}). A blocking collective's send
   * that leaves at once needs no request: each was a tenth of a small bcast root's time in
   * allocation and collection.
   */
  sendNow(context: number, dest: number, source: number, tag: number, kind: number, bytes: Uint8Array): boolean {
    const peer = this.peers[dest];
    if (peer === undefined || peer.failed !== undefined || peer.backlogged || this.tracer !== undefined) return false;
    const length = bytes.length;
    const limits = peer.link.limits;
    if (length > Math.min(limits.eagerLimit ?? this.host.settings.eagerLimit, limits.maxFramePayload) || length >= (limits.borrowEagerFrom ?? Infinity)) return false;
    if (this.pulledFrom(limits, bytes)) return false;
    const header = this.header;
    header[H_TYPE] = typeWord(FrameType.Eager, kind);
    header[H_CONTEXT] = context;
    header[H_SOURCE] = source;
    header[H_TAG] = tag;
    header[H_SEQ] = peer.sent + 1;
    header[H_LENGTH] = length;
    header[H_TOTAL] = length;
    header[H_AUX] = 0;
    if (!peer.link.trySend(header, bytes, 0, length)) return false;
    peer.sent++;
    return true;
  }

  /**
   * Starts a send of `bytes` (payload kind `kind`) to world rank `dest`; see Endpoint.isend. A
   * synchronous send always announces itself and waits for the clear-to-send, which the receiver
   * sends once a receive matched: its completion then means the receive has matched.
   */
  isend(context: number, dest: number, source: number, tag: number, kind: number, bytes: Uint8Array, operation: string, peerRank: number, synchronous = false, burst = false): Request<void> {
    const { engine, settings } = this.host;
    const request = new Request<void>(this.host.driver, operation, peerRank, tag, context);
    const peer = this.peer(dest);
    if (peer.failed !== undefined) {
      // The link to that rank is gone (it exited or failed): a frame queued on it would wait for ever.
      const failed = peer.failed();
      request.fail(new TsmpiError(failed.code, failed.detail, { rank: this.host.rank, operation, hint: failed.hint }));
      return request;
    }
    const length = bytes.length;
    const header = this.header;
    header[H_CONTEXT] = context;
    header[H_SOURCE] = source;
    header[H_TAG] = tag;
    const sequence = ++peer.sent;
    header[H_SEQ] = sequence;
    this.tracer?.sent(dest, sequence, tag, length);
    const limits = peer.link.limits;
    // From an allocMem array to a rank of this process, the receiver copies it out: no eager copy.
    const eagerLimit = synchronous || this.pulledFrom(limits, bytes) ? -1 : (limits.eagerLimit ?? settings.eagerLimit);
    const oneFrame = Math.min(limits.maxFramePayload, limits.splitEagerFrom ?? Infinity);
    if (length <= Math.min(eagerLimit, oneFrame)) {
      header[H_TYPE] = typeWord(FrameType.Eager, kind) | (burst ? FRAME_BURST : 0);
      header[H_LENGTH] = length;
      header[H_TOTAL] = length;
      header[H_AUX] = 0;
      // A link that writes straight from the caller's memory (a socket) takes a large eager
      // payload without a copy, as a raw socket write would; the send completes once the link
      // lets go of it. A copy of each 64 KiB message was a fifth of a TCP stream's CPU.
      if (length >= (limits.borrowEagerFrom ?? Infinity) && peer.link.whenReleased !== undefined && !peer.backlogged && peer.link.trySend(header, bytes, 0, length, true)) {
        engine.retain();
        peer.link.whenReleased(() => {
          request.complete(undefined);
          engine.countCompletion();
          engine.release();
          // From the socket's write callback, outside any poll: settle its waiter now.
          engine.progressed();
        });
        return request;
      }
      if (this.write(peer, header, bytes, length, request)) request.complete(undefined);
      return request;
    }
    const id = this.nextSendId++;
    if (length <= eagerLimit) {
      // Pipelined eager: the match header and a first chunk now, the rest right behind it.
      // The first frame is delivered whole (it is matched): keep it small; the rest may come in
      // pieces. A link that splits eager payloads takes all of it in pieces: the first frame only
      // matches, and the receiver copies the rest as it arrives.
      const first = limits.splitEagerFrom !== undefined ? 0 : Math.min(settings.chunkBytes, oneFrame);
      const send: RendezvousSend = { id, request, bytes, peer: dest, dataType: FrameType.EagerData, receiverId: id, offset: first };
      this.sends.set(id, send);
      engine.retain();
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
    // A detached send completes now; its bytes (a copy, unless their owner never writes them)
    // still wait for the receive, and finalize waits for them.
    const detached = !synchronous && length <= settings.detachLimit;
    const data = detached && !isUnchanging(bytes.buffer) ? copyOut(bytes, 0, length) : bytes;
    this.sends.set(id, { id, request, bytes: data, peer: dest, dataType: FrameType.Data, receiverId: 0, offset: 0, ...(detached ? { detached } : {}) });
    engine.retain();
    header[H_TYPE] = rtsWord(kind);
    header[H_TOTAL] = length;
    header[H_AUX] = id;
    // From a shared allocation to a rank of this process: name the memory, the receiver may copy
    // the message straight out of it (one copy instead of two through the ring).
    const shared = limits.sharesMemory === true && !detached ? sharedReference(bytes) : undefined;
    if (shared !== undefined && shared.byteOffset <= 0xffffffff) {
      // A payload of its own: a backlogged frame keeps its payload by reference.
      const reference = new Uint8Array(PULL_REFERENCE_BYTES);
      writePullReference(reference, shared.key, shared.byteOffset);
      header[H_LENGTH] = PULL_REFERENCE_BYTES;
      this.write(peer, header, reference, PULL_REFERENCE_BYTES, null);
    } else {
      header[H_LENGTH] = 0;
      this.write(peer, header, null, 0, null);
    }
    if (detached) request.complete(undefined);
    return request;
  }

  /** True when `bytes` goes by the receiver's copy out of this rank's shared allocation (TSMPI_PULL_FROM). */
  private pulledFrom(limits: LinkLimits, bytes: Uint8Array): boolean {
    return limits.sharesMemory === true && bytes.length >= this.host.settings.pullFrom && sharedReference(bytes) !== undefined;
  }

  /**
   * Cancels a send that no receive has matched yet (MPI_Cancel): an eager frame still waiting in
   * its link's backlog is dropped and its request fails as cancelled now; an announced send asks
   * its receiver to withdraw the announcement, and the reply decides (see onCancelReply). False
   * when it is too late: the send completed, its data is on its way, or it is not this rank's send.
   */
  cancel(request: Request<unknown>): boolean {
    for (const send of this.sends.values()) {
      if (send.request !== request) continue;
      // Only an announcement waiting for its clear-to-send can still be withdrawn.
      if (send.detached === true || send.dataType !== FrameType.Data || send.receiverId !== 0 || send.cancelling === true) return false;
      send.cancelling = true;
      const header = this.header;
      header[H_TYPE] = CANCEL_WORD;
      header[H_CONTEXT] = request.context;
      header[H_LENGTH] = 0;
      header[H_SEQ] = 0;
      header[H_AUX] = send.id;
      this.write(this.peer(send.peer), header, null, 0, null);
      return true;
    }
    for (const peer of this.backlog) {
      for (let i = peer.head; i < peer.queue.length; i++) {
        const job = peer.queue[i]!;
        if (job.request !== request) continue;
        peer.queue.splice(i, 1);
        request.fail(cancelledSend(this.host.rank, request.operation));
        this.host.engine.countCompletion();
        this.host.engine.release();
        return true;
      }
    }
    return false;
  }

  /** The receiver's answer to a CANCEL: withdrawn (the send fails as cancelled), or matched (it goes on). */
  onCancelReply(frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const send = this.sends.get(w[h + H_AUX]!);
    if (send === undefined || w[h + H_SEQ] !== 1) return;
    this.sends.delete(send.id);
    send.request.fail(cancelledSend(this.host.rank, send.request.operation));
    this.host.engine.countCompletion();
    this.host.engine.release();
  }

  /**
   * Writes a GOODBYE, behind everything already sent, on the link to every peer this rank has
   * talked to (finalize); returns those peers' world ranks.
   */
  sayGoodbye(): number[] {
    const header = this.header;
    header.fill(0);
    header[H_TYPE] = GOODBYE_WORD;
    const peers: number[] = [];
    this.peers.forEach((peer, rank) => {
      if (peer === undefined || rank === this.host.rank || peer.failed !== undefined) return;
      this.write(peer, header, null, 0, null);
      peers.push(rank);
    });
    return peers;
  }

  /**
   * World rank `peerRank` finalized or exited: the sends it would have to take fail, and so does
   * every later send to it (`failure` makes the error of each).
   */
  peerEnded(peerRank: number, failure: (request: Request<unknown>) => TsmpiError): void {
    const engine = this.host.engine;
    for (const send of [...this.sends.values()]) {
      if (send.peer !== peerRank || send.detached === true || send.dataType !== FrameType.Data || send.receiverId !== 0) continue;
      // Announced, never matched: it can never be.
      this.sends.delete(send.id);
      send.request.fail(failure(send.request));
      engine.countCompletion();
      engine.release();
    }
    const peer = this.peers[peerRank];
    if (peer === undefined) return;
    peer.failed ??= () => failure(new Request(this.host.driver, 'send', -1, -1, -1));
    // Frames still waiting for room or for the connection (a link opened just as the peer's
    // process went) can never be taken now: kept, they would hold this rank alive for ever.
    this.dropQueue(peer, failure);
  }

  /** Sends a frame without payload to world rank `peer` (the receive path's clear-to-send). */
  control(peer: number, header: Int32Array): void {
    this.write(this.peer(peer), header, null, 0, null);
  }

  /** A clear-to-send arrived: queue the send's DATA stream (or finish it when the receive failed). */
  onCts(link: Link, frame: InboundFrame): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const send = this.sends.get(w[h + H_AUX]!);
    if (send === undefined) return;
    const receiverId = w[h + H_SEQ]!;
    // The receive failed, or it copied the message out of this rank's shared memory: no DATA.
    if (receiverId === CTS_DISCARD || receiverId === CTS_PULLED) {
      this.finishSend(send);
      return;
    }
    send.receiverId = receiverId;
    const peer = this.peer(link.peer);
    peer.queue.push({ header: null, payload: null, length: 0, request: null, stream: send });
    this.markBacklogged(peer);
  }

  /** Writes a frame now or queues it behind the link's backlog; true when written now. */
  private write(peer: PeerState, header: Int32Array, payload: Uint8Array | null, length: number, request: Request<unknown> | null): boolean {
    if (!peer.backlogged && peer.link.trySend(header, payload, 0, length)) return true;
    peer.queue.push({ header: header.slice(), payload, length, request, stream: null });
    if (request !== null) this.host.engine.retain();
    this.markBacklogged(peer);
    return false;
  }

  private markBacklogged(peer: PeerState): void {
    if (!peer.backlogged) {
      peer.backlogged = true;
      this.backlog.push(peer);
    }
  }

  /** Writes what the links of backlogged peers take; true when anything moved. */
  pumpBacklog(): boolean {
    if (this.backlog.length === 0) return false;
    let progressed = false;
    let kept = 0;
    for (let i = 0; i < this.backlog.length; i++) {
      const peer = this.backlog[i]!;
      const before = peer.head;
      if (!this.pump(peer)) this.backlog[kept++] = peer;
      if (peer.head !== before || !peer.backlogged) progressed = true;
    }
    this.backlog.length = kept;
    if (kept === 0) this.checkIdle();
    return progressed;
  }

  /** Writes as much of a peer's backlog as its link takes; true when it is now empty. */
  private pump(peer: PeerState): boolean {
    const link = peer.link;
    const engine = this.host.engine;
    while (peer.head < peer.queue.length) {
      const job = peer.queue[peer.head]!;
      if (job.stream === null) {
        if (!link.trySend(job.header, job.payload, 0, job.length)) return false;
        if (job.request !== null) {
          job.request.complete(undefined);
          engine.countCompletion();
          engine.release();
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
        this.host.engine.progressed();
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
    return link.limits.polled ? Math.min(this.host.settings.chunkBytes, link.limits.maxFramePayload) : link.limits.maxFramePayload;
  }

  private finishSend(send: RendezvousSend): void {
    if (!this.sends.delete(send.id)) return;
    if (!send.detached) send.request.complete(undefined);
    this.host.engine.countCompletion();
    this.host.engine.release();
    this.checkIdle();
  }

  /**
   * The sending link to world rank `peerRank` failed (`link`: the link that closed): what this
   * rank owes that peer fails with the error `failure` makes, and later sends fail at once.
   */
  failPeer(peerRank: number, link: Link, failure: (operation: string) => TsmpiError): void {
    const engine = this.host.engine;
    for (const send of [...this.sends.values()]) {
      if (send.peer !== peerRank) continue;
      this.sends.delete(send.id);
      // A detached send already completed: the broken link fails the job instead.
      if (!send.detached) send.request.fail(failure(send.request.operation));
      engine.release();
    }
    const peer = this.peers[peerRank];
    if (peer === undefined) return;
    if (peer.link === link) peer.failed = () => failure('send');
    this.dropQueue(peer, (request) => failure(request.operation));
  }

  /** Fails what waits in a peer's backlog (frames and the streams of matched sends) and empties it. */
  private dropQueue(peer: PeerState, failure: (request: Request<unknown>) => TsmpiError): void {
    const engine = this.host.engine;
    for (let i = peer.head; i < peer.queue.length; i++) {
      const job = peer.queue[i]!;
      if (job.request !== null) {
        job.request.fail(failure(job.request));
        engine.release();
      } else if (job.stream !== null && this.sends.delete(job.stream.id)) {
        if (!job.stream.detached) job.stream.request.fail(failure(job.stream.request));
        engine.countCompletion();
        engine.release();
      }
    }
    peer.queue = [];
    peer.head = 0;
    this.checkIdle();
  }
}

function cancelledSend(rank: number, operation: string): TsmpiError {
  return new TsmpiError(ErrorCode.Cancelled, 'the send was cancelled before a receive matched it', { rank, operation });
}
