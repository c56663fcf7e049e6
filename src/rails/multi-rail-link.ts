/**
 * A Link to one peer over several rails: one Link per rail, of any kind (TCP sockets, simulated
 * links), made by the owner's `openRail`. Upper layers see one link; this one reads nothing of
 * their frames but the link flags of word 0 (transport/link.ts):
 *
 * - Frames go on rail 0, the control rail, in order (the upper layer's ordering rides on it),
 *   unless they are FRAME_UNORDERED and FRAME_SPLITTABLE (bulk data the receiver places by
 *   offset) and at least `minSplit` bytes: those go to the {@link RailScheduler}, which cuts them
 *   into segments by the rail policy (rail-frames.ts has the wire format). Segments may land in
 *   any order; the receiver acknowledges each, and the frame's memory is released (its send
 *   completes, see `whenReleased`) when every segment is acknowledged.
 * - A data rail whose link closes, or that holds segments unacknowledged for `ackTimeout`, leaves
 *   the set: its segments go again on the others, and its link is opened again every
 *   `retryInterval` until it is back. The control rail failing fails the link, with an error
 *   naming the rail (control frames in flight cannot be recovered).
 *
 * Time and timers come from the rank's clock, so the same code runs in the simulator.
 */
import type { Clock, TimerHandle } from '../clock.js';
import type { RailPolicy } from '../policy/rail/types.js';
import { copyOut } from '../transport/copy-bytes.js';
import { FRAME_HEADER_WORDS, FRAME_SPLITTABLE, FRAME_UNORDERED, type Link, type LinkEvents, type LinkLimits } from '../transport/link.js';
import { ACK_IDS, ACK_WORD, ANNOUNCE_WORD, R_FRAME, R_FRAME_BYTES, R_LENGTH, R_OFFSET, R_SEGMENT, SEGMENT_WORD, headerBytes } from './rail-frames.js';
import { RailScheduler, type RailSegment, type RailSettings } from './rail-scheduler.js';

/** What a split frame holds while its segments travel. */
export interface RailFrame {
  readonly id: number;
  /** The frame's header words (a copy) and its payload, from `base`. */
  readonly header: Int32Array;
  readonly payload: Uint8Array;
  readonly base: number;
  /** Rails that carried its announce. */
  readonly announced: Set<number>;
}

/** What every link of one rank shares (one object: a 1024-rank run holds a million links). */
export interface MultiRailLinkOptions {
  /** Opens rail `rail`'s link to `peer` (again after a failure). */
  openRail: (peer: number, rail: number, events: LinkEvents) => Link;
  rails: readonly RailSettings[];
  clock: Clock;
  /** Splittable frames below this go whole on the control rail. */
  minSplit: number;
  ackTimeout: number;
  /** Seconds between attempts to open a failed rail again. @default 1 */
  retryInterval?: number;
  log: (line: string) => void;
  /** The rank, for messages. */
  rank: number;
  /** Told of every segment a rail took (timelines: rail utilisation over time). */
  onSegment?: ((rail: number, peer: number, bytes: number) => void) | undefined;
}

/** Largest frame the link takes: a whole bulk transfer, up to 1 GiB per frame. */
const MAX_FRAME = 1 << 30;
const SPLIT = FRAME_UNORDERED | FRAME_SPLITTABLE;
// Scratch headers: a link reads a header during trySend only (transport/link.ts), so every
// multi-rail link can fill the same ones.
const segmentHeader = new Int32Array(FRAME_HEADER_WORDS);
const announceHeader = new Int32Array(FRAME_HEADER_WORDS);
const ackHeader = new Int32Array(FRAME_HEADER_WORDS);

/** A rail link's events, routed to its multi-rail link (an object per rail, no closures). */
class RailEvents implements LinkEvents {
  constructor(
    private readonly owner: MultiRailLink,
    private readonly rail: number,
  ) {}

  frame(): void {}

  arrived(): void {}

  drain(link: Link): void {
    this.owner.railDrained(this.rail, link);
  }

  closed(link: Link, error?: Error): void {
    this.owner.railClosed(this.rail, link, error);
  }
}

export class MultiRailLink implements Link {
  readonly peer: number;
  readonly direction: 'send' | 'receive' | undefined;
  readonly limits: LinkLimits;
  readonly scheduler: RailScheduler<RailFrame>;
  private readonly options: MultiRailLinkOptions;
  private readonly policy: RailPolicy;
  private readonly links: (Link | undefined)[];
  private events: LinkEvents;
  private wantsDrain = false;
  private nextFrame = 1;
  private outstanding = 0;
  private releaseWaiters: (() => void)[] = [];
  private readonly acks: number[] = [];
  private watchdog: TimerHandle | undefined;
  private drainTimer: TimerHandle | undefined;
  /** Reopen timers of failed rails, by rail (created on the first failure). */
  private retries: Map<number, TimerHandle> | undefined;
  private closed = false;
  /** Failures seen, per rail (diagnostics and tests). */
  readonly failures: number[];

