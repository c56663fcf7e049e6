/**
 * The point-to-point engine of one rank (Open MPI's pml): it owns the rank's links and routes
 * frames between the parts that do the work, one job each:
 *
 * - send-path.ts: per-peer links and FIFOs; eager, pipelined-eager and rendezvous sends, and the
 *   DATA stream once the receiver's clear-to-send comes;
 * - receive-path.ts: the matching queues of every context, delivery of eager messages, pipelined
 *   ones and rendezvous data;
 * - link-failure.ts: what a broken link fails;
 * - link-poller.ts: what the rank polls, and the discovery of peers that write to it.
 *
 * - Eager (message <= eager limit): one EAGER frame; the send completes once the frame is in the
 *   link. An unmatched eager message is copied into the unexpected queue.
 * - Rendezvous (larger): RTS -> (receive matches) -> CTS -> DATA frames streamed straight into the
 *   receive's buffer; the send completes when its last byte is in the link. Unexpected large
 *   messages cost only their announcement, never a buffer.
 *
 * The endpoint never blocks: waiting belongs to the rank's Progress (transport/progress.ts).
 */
import type { RankTrace } from '../trace/rank-trace.js';
import type { Settings } from '../config/tunables.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { FrameVerdict, InboundFrame, Link, LinkEvents } from '../transport/link.js';
import type { PollOperation, Progress, ProgressHost } from '../transport/progress.js';
import type { Transport, WorldBroadcast } from '../transport/transport.js';
import { BackgroundTasks, type BackgroundTask } from './background.js';
import { ScratchPool } from './scratch-pool.js';
import { ByteViews } from './byte-views.js';
import { encodeValue, rawKindOf, type Encoded, type TypedArray } from './codec.js';
import { CreationTurns } from './context-agreement.js';
import { ContextNames, describeWait } from './context-names.js';
import { FrameType, H_TYPE, frameType } from './frame-header.js';
import { failLink } from './link-failure.js';
import { LinkPoller } from './link-poller.js';
import type { UnexpectedMessage } from './matching.js';
import { ReceivePath } from './receive-path.js';
import { Request as RequestClass, type Request, type RequestDescription, type RequestDriver, type Status } from './request.js';
import { SendPath } from './send-path.js';
import { SharedBarrierRequest, type SharedBarrierHost } from './shared-barrier.js';
import { SharedBcastRequest, type SharedBcastHost } from './shared-bcast.js';
import { StagedReductionRequest, type StagedBlocks, type StagedOp } from './staged-reduction.js';
import { StagedGatherRequest } from './staged-gather.js';
import { StagedExchangeRequest } from './staged-exchange.js';
import { StagedTicket, type StagedHost } from './staged-request.js';

/** The world communicator's collective context (its point-to-point context is 0). */
const WORLD_COLLECTIVES = 1;

export class Endpoint implements RequestDriver, ProgressHost {
  readonly rank: number;
  readonly size: number;
  readonly engine: Progress;
  private readonly transport: Transport;
  private readonly events: LinkEvents;
  private readonly sends: SendPath;
  private readonly receives: ReceivePath;
  private readonly poller: LinkPoller;
  /** The next free context id this rank knows of (for dup/split agreement). */
  nextContext = 4;
  /** This rank's communicator creations, one agreement at a time (context-agreement.ts). */
  readonly creations: CreationTurns;
  /** The communicators of this rank's contexts, by name (hang reports, errors). */
  readonly names = new ContextNames();
  /** Node of each world rank (the job's node map), for topology-aware planners; empty: one node. */
  nodeOfWorld: ArrayLike<number> = [];
  /** Process of each world rank (processIndexes: equal for ranks of one process); empty: unknown. */
  processOfWorld: ArrayLike<number> = [];
  /** This process runs more rank threads than cores (set by init; the simulator leaves it false). */
  threadsOutnumberCores = false;
  /** Nonblocking collectives' schedules and windows' targets: advanced by every poll and wait. */
  readonly background = new BackgroundTasks();
  /** Scratch buffers the collectives reuse from call to call. */
  readonly scratch = new ScratchPool();
  /** Byte views of the small typed arrays this rank passes again and again. */
  readonly byteViews = new ByteViews();
  /** True once this rank called finalize(): it communicates no more. */
  finalized = false;
  /** Peers that will send nothing more (they finalized or exited, and all they sent is in), with how they ended. */
  private readonly ended = new Map<number, string>();
  /** Peers announced as ended whose last frames may still be on their way (a GOODBYE, or a socket's close, follows them). */
  private readonly ending = new Map<number, string>();
  /** Peers whose frames come over links that deliver by events (sockets, the simulator), while those are open. */
  private readonly eventPeers = new Set<number>();
  #tracer: RankTrace | undefined = undefined;

