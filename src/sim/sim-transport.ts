/**
 * The simulated transport: links whose frames cross the modelled network in virtual time.
 * A frame sent at the sender's clock enters the network model then (an event), and is handed to
 * the receiver's endpoint when the model says its last byte arrived. Frames of one pair are
 * delivered in the order they were sent (a later small frame never overtakes an earlier large
 * one), except frames the protocol marks FRAME_UNORDERED (a rendezvous' clear-to-send and its
 * data, named by id): those do not queue behind the pair's other traffic, as on an RDMA network
 * where they travel on their own queue pair (and as SimGrid models a rendezvous: the transfer
 * starts when both sides are there).
 * The link takes every frame at once (no backpressure): the model's bandwidth sharing is what
 * delays them.
 * On a calibrated machine that measured a burst's send, a link holds back the frames of a burst of
 * nonblocking sends as the runtime's links do (publish-batch.ts, the same batch and rule): the
 * first leaves at once, those after it leave together at the rank's next poll or the end of its
 * job, as one transfer and one write (SimWorld.chargeRelease).
 */
import { isUnchanging } from '../transport/copy-bytes.js';
import { LoopbackLink } from '../transport/loopback-link.js';
import type { Progress, ProgressHost } from '../transport/progress.js';
import type { Settings } from '../config/tunables.js';
import { FRAME_BURST, FRAME_HANDSHAKE, FRAME_HEADER_WORDS, FRAME_UNORDERED, type InboundFrame, type Link, type LinkEvents, type LinkLimits } from '../transport/link.js';
import { PUBLISH_BATCH_BYTES, PublishBatch, type HeldRecords } from '../transport/publish-batch.js';
import { HOLD_LIMIT as TCP_HOLD_LIMIT } from '../transport/tcp-link.js';
import type { LinkSource, Transport, WorldBarrier, WorldBroadcast, WorldStaging } from '../transport/transport.js';
import type { MultiRailTransport } from '../rails/multi-rail-transport.js';
import { railTransport } from '../rails/rail-transport.js';
import { parseSimRails } from '../rails/rail-config.js';
import { FrameCopies } from './frame-copies.js';
import { SimProgress } from './sim-progress.js';
import type { SimSharedViews } from './sim-shared-memory.js';
import type { SimRank, SimWorld } from './world.js';

/**
 * What a rank's transport needs to know of the others: their events on each rail, once their
 * endpoint exists.
 */
export class SimFabric {
  readonly world: SimWorld;
  /** Network planes of the platform. */
  readonly rails: number;
  /** events[rail][rank]. */
  readonly events: (LinkEvents | undefined)[][];
  /** Links holding frames for a rank whose endpoint does not exist yet (it has not called init), per rail. */
  readonly waitingFor: Set<SimLink>[][];

  /** Bytes/s of each rail's network cards (0: unknown), for TSMPI_RAILS left empty. */
  readonly railRates: readonly number[];
  /** The links each rank sends on (every rail), made as it first talks to a peer. */
  readonly linksFrom: SimLink[][];
  /** Eager payloads' copies while their frames are on the way. */
  readonly copies = new FrameCopies();
  /** Each rank's batch of held-back burst frames (made on its first burst). */
  private readonly batches: (PublishBatch | undefined)[] = [];

  constructor(world: SimWorld, rails = 1, railRates: readonly number[] = []) {
    this.world = world;
    this.rails = rails;
    this.railRates = railRates;
    this.events = Array.from({ length: rails }, () => new Array(world.ranks.length));
    this.waitingFor = Array.from({ length: rails }, () => world.ranks.map(() => new Set<SimLink>()));
    this.linksFrom = world.ranks.map(() => []);
  }

  /**
   * Calls `fn` once every frame `from` has sent to `to` so far has been handed to `to` (at once
   * when none is on its way): a rank that ended is told of to each peer only after its last frame.
   */
  whenDelivered(from: number, to: number, fn: () => void): void {
    const busy = this.linksFrom[from]!.filter((link) => link.peer === to && link.framesInFlight > 0);
    let left = busy.length;
    if (left === 0) {
      fn();
      return;
    }
    for (const link of busy) link.whenEmpty(() => --left === 0 && fn());
  }