  constructor(options: MultiRailLinkOptions, peer: number, policy: RailPolicy, events: LinkEvents) {
    this.options = options;
    this.peer = peer;
    this.policy = policy;
    this.events = events;
    this.failures = options.rails.map(() => 0);
    this.links = options.rails.map((_, rail) => options.openRail(peer, rail, new RailEvents(this, rail)));
    const control = this.links[0]!;
    this.direction = control.direction;
    this.limits = {
      maxFramePayload: MAX_FRAME,
      ...(control.limits.eagerLimit !== undefined ? { eagerLimit: control.limits.eagerLimit } : {}),
      latency: Math.min(...options.rails.map((r) => r.latency)),
      bandwidth: options.rails.reduce((sum, r) => sum + (r.nominalRate > 0 ? r.nominalRate : control.limits.bandwidth), 0),
      polled: false,
    };
    this.scheduler = new RailScheduler<RailFrame>({
      rails: options.rails,
      policy,
      clock: options.clock,
      ackTimeout: options.ackTimeout,
      transmit: (rail, segment) => this.transmit(rail, segment),
      messageDone: (message) => this.frameDone(message.data),
    });
  }

  /** The endpoint's events (the transport may create the link before the endpoint asks for it). */
  setEvents(events: LinkEvents): void {
    this.events = events;
  }

  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number, borrow = false): boolean {
    if (this.closed) return false;
    if ((header[0]! & SPLIT) === SPLIT && payload !== null && length >= this.options.minSplit) {
      const data = borrow ? payload : copyOut(payload, offset, length);
      this.outstanding++;
      const frame: RailFrame = { id: this.nextFrame++, header: header.slice(0, FRAME_HEADER_WORDS), payload: data, base: borrow ? offset : 0, announced: new Set() };
      this.scheduler.submit({ length, data: frame });
      this.arm();
      return true;
    }
    if (this.acks.length > 0) this.flushAcks();
    const control = this.links[0];
    if (this.acks.length > 0 || control === undefined || !control.trySend(header, payload, offset, length, borrow)) {
      this.wantsDrain = true;
      return false;
    }
    return true;
  }

  /** Once every split frame is acknowledged and rail 0 holds no borrowed payload either. */
  whenReleased(fn: () => void): void {
    const afterControl = (): void => {
      const control = this.links[0];
      if (control?.whenReleased !== undefined) control.whenReleased(fn);
      else fn();
    };
    if (this.outstanding === 0) afterControl();
    else this.releaseWaiters.push(afterControl);
  }

  private frameDone(_frame: RailFrame): void {
    if (--this.outstanding === 0) {
      const waiters = this.releaseWaiters;
      this.releaseWaiters = [];
      for (const fn of waiters) fn();
    }
    if (!this.scheduler.busy) this.disarm();
  }

  private transmit(rail: number, segment: RailSegment<RailFrame>): boolean {
    const link = this.links[rail];
    if (link === undefined) return false;
    const frame = segment.message.data;
    if (!frame.announced.has(rail)) {
      const a = announceHeader;
      a.fill(0);
      a[0] = ANNOUNCE_WORD;
      a[R_FRAME] = frame.id;
      a[R_FRAME_BYTES] = segment.message.length;
      if (!link.trySend(a, headerBytes(frame.header), 0, FRAME_HEADER_WORDS * 4)) return false;
      frame.announced.add(rail);
    }
    const h = segmentHeader;
    h.fill(0);
    h[0] = SEGMENT_WORD;
    h[R_FRAME] = frame.id;
    h[R_SEGMENT] = segment.id;
    h[R_OFFSET] = segment.offset;
    h[R_LENGTH] = segment.length;
    const sent = link.trySend(h, frame.payload, frame.base + segment.offset, segment.length, true);
    if (sent) this.options.onSegment?.(rail, this.peer, segment.length);
    return sent;
  }

  /** The peer's receiver acknowledged these segments (an ACK on our receive side). */
  acked(ids: readonly number[]): void {
    for (const id of ids) this.scheduler.acked(id);
    this.scheduler.pump();
  }

  /** This side received segment `id` whole: acknowledge it to the peer (control rail). */
  acknowledge(id: number): void {
    this.acks.push(id);
    this.flushAcks();
  }

  private flushAcks(): void {
    const control = this.links[0];
    if (control === undefined) return;
    const h = ackHeader;
    while (this.acks.length > 0) {
      h.fill(0);
      h[0] = ACK_WORD;
      const n = Math.min(ACK_IDS, this.acks.length);
      for (let i = 0; i < n; i++) h[1 + i] = this.acks[i]!;
      if (!control.trySend(h, null, 0, 0)) return;
      this.acks.splice(0, n);
    }
  }

  /** Rail `rail`'s link has room (RailEvents). */
  railDrained(rail: number, link: Link): void {
    if (link !== this.links[rail]) return;
    if (!this.scheduler.isUp(rail)) {
      this.options.log(`tsmpi: rank ${this.options.rank}: rail ${rail} to rank ${this.peer} is back`);
      this.scheduler.railRecovered(rail);
      this.arm();
    }
    if (rail === 0) this.flushAcks();
    if (this.policy.drainInterval === undefined) this.scheduler.pump();
    if (rail === 0 && this.wantsDrain && this.acks.length === 0) {
      this.wantsDrain = false;
      this.events.drain(this);
    }
  }

  /** Rail `rail`'s link closed (RailEvents). */
  railClosed(rail: number, link: Link, error: Error | undefined): void {
    if (link !== this.links[rail] || this.closed) return;
    this.links[rail] = undefined;
    this.failRail(rail, error?.message ?? 'the connection closed');
  }

  private failRail(rail: number, why: string): void {
    this.failures[rail]!++;
    if (rail === 0) {
      this.close();
      this.events.closed(this, new Error(`rank ${this.options.rank}: the control rail (rail 0) to rank ${this.peer} failed: ${why}`));
      return;
    }
    const link = this.links[rail];
    this.links[rail] = undefined;
    if (link?.abort !== undefined) link.abort(why);
    else link?.close(why);
    // A new link on that rail carries no announce yet.
    for (const frame of this.scheduler.pendingData()) frame.announced.delete(rail);
    const back = this.scheduler.railFailed(rail);
    // Requeued segments wait for the drain timer under an interval policy: it may have stopped.
    this.arm();
    // A peer closing an idle connection (its end of the job) is no failure worth a line.
    if (back > 0 || this.scheduler.busy) this.options.log(`tsmpi: rank ${this.options.rank}: rail ${rail} to rank ${this.peer} failed (${why}); ${back} segments go again on the other rails`);
    this.scheduleRetry(rail);
  }

  private scheduleRetry(rail: number): void {
    const retries = (this.retries ??= new Map());
    if (this.closed || retries.has(rail)) return;
    const timer = this.options.clock.schedule(this.options.retryInterval ?? 1, () => {
      retries.delete(rail);
      if (this.closed || this.links[rail] !== undefined) return;
      this.links[rail] = this.options.openRail(this.peer, rail, new RailEvents(this, rail));
    });
    retries.set(rail, timer);
  }

  /** Checks for silent rails while segments are out (and drains on the policy's interval). */
  private arm(): void {
    if (this.closed || !this.scheduler.busy) return;
    if (this.watchdog === undefined) this.scheduleWatchdog();
    const interval = this.policy.drainInterval;
    if (interval !== undefined && this.drainTimer === undefined) this.scheduleDrain(interval);
  }

  private scheduleWatchdog(): void {
    const period = Math.max(0.01, Math.min(0.1, this.options.ackTimeout / 4));
    this.watchdog = this.options.clock.schedule(period, () => {
      this.watchdog = undefined;
      this.checkRails();
      if (this.scheduler.busy && !this.closed) this.scheduleWatchdog();
    });
  }

  private scheduleDrain(interval: number): void {
    this.drainTimer = this.options.clock.schedule(interval, () => {
      this.drainTimer = undefined;
      this.scheduler.pump();
      if (this.scheduler.waiting && !this.closed) this.scheduleDrain(interval);
    });
  }

  private disarm(): void {
    if (this.watchdog !== undefined) this.options.clock.cancel(this.watchdog);
    this.watchdog = undefined;
  }

  private checkRails(): void {
    for (const rail of this.scheduler.overdue(this.options.clock.now())) {
      this.failRail(rail, `no acknowledgement for ${this.options.ackTimeout} s`);
    }
  }

  /** The policy's learnt state (rates, weights, decisions). */
  policyState(): Record<string, unknown> {
    return this.policy.describe();
  }

  poll(): number {
    return 0;
  }

  bytesInFlight(): number {
    let sum = 0;
    for (const r of this.scheduler.views()) sum += r.queuedBytes + r.inFlightBytes;
    return sum;
  }

  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.disarm();
    if (this.drainTimer !== undefined) this.options.clock.cancel(this.drainTimer);
    for (const t of this.retries?.values() ?? []) this.options.clock.cancel(t);
    for (const link of this.links) link?.close(reason);
  }
}