  /** The rank's timeline recorder (`--trace`), or undefined. */
  get tracer(): RankTrace | undefined {
    return this.#tracer;
  }

  set tracer(tracer: RankTrace | undefined) {
    this.#tracer = tracer;
    this.sends.tracer = tracer;
    this.receives.tracer = tracer;
  }

  /** `progress` builds how this rank waits (and its clock) around the endpoint's polling. */
  constructor(transport: Transport, settings: Settings, progress: (host: ProgressHost) => Progress) {
    this.transport = transport;
    this.rank = transport.rank;
    this.size = transport.size;
    this.engine = progress(this);
    this.creations = new CreationTurns(this, () => this.engine.progressed());
    this.events = {
      frame: (link, frame) => this.onFrame(link, frame),
      // From now on the peer's end is told in band (its socket closes after its last frame),
      // even when the job's notice of that end comes before the first frame is read.
      opened: (link) => void this.eventPeers.add(link.peer),
      drain: () => this.engine.kick(),
      arrived: () => {
        this.background.advance();
        // Frames from a socket may have queued work (a CTS starts a stream): wake the loop for it.
        if (this.sends.backlog.length > 0) this.engine.kick();
        this.engine.progressed();
      },
      closed: (link, error) => {
        // A peer that ended cleanly closes its sockets after its last frame: no failure. Its last
        // frames come on its own connection to us; ours to it may close first (both close as its
        // process exits), and ending the peer then failed a receive whose data was still unread.
        const fromPeer = link.direction !== 'send';
        if (fromPeer) this.eventPeers.delete(link.peer);
        const how = this.ending.get(link.peer);
        if (how !== undefined) {
          if (fromPeer) this.peerEnded(link.peer, how);
        } else if (!this.ended.has(link.peer)) failLink(this.rank, link, error, this.sends, this.receives);
        this.engine.kick();
      },
    };
    this.sends = new SendPath(
      { rank: this.rank, engine: this.engine, settings, transport, events: this.events, driver: this, linkMade: (rank, link) => this.poller.linkMade(rank, link) },
      transport.size,
    );
    this.receives = new ReceivePath({
      rank: this.rank,
      engine: this.engine,
      driver: this,
      poll: () => void this.poll(),
      control: (peer, header) => this.sends.control(peer, header),
      scratch: this.scratch,
    });
    this.poller = new LinkPoller(transport, this.sends);
    transport.attach?.(this.events);
  }

  // ---- requests -------------------------------------------------------------------------------

  waitUntil(condition: () => boolean, description: RequestDescription, spun = false): Promise<void> {
    const background = this.background;
    // A wait started before a nonblocking collective must still advance it (a rank blocked in
    // recv forwards its part of an ibcast), so the check is made whenever the condition is.
    return this.engine.waitUntil(() => {
      if (background.active) background.advance();
      return condition();
    }, description, spun);
  }

  cancel(request: Request<unknown>): boolean {
    return this.receives.cancel(request) || this.sends.cancel(request);
  }

  testPoll(check: () => boolean, operation: PollOperation = 'test'): boolean {
    const found = this.engine.poll(operation, check);
    // Socket data arrives, and ranks sharing the thread run, only while the event loop does: a
    // program polling in a loop that never awaits would wait for ever, so the engine says so (once).
    if (!found) this.engine.idlePoll?.(this.rank, this.transport.attach !== undefined);
    return found;
  }

  spinFor(request: Request<unknown>): void {
    this.engine.spinFor(request);
  }

  // ---- sending --------------------------------------------------------------------------------