  /** The batch of rank `rank`'s links: one for all of them, as a real rank's transport has. */
  batchOf(rank: number): PublishBatch {
    return (this.batches[rank] ??= new PublishBatch());
  }

  /** Rank `rank` polls: its links write what they hold back, and a new burst begins. */
  pollStarts(rank: number): void {
    this.batches[rank]?.pollStarts();
  }

  /** A rank's endpoint (or its multi-rail receiver) listens on `rail`: hand it the frames that arrived before. */
  attach(rank: number, rail: number, events: LinkEvents): void {
    this.events[rail]![rank] = events;
    const waiting = this.waitingFor[rail]![rank]!;
    for (const link of waiting) link.deliverInOrder();
    waiting.clear();
  }
}

/** One rail of the simulated network, as a rank's link source (what TCP is to a real rank). */
export class SimRailSource implements LinkSource {
  constructor(
    private readonly fabric: SimFabric,
    private readonly rank: number,
    private readonly rail: number,
    private readonly eagerLimit: number,
  ) {}

  createLink(peer: number, events: LinkEvents): Link {
    const world = this.fabric.world;
    const link = new SimLink(this.fabric, world.ranks[this.rank]!, world.ranks[peer]!, this.eagerLimit, this.rail);
    // A rail's link is ready at once; say so as a connection would (a multi-rail link brings a
    // failed rail back on it), once the owner holds it.
    world.sim.post(world.sim.now(), () => events.drain(link));
    return link;
  }

  attach(events: LinkEvents): void {
    this.fabric.attach(this.rank, this.rail, events);
  }

  close(): void {}
}

/** A frame that arrived ahead of an earlier one of its pair (held until that one is delivered). */
interface HeldFrame {
  words: Int32Array;
  bytes: Uint8Array;
}

/** A frame of a burst its link holds back until the rank's next poll. */
interface BurstFrame {
  words: Int32Array;
  bytes: Uint8Array;
  loan: number;
}

const EMPTY = new Uint8Array(0);
/** A SimLink's inbound frame points at each delivered frame's own words: it needs none of its own. */
const NO_WORDS = new Int32Array(FRAME_HEADER_WORDS);

/** Very large frames: one rendezvous payload is one flow. */
const SIM_FRAME_PAYLOAD = 1 << 30;

/** Limits are the same for every link of an eager limit: one object each (a 1024-rank run holds a million links). */
const limitsByEager = new Map<number, LinkLimits>();
function simLimits(eagerLimit: number): LinkLimits {
  let limits = limitsByEager.get(eagerLimit);
  if (limits === undefined) {
    limits = Object.freeze({ maxFramePayload: SIM_FRAME_PAYLOAD, eagerLimit, latency: 1e-6, bandwidth: 1e9, polled: false });
    limitsByEager.set(eagerLimit, limits);
  }
  return limits;
}

/**
 * One direction of a simulated pair. Kept small (a 1024-rank all-to-all holds a million of them,
 * two per pair with rails): what only some links need (frames arriving out of order, payloads on
 * loan) is created on first use.
 */
export class SimLink implements Link, HeldRecords {
  readonly peer: number;
  readonly limits: LinkLimits;
  private readonly fabric: SimFabric;
  private readonly from: SimRank;
  private readonly to: SimRank;
  /** Next sequence number to send and to deliver. */
  private nextSend = 0;
  private nextDeliver = 0;
  /** Frames that arrived ahead of `nextDeliver`, by sequence number. */
  private held: Map<number, HeldFrame> | undefined;
  private readonly frame: InboundFrame = { words: NO_WORDS, headerIndex: 0, bytes: EMPTY, payloadOffset: 0, payloadLength: 0, pieceOffset: 0 };
  /** What the receiver sees as the frame's link: the sender's rank, and the link's limits. */
  private readonly reverse: { peer: number; limits: LinkLimits };
  /**
   * Borrowed payloads still crossing the network, and who waits for them. Loans are numbered in
   * order; a waiter waits for every loan numbered below its mark. The lowest loan still out moves
   * up as loans return (amortised O(1)), and waiters, whose marks only grow, leave from the front.
   */
  private nextLoan = 0;
  private onLoan: Set<number> | undefined;
  private lowestOut = 0;
  private releaseWaiters: { mark: number; fn: () => void }[] | undefined;
  private releaseHead = 0;