  /**
   * Starts a send of `value` to world rank `dest` on `context`, as comm rank `source` with `tag`.
   * Typed arrays are sent from the caller's memory: do not change them until the request completes.
   * `burst`: the program's own nonblocking send, which more may follow at once (FRAME_BURST).
   */
  isend(context: number, dest: number, source: number, tag: number, value: unknown, operation: string, peerRank: number, synchronous = false, burst = false): Request<void> {
    if (this.ended.size > 0 && this.ended.has(dest)) return this.endedRequest(context, dest, peerRank, tag, operation) as Request<void>;
    const raw = rawKindOf(value);
    if (raw >= 0) return this.sends.isend(context, dest, source, tag, raw, this.byteViews.of(value as ArrayBufferView), operation, peerRank, synchronous, burst);
    const encoded = encodeValue(value, this.rank, operation);
    return this.sends.isend(context, dest, source, tag, encoded.kind, encoded.bytes, operation, peerRank, synchronous, burst);
  }

  /**
   * Sends a typed array to world rank `dest` at once when its link takes it now: true when sent
   * (complete; see SendPath.sendNow), false when the caller must start it with {@link isend}.
   */
  sendNow(context: number, dest: number, source: number, tag: number, value: ArrayBufferView): boolean {
    if (this.ended.size > 0 && this.ended.has(dest)) return false;
    const raw = rawKindOf(value);
    return raw >= 0 && this.sends.sendNow(context, dest, source, tag, raw, this.byteViews.of(value));
  }

  /** {@link isend} of a value encoded already (collectives encode once and send many times). */
  isendEncoded(context: number, dest: number, source: number, tag: number, encoded: Encoded, operation: string, peerRank: number): Request<void> {
    if (this.ended.size > 0 && this.ended.has(dest)) return this.endedRequest(context, dest, peerRank, tag, operation) as Request<void>;
    return this.sends.isend(context, dest, source, tag, encoded.kind, encoded.bytes, operation, peerRank);
  }

  // ---- receiving ------------------------------------------------------------------------------

  /** Posts a receive; see ReceivePath.irecv. */
  irecv(context: number, source: number, sourceWorld: number, tag: number, into: Uint8Array | null, operation: string, encoded = false): Request<unknown> {
    const request = this.receives.irecv(context, source, sourceWorld, tag, into, operation, encoded);
    if (this.ended.size > 0 && !request.done) {
      // Nothing that arrived matches, and nothing more can come from an ended peer. (A receive
      // from any source may still be matched by this rank's own send.)
      if (sourceWorld >= 0 && this.ended.has(sourceWorld)) {
        this.receives.cancel(request, this.endedError(request, sourceWorld));
      }
    }
    return request;
  }

  /**
   * A receive from world rank `sourceWorld` (comm rank `source`) into `into`, done now when its
   * message is the next frame of their link (ReceivePath.receiveNow): the message's length in
   * bytes, or -1 when it must be posted with {@link irecv}.
   */
  receiveNow(context: number, source: number, sourceWorld: number, tag: number, into: Uint8Array): number {
    const link = this.sends.linkTo(sourceWorld);
    if (link === undefined || (this.ended.size > 0 && this.ended.has(sourceWorld))) return -1;
    return this.receives.receiveNow(link, context, source, tag, into);
  }

  /**
   * {@link receiveNow} for a program's receive: its message may still be on its way, and the
   * link is looked at for it in place for as long as the rank's waits spin (Progress.peekSpins).
   */
  receiveSoon(context: number, source: number, sourceWorld: number, tag: number, into: Uint8Array): number {
    const link = this.sends.linkTo(sourceWorld);
    if (link === undefined || (this.ended.size > 0 && this.ended.has(sourceWorld))) return -1;
    return this.receives.receiveSoon(link, context, source, tag, into, this.engine.peekSpins);
  }

  /** The status of the earliest unexpected message matching (source, tag), after one poll. */
  iprobe(context: number, source: number, tag: number): Status | undefined {
    return this.receives.iprobe(context, source, tag);
  }

  /** Takes the earliest unexpected message matching (source, tag), after one poll (a matched probe). */
  takeProbed(context: number, source: number, tag: number): UnexpectedMessage | undefined {
    return this.receives.takeProbed(context, source, tag);
  }