  private readonly rail: number;
  /** HeldRecords: the batch's epoch of the last burst frame, and whether the batch lists this link. */
  sentInEpoch = -1;
  listed = false;
  /** Frames of a burst held back (made on the first), their wire bytes, and the limit that sends them at once (0: never held). */
  private burst: BurstFrame[] | undefined;
  private burstWire = 0;
  private holdLimit = -1;
  /** The sending rank's batch, once the link may hold frames back. */
  private batch: PublishBatch | undefined;
  /** Sequence numbers of delivered-to-be frames that came in one write with the one before. */
  private groupedSeqs: Set<number> | undefined;
  /** Frames sent and not yet handed to the receiver, and who waits for there to be none. */
  framesInFlight = 0;
  private emptyWaiters: (() => void)[] | undefined;

  constructor(fabric: SimFabric, from: SimRank, to: SimRank, eagerLimit: number, rail = 0) {
    this.fabric = fabric;
    this.from = from;
    this.to = to;
    this.rail = rail;
    this.peer = to.rank;
    this.limits = simLimits(eagerLimit);
    // Frames reach the receiver as coming from `from`.
    this.reverse = { peer: from.rank, limits: this.limits };
    fabric.linksFrom[from.rank]?.push(this);
  }

  /** Calls `fn` once no frame of this link is on its way (see SimFabric.whenDelivered). */
  whenEmpty(fn: () => void): void {
    if (this.framesInFlight === 0) fn();
    else (this.emptyWaiters ??= []).push(fn);
  }

  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number, borrow = false): boolean {
    const world = this.fabric.world;
    const paused = world.pauseMeter(this.from);
    try {
      return this.send(world, header, payload, offset, length, borrow);
    } finally {
      if (paused) world.leaveCall(this.from);
    }
  }

  /** The bytes a burst may hold before it is written at once; 0 when this link holds nothing back. */
  private burstLimit(world: SimWorld): number {
    if (this.holdLimit < 0) {
      this.holdLimit = !world.holdsBursts(this.from, this.to) ? 0 : world.linkClass(this.from, this.to) === 'intra-process' ? PUBLISH_BATCH_BYTES : TCP_HOLD_LIMIT;
      if (this.holdLimit > 0) this.batch = this.fabric.batchOf(this.from.rank);
    }
    return this.holdLimit;
  }

  private send(world: SimWorld, header: Int32Array, payload: Uint8Array | null, offset: number, length: number, borrow: boolean): boolean {
    const words = header.slice(0, FRAME_HEADER_WORDS);
    const holds = (words[0]! & FRAME_BURST) !== 0 && this.burstLimit(world) > 0 && this.batch!.continuesBurst(this);
    // Any other frame goes after what is held (a real link writes them in that order).
    if (!holds && this.burst !== undefined && this.burst.length > 0) this.publishHeld();
    // A borrowed payload (rendezvous data) stays the sender's until it has crossed the network:
    // no copy, and the send completes when it arrives (whenReleased), as SimGrid's does.
    const borrowed = borrow && payload !== null && length > 0;
    const bytes = payload === null || length === 0 ? EMPTY : borrowed || isUnchanging(payload.buffer) ? payload.subarray(offset, offset + length) : this.fabric.copies.copy(payload, offset, length);
    const loan = borrowed ? this.nextLoan++ : -1;
    if (loan >= 0) (this.onLoan ??= new Set()).add(loan);
    const wire = world.envelopeBytes + length;
    this.framesInFlight++;
    this.from.stats.messagesSent++;
    this.from.stats.bytesSent += length;
    if (holds) {
      world.chargeSend(this.from, this.to, wire, true);
      world.railBytes[this.rail] = (world.railBytes[this.rail] ?? 0) + wire;
      (this.burst ??= []).push({ words, bytes, loan });
      this.burstWire += wire;
      this.batch!.hold(this);
      if (this.burstWire >= this.holdLimit) this.publishHeld();
      return true;
    }
    world.chargeSend(this.from, this.to, wire);
    const sentAt = world.rankNow(this.from);
    world.chargeAfterSend(this.from, this.to);
    const rail = this.rail;
    world.railBytes[rail] = (world.railBytes[rail] ?? 0) + wire;
    // SimGrid's matching: a handshake frame reaches its peer at once (still in order, when ordered).
    const free = world.freeHandshakes && (words[0]! & FRAME_HANDSHAKE) !== 0;
    if ((words[0]! & FRAME_UNORDERED) !== 0) {
      world.sim.post(sentAt, () => {
        this.carry(free, wire, rail, () => {
          this.deliverNow(words, bytes);
          if (loan >= 0) this.returned(loan);
        });
      });
      return true;
    }
    const seq = this.nextSend++;
    world.sim.post(sentAt, () => {
      this.carry(free, wire, rail, () => {
        this.arrivedInOrder(seq, words, bytes);
        if (loan >= 0) this.returned(loan);
      });
    });
    return true;
  }

  /**
   * Writes the frames of a burst held back (HeldRecords): one write of their bytes at the rank's
   * time now, one transfer, each frame then handed over in order.
   */
  publishHeld(): void {
    const frames = this.burst;
    if (frames === undefined || frames.length === 0) return;
    this.burst = [];
    const wire = this.burstWire;
    this.burstWire = 0;
    const world = this.fabric.world;
    const paused = world.pauseMeter(this.from);
    try {
      world.chargeRelease(this.from, this.to, wire);
      const sentAt = world.rankNow(this.from);
      world.chargeAfterSend(this.from, this.to);
      const first = this.nextSend;
      this.nextSend += frames.length;
      if (frames.length > 1) {
        const grouped = (this.groupedSeqs ??= new Set());
        for (let i = 1; i < frames.length; i++) grouped.add(first + i);
      }
      const rail = this.rail;
      world.sim.post(sentAt, () => {
        this.carry(false, wire, rail, () => {
          for (let i = 0; i < frames.length; i++) {
            const frame = frames[i]!;
            this.arrivedInOrder(first + i, frame.words, frame.bytes);
            if (frame.loan >= 0) this.returned(frame.loan);
          }
        });
      });
    } finally {
      if (paused) world.leaveCall(this.from);
    }
  }

  /** Puts `wire` bytes on the network, or hands them over at once when `free`. */
  private carry(free: boolean, wire: number, rail: number, arrived: () => void): void {
    if (free) arrived();
    else this.fabric.world.network.send(this.from.host, this.to.host, wire, rail, arrived, this.from.proc, this.to.proc);
  }

  /** Calls `fn` once every payload borrowed so far has arrived. */
  whenReleased(fn: () => void): void {
    if (this.onLoan === undefined || this.onLoan.size === 0) fn();
    else (this.releaseWaiters ??= []).push({ mark: this.nextLoan, fn });
  }

  private returned(loan: number): void {
    const onLoan = this.onLoan!;
    onLoan.delete(loan);
    if (loan !== this.lowestOut) return;
    while (this.lowestOut < this.nextLoan && !onLoan.has(this.lowestOut)) this.lowestOut++;
    const waiters = this.releaseWaiters;
    if (waiters === undefined) return;
    while (this.releaseHead < waiters.length && waiters[this.releaseHead]!.mark <= this.lowestOut) waiters[this.releaseHead++]!.fn();
    if (this.releaseHead === waiters.length) {
      waiters.length = 0;
      this.releaseHead = 0;
    }
  }

  /** Hands the receiver a frame that needs no order. */
  private deliverNow(words: Int32Array, bytes: Uint8Array): void {
    // CTS and data answer frames the receiver sent or handled: its endpoint exists.
    const events = this.fabric.events[this.rail]![this.to.rank]!;
    this.handOver(events, words, bytes, -1);
    events.arrived(this.reverse as Link);
  }

  /** Frame `seq` of the pair arrived: deliver it, and what it held back, if it is next. */
  private arrivedInOrder(seq: number, words: Int32Array, bytes: Uint8Array): void {
    const events = this.fabric.events[this.rail]![this.to.rank];
    if (seq === this.nextDeliver && events !== undefined) {
      // The usual case: no frame of the pair is outstanding ahead of this one.
      this.nextDeliver++;
      this.handOver(events, words, bytes, seq);
      if (this.held !== undefined && this.held.size > 0) this.deliverHeld(events);
      events.arrived(this.reverse as Link);
      return;
    }
    (this.held ??= new Map()).set(seq, { words, bytes });
    this.deliverInOrder();
  }

  /** Hands the receiver every held frame that is next in send order. */
  deliverInOrder(): void {
    const events = this.fabric.events[this.rail]![this.to.rank];
    if (events === undefined) {
      this.fabric.waitingFor[this.rail]![this.to.rank]!.add(this);
      return;
    }
    if (this.deliverHeld(events)) events.arrived(this.reverse as Link);
  }

  private deliverHeld(events: LinkEvents): boolean {
    const held = this.held;
    if (held === undefined) return false;
    let delivered = false;
    for (;;) {
      const next = held.get(this.nextDeliver);
      if (next === undefined) break;
      held.delete(this.nextDeliver);
      this.handOver(events, next.words, next.bytes, this.nextDeliver++);
      delivered = true;
    }
    return delivered;
  }

  /** `seq`: the frame's number in its pair's order (-1: an unordered frame). */
  private handOver(events: LinkEvents, words: Int32Array, bytes: Uint8Array, seq: number): void {
    const world = this.fabric.world;
    const grouped = seq >= 0 && this.groupedSeqs !== undefined && this.groupedSeqs.delete(seq);
    world.chargeRecv(this.to, this.from, world.envelopeBytes + bytes.length, grouped);
    const frame = this.frame;
    frame.words = words;
    frame.bytes = bytes;
    frame.payloadLength = bytes.length;
    events.frame(this.reverse as Link, frame);
    // The frame is the receiver's only during the call: hold no payload until the next one.
    frame.words = NO_WORDS;
    frame.bytes = EMPTY;
    this.fabric.copies.release(bytes);
    if (--this.framesInFlight === 0 && this.emptyWaiters !== undefined) for (const fn of this.emptyWaiters.splice(0)) fn();
  }

  poll(): number {
    return 0;
  }

  bytesInFlight(): number {
    return 0;
  }

  close(): void {}
}

/**
 * A simulated rank's transport. Ranks of one host talk over rail 0 alone (the runtime would use
 * shared memory); ranks of different hosts over every rail the platform has (TSMPI_RAILS may
 * pick and order them) through the runtime's own multi-rail link, with its policy, segments and
 * acknowledgements, on the rank's virtual clock: what a real rank does over TCP rails.
 */
/**
 * The self link under the simulator: the runtime's LoopbackLink, announcing a queued frame with
 * a simulation event (at the current virtual time) rather than at once. A rank that is waiting
 * (its segment over) polls only when an event wakes it: a frame it sent itself from a handler (a
 * window's acknowledgement, a collective's step) must be such an event.
 */
class SimSelfLink extends LoopbackLink {
  readonly #world: SimWorld;
  readonly #notify: LinkEvents;
  #posted = false;

  constructor(rank: number, events: LinkEvents, world: SimWorld) {
    super(rank, events);
    this.#world = world;
    this.#notify = events;
  }

  protected override announce(): void {
    if (this.#posted) return;
    this.#posted = true;
    this.#world.sim.post(this.#world.sim.now(), () => {
      this.#posted = false;
      this.#notify.drain(this);
    });
  }
}

export class SimTransport implements Transport {
  readonly rank: number;
  readonly size: number;
  private readonly fabric: SimFabric;
  private readonly simRank: SimRank;
  /** Eager limits of the links to ranks of other processes (TCP's) and of this one (shared memory's). */
  private eagerLimit = 64 * 1024;
  private localEagerLimit = 64 * 1024;
  private remote: LinkSource | undefined;
  /** The rail ranks of one host talk on (the control rail). */
  private controlRail = 0;
  /** The rank's multi-rail transport, when the platform has several rails. */
  rails: MultiRailTransport | undefined;
  /** The world's shared memory, when every world rank is in this rank's simulated process (sim-shared-memory.ts). */
  readonly worldBarrier: WorldBarrier | undefined;
  readonly worldBroadcast: WorldBroadcast | undefined;
  readonly worldStaging: WorldStaging | undefined;