  /** {@link takeProbed} as the program's poll (comm.improbe): it costs virtual time under the simulator. */
  pollTakeProbed(context: number, source: number, tag: number): UnexpectedMessage | undefined {
    let taken: UnexpectedMessage | undefined;
    this.testPoll(() => (taken ??= this.receives.takeProbed(context, source, tag)) !== undefined, 'iprobe');
    return taken;
  }

  /** Receives a message a matched probe took; see ReceivePath.receiveProbed. */
  receiveProbed(message: UnexpectedMessage, context: number, into: Uint8Array | null, operation: string): Request<unknown> {
    return this.receives.receiveProbed(message, context, into, operation);
  }

  /** {@link iprobe} as the program's poll (comm.iprobe): it costs virtual time under the simulator. */
  pollProbe(context: number, source: number, tag: number): Status | undefined {
    let status: Status | undefined;
    this.testPoll(() => (status = this.receives.iprobe(context, source, tag)) !== undefined, 'iprobe');
    return status;
  }

  // ---- frames ---------------------------------------------------------------------------------

  /** What the link does next: keep an unexpected eager message in place, or stop (ReceivePath.onEager). */
  private onFrame(link: Link, frame: InboundFrame): FrameVerdict | void {
    if (!link.limits.polled && !this.eventPeers.has(link.peer)) this.eventPeers.add(link.peer);
    const word0 = frame.words[frame.headerIndex + H_TYPE]!;
    switch (frameType(word0)) {
      case FrameType.Goodbye:
        return this.peerEnded(link.peer, this.ending.get(link.peer) ?? 'finalized');
      case FrameType.Eager:
        return this.receives.onEager(link, frame);
      case FrameType.Rts:
        return this.receives.onRts(link, frame);
      case FrameType.Cts:
        return this.sends.onCts(link, frame);
      case FrameType.Data:
        return this.receives.onData(frame);
      case FrameType.EagerData:
        return this.receives.onEagerData(link, frame);
      case FrameType.Cancel:
        return this.receives.onCancel(link, frame);
      case FrameType.CancelReply:
        return this.sends.onCancelReply(frame);
      default:
        throw new TsmpiError(ErrorCode.Internal, `unknown frame type ${frameType(word0)} from rank ${link.peer}`, {
          rank: this.rank,
          operation: 'progress',
        });
    }
  }

  /**
   * A communicator on `context` (and its collectives on context + 1) was freed: its matching
   * queues and name go, unless something still waits on them (MPI lets pending operations of a
   * freed communicator complete; they keep its state).
   */
  forgetContext(context: number): void {
    const p2p = this.receives.forget(context);
    const collective = this.receives.forget(context + 1);
    if (p2p && collective) this.names.unregister(context);
  }

  // ---- the world's barrier in shared memory ---------------------------------------------------

  private sharedBarrierHost: SharedBarrierHost | undefined;
  /** This rank's latest barrier of the world (a later one enters after it). */
  private sharedBarrierLast: SharedBarrierRequest | undefined;

  /**
   * True when every world rank is a thread of this process and the process runs more rank threads
   * than cores: every rank of every communicator then sees the same, so collectives may choose by it.
   */
  get crowded(): boolean {
    return this.threadsOutnumberCores && this.transport.worldBarrier !== undefined;
  }

  /**
   * True when every world rank of `group` lives in one process (threads that share memory); every
   * rank of the group sees the same, from the job's map.
   */
  inOneProcess(group: Int32Array): boolean {
    const processes = this.processOfWorld;
    if (processes.length === 0) return false;
    const first = processes[group[0]!];
    for (let i = 1; i < group.length; i++) if (processes[group[i]!] !== first) return false;
    return true;
  }

  /** True when a collective on `context` over `group` can use the shared-memory barrier: the world's, every rank in this process. */
  sharedBarrierAvailable(context: number, group: Int32Array): boolean {
    return context === WORLD_COLLECTIVES && group.length === this.size && this.transport.worldBarrier !== undefined;
  }

  /** Enters the world's shared-memory barrier (shared-barrier.ts), after this rank's previous one. */
  sharedBarrier(context: number, tag: number, operation: string): Request<void> {
    const barrier = this.transport.worldBarrier!;
    this.sharedBarrierHost ??= { driver: this, barrier, endedError: (request) => this.sharedWaitEndedError(request) };
    const previous = this.sharedBarrierLast !== undefined && !this.sharedBarrierLast.done ? this.sharedBarrierLast : undefined;
    const request = new SharedBarrierRequest(this.sharedBarrierHost, operation, tag, context, previous);
    if (!request.done) {
      this.sharedBarrierLast = request;
      this.background.add(request);
    }
    return request;
  }