  constructor(fabric: SimFabric, rank: number, shared?: SimSharedViews) {
    this.fabric = fabric;
    this.rank = rank;
    this.size = fabric.world.ranks.length;
    this.simRank = fabric.world.ranks[rank]!;
    this.worldBarrier = shared?.worldBarrier;
    this.worldBroadcast = shared?.worldBroadcast;
    this.worldStaging = shared?.worldStaging;
  }

  createProgress(host: ProgressHost, settings: Settings): Progress {
    // Between processes the runtime would talk TCP, inside one through shared memory: each its
    // own eager limit.
    this.eagerLimit = settings.tcpEagerLimit;
    this.localEagerLimit = settings.eagerLimit;
    // init() is being called: what came before was loading the program, not running it.
    this.fabric.world.restartMeter(this.simRank);
    const progress = new SimProgress(this.fabric.world, this.simRank, host, settings);
    const picked = this.fabric.rails > 1 ? parseSimRails(settings.rails, this.fabric.rails, this.fabric.railRates) : [{ rail: 0, rate: 0 }];
    this.controlRail = picked[0]!.rail;
    if (picked.length > 1) {
      this.rails = railTransport({
        rank: this.rank,
        sources: picked.map((r) => new SimRailSource(this.fabric, this.rank, r.rail, this.eagerLimit)),
        rates: picked.map((r) => r.rate),
        settings,
        clock: progress.clock,
        log: (line) => void process.stderr.write(`${line}\n`),
      });
    }
    this.remote = this.rails;
    return progress;
  }