  /** The error of a shared-memory wait once some rank ended (its world rank named as the peer). */
  private sharedWaitEndedError(request: Request<unknown>): Error | undefined {
    // (Asked at every poll while the wait lasts: nothing to look through until a rank ends.)
    if (this.ended.size === 0) return undefined;
    const rank = this.ended.keys().next().value!;
    return this.endedError(new RequestClass<unknown>(this, request.operation, rank, request.tag, request.context), rank);
  }

  // ---- the world's broadcasts in shared memory ------------------------------------------------

  private sharedBcastHost: SharedBcastHost | undefined;
  /** This rank's latest shared broadcast (a later one acts after it). */
  private sharedBcastLast: SharedBcastRequest | undefined;

  /**
   * True when a bcast on `context` over `group` can go through the world's broadcast slots: the
   * world's, every rank in this process (every rank sees the same).
   */
  sharedBcastAvailable(context: number, group: Int32Array): boolean {
    return context === WORLD_COLLECTIVES && group.length === this.size && this.transport.worldBroadcast !== undefined;
  }

  /**
   * A `bcastInto` of one chunk through the broadcast slots done now, without a request, when no
   * broadcast of this rank is pending before it: the root's chunk into a free slot, or a reader's
   * chunk already published by `root` with this rank's length. False: make the request
   * ({@link sharedBcast}), which waits, and says what is wrong when the ranks' calls differ.
   */
  sharedBcastNow(root: number, bytes: Uint8Array): boolean {
    if (this.sharedBcastLast !== undefined && !this.sharedBcastLast.done) return false;
    const broadcast = this.transport.worldBroadcast!;
    const length = bytes.length;
    if (length > broadcast.chunkBytes) return false;
    const host = (this.sharedBcastHost ??= this.makeSharedBcastHost(broadcast));
    const sequence = host.nextSequence;
    if (root === this.rank) {
      if (!broadcast.publish(sequence, bytes, 0, length, length, -1)) return false;
    } else {
      if (broadcast.length(sequence) !== length || broadcast.root(sequence) !== root || broadcast.total(sequence) !== length) return false;
      broadcast.take(sequence, bytes, 0, length);
    }
    host.nextSequence = sequence + 1;
    this.engine.countCompletion();
    return true;
  }

  private makeSharedBcastHost(broadcast: WorldBroadcast): SharedBcastHost {
    return { driver: this, rank: this.rank, broadcast, endedError: (request) => this.sharedWaitEndedError(request), nextSequence: 0 };
  }

  /**
   * Broadcasts from world rank `root` through the broadcast slots (shared-bcast.ts), after this
   * rank's previous one: the root's `bytes` (of payload `kind`), into a reader's `bytes`, or, with
   * none, a value whatever its length (the request's result is the encoded value).
   */
  sharedBcast(context: number, tag: number, operation: string, root: number, bytes: Uint8Array | undefined, kind: number): Request<Encoded | undefined> {
    const broadcast = this.transport.worldBroadcast!;
    this.sharedBcastHost ??= this.makeSharedBcastHost(broadcast);
    const previous = this.sharedBcastLast !== undefined && !this.sharedBcastLast.done ? this.sharedBcastLast : undefined;
    const role = root === this.rank ? 'root' : bytes !== undefined ? 'into' : 'value';
    const request = new SharedBcastRequest(this.sharedBcastHost, operation, tag, context, root, role, bytes, kind, previous);
    if (!request.done) {
      this.sharedBcastLast = request;
      this.background.add(request);
    }
    return request;
  }

  // ---- the world's staging regions in shared memory --------------------------------------------

  private stagedHost: StagedHost | undefined;
  /** This rank's latest staged collective (a later one acts after it). */
  private stagedLast: { readonly done: boolean } | undefined;

  /**
   * True when a collective on `context` over `group` can go through the world's staging regions:
   * the world's, every rank in this process (every rank sees the same).
   */
  stagingAvailable(context: number, group: Int32Array): boolean {
    return context === WORLD_COLLECTIVES && group.length === this.size && this.transport.worldStaging !== undefined;
  }

  /**
   * Reduces `value` through the staging regions (staged-reduction.ts), after this rank's previous
   * staged reduction: the whole reduction into `result`, or with `blocks` this rank's block;
   * `label` names the call in errors.
   */
  stagedReduction(context: number, tag: number, operation: string, value: TypedArray, result: TypedArray, op: StagedOp, blocks: StagedBlocks, label: string, ticket?: StagedTicket): Request<TypedArray> {
    const host = this.stagingHost();
    return this.queueStaged(new StagedReductionRequest(host, operation, tag, context, value, result, op, blocks, label, this.stagedPrevious(ticket)), ticket);
  }

  /**
   * Gathers every rank's `block` into `incoming[r]` through the staging regions (staged-gather.ts),
   * after this rank's previous staged collective; `digest` stands for the counts, `label` names
   * the call in errors.
   */
  stagedGather(context: number, tag: number, operation: string, block: Uint8Array, incoming: readonly Uint8Array[], digest: number, label: string, ticket?: StagedTicket): Request<void> {
    const host = this.stagingHost();
    return this.queueStaged(new StagedGatherRequest(host, operation, tag, context, block, incoming, digest, label, this.stagedPrevious(ticket)), ticket);
  }

  /**
   * Sends `outgoing[d]` to every rank d and receives every rank s's block into `incoming[s]`
   * through the staging regions (staged-exchange.ts), after this rank's previous staged
   * collective; `label` names the call in errors.
   */
  stagedExchange(context: number, tag: number, operation: string, outgoing: readonly Uint8Array[], incoming: readonly Uint8Array[], label: string, ticket?: StagedTicket): Request<void> {
    const host = this.stagingHost();
    return this.queueStaged(new StagedExchangeRequest(host, operation, tag, context, outgoing, incoming, label, this.stagedPrevious(ticket)), ticket);
  }

  /**
   * Holds this rank's place in the order of staged collectives for a call that decides later
   * whether it stages (its counts come first by messages, or its arguments' check does): the
   * ranks' staged calls pair by their order, which must be the program's, not the order in which
   * each rank's earlier steps happened to complete. The staged request made with the ticket
   * takes its place; a call that stages nothing releases it.
   */
  reserveStaged(): StagedTicket {
    const ticket = new StagedTicket(this.stagedPrevious());
    this.stagedLast = ticket;
    return ticket;
  }

  /** Bytes of each rank's staging region (0 when there are none). */
  get stagingRegionBytes(): number {
    return this.transport.worldStaging?.regionBytes ?? 0;
  }

  private stagingHost(): StagedHost {
    const staging = this.transport.worldStaging!;
    return (this.stagedHost ??= { driver: this, rank: this.rank, size: this.size, staging, bytes: new Uint8Array(staging.buffer), words: new Int32Array(staging.buffer), half: 0, readsOpen: false, calls: 0, endedError: (request) => this.sharedWaitEndedError(request), building: this.engine.building?.bind(this.engine) });
  }

  /** What a new staged request waits for: the ticket's predecessor, or this rank's latest staged collective. */
  private stagedPrevious(ticket?: StagedTicket): { readonly done: boolean } | undefined {
    if (ticket !== undefined) return ticket.previous;
    return this.stagedLast !== undefined && !this.stagedLast.done ? this.stagedLast : undefined;
  }

  private queueStaged<R extends Request<unknown> & BackgroundTask>(request: R, ticket?: StagedTicket): R {
    if (ticket !== undefined) ticket.take(request);
    else if (!request.done) this.stagedLast = request;
    if (!request.done) this.background.add(request);
    return request;
  }

  // ---- ranks that ended -----------------------------------------------------------------------