  createLink(peer: number, events: LinkEvents): Link {
    // A rank's messages to itself take the runtime's own link (Open MPI's btl/self, a copy): no
    // network, no virtual time, delivered at the rank's next poll, so a loop polling for what
    // the rank sent itself ends even while other ranks, behind in virtual time, hold the
    // network back.
    if (peer === this.rank) return new SimSelfLink(peer, events, this.fabric.world);
    const world = this.fabric.world;
    const sameHost = world.ranks[peer]!.host === this.simRank.host;
    const eagerLimit = world.ranks[peer]!.proc === this.simRank.proc ? this.localEagerLimit : this.eagerLimit;
    if (sameHost || this.remote === undefined) return new SimLink(this.fabric, this.simRank, world.ranks[peer]!, eagerLimit, this.controlRail);
    return this.remote.createLink(peer, events);
  }

  discoverWriters(): boolean {
    return true;
  }

  pollStarts(): void {
    this.fabric.pollStarts(this.rank);
  }

  attach(events: LinkEvents): void {
    // The multi-rail receiver listens on every rail (rail 0 included, where it passes the
    // endpoint's own frames through); without rails the endpoint listens on rail 0.
    if (this.rails !== undefined) this.rails.attach(events);
    else this.fabric.attach(this.rank, this.controlRail, events);
  }

  close(): void {}
}