  /**
   * The job says world rank `rank` ended: it finalized (`linked`: the peers it had links to, each
   * of which gets a GOODBYE behind its last frame) or exited with code 0 (`linked` unknown). Once
   * everything it sent has arrived, what this rank expects from it or owes it fails (a wait that
   * could never complete), and so does every later call that needs it.
   */
  peerGone(rank: number, how: string, linked?: readonly number[]): void {
    if (rank === this.rank || this.ended.has(rank)) return;
    // Frames may still be on their way in the link's order: a GOODBYE ends them, or the socket's
    // close does. A ring holds everything its writer wrote: one full poll reads it.
    const inBand = linked !== undefined ? linked.includes(this.rank) : this.eventPeers.has(rank);
    if (inBand) {
      this.ending.set(rank, how);
      return;
    }
    this.pollFully();
    this.peerEnded(rank, how);
  }

  /** True once world rank `rank` ended and all it sent has arrived. */
  hasEnded(rank: number): boolean {
    return this.ended.has(rank);
  }

  /** Writes a GOODBYE behind everything sent, to every peer this rank talked to (finalize); returns them. */
  sayGoodbye(): number[] {
    return this.sends.sayGoodbye();
  }

  private peerEnded(rank: number, how: string): void {
    this.ending.delete(rank);
    if (this.ended.has(rank)) return;
    this.ended.set(rank, how);
    this.sends.peerEnded(rank, (request) => this.endedError(request, rank));
    this.receives.failPeer(rank, (request) => this.endedError(request, rank));
    this.engine.progressed();
  }

  /** The error of a call that waits for (or sends to) `peer`, which ended. */
  private endedError(request: Request<unknown>, peer: number): TsmpiError {
    const who = `world rank ${peer} ${this.ended.get(peer) ?? 'ended'}`;
    const what = request.context >= 0 ? describeWait(request, this.names) : request.operation;
    return new TsmpiError(ErrorCode.PeerGone, `${what}: ${who}, so this can never complete`, {
      rank: this.rank,
      operation: request.operation,
      hint: 'a rank must send everything the others receive from it (and receive what they send it) before it calls finalize() or ends',
    });
  }

  /** The error of a probe that waited for a rank that ended. */
  endedProbe(description: RequestDescription, peer: number): TsmpiError {
    return this.endedError(new RequestClass<unknown>(this, description.operation, description.peer, description.tag, description.context), peer);
  }

  /** A send to an ended peer: failed at once. */
  private endedRequest(context: number, dest: number, peerRank: number, tag: number, operation: string): Request<unknown> {
    const request = new RequestClass<unknown>(this, operation, peerRank, tag, context);
    request.fail(this.endedError(request, dest));
    return request;
  }

  // ---- the rank's state -----------------------------------------------------------------------

  /** Messages received by copying them out of their sender's shared allocation (allocMem), and their bytes. */
  pulled(): { messages: number; bytes: number } {
    return { messages: this.receives.pulledMessages, bytes: this.receives.pulledBytes };
  }

  /** Links this rank has created (one per peer it has talked to, itself included). */
  linkCount(): number {
    return this.sends.linkCount();
  }

  /** Opens the link to every peer now (TSMPI_TCP_CONNECT=eager) instead of on first use. */
  connectAll(): void {
    for (let r = 0; r < this.size; r++) this.sends.peer(r);
  }

  /** Calls `fn` once every send this rank started has left it, without waiting (a rank that ended). */
  whenSendsIdle(fn: () => void): void {
    this.sends.whenIdle(fn);
  }

  /** Resolves when every send this rank started has left it (finalize). */
  flush(): Promise<void> {
    return this.engine.waitUntil(() => this.sends.idle, { operation: 'finalize', peer: -1, tag: -1, context: -1 });
  }

  // ---- progress (ProgressHost) ----------------------------------------------------------------

  /** Polls once: new writers, backlogged links, inbound frames. True when anything progressed. */
  poll(): boolean {
    this.receives.beforePoll();
    const progressed = this.poller.poll();
    return this.background.active ? this.advanceBackground() || progressed : progressed;
  }

  /** Polls everything, new writers included (the last look before the rank sleeps). */
  pollFully(): boolean {
    this.receives.beforePoll();
    const progressed = this.poller.pollFully();
    return this.background.active ? this.advanceBackground() || progressed : progressed;
  }

  /** Runs the background's steps from inside a poll, where a receive they post keeps no frame. */
  private advanceBackground(): boolean {
    const receives = this.receives;
    receives.insidePoll++;
    try {
      return this.background.advance();
    } finally {
      receives.insidePoll--;
    }
  }
}
