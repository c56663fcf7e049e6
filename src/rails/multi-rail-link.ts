/**
 * A Link to one peer over several rails (one TCP send link per rail). Upper layers see one link:
 *
 * - Control frames (matching headers, eager messages, clear-to-send, DATA frames smaller than
 *   TSMPI_RAIL_MIN_SPLIT) go on rail 0, the control rail, in order: MPI's ordering rides on it.
 * - A larger DATA frame (the link offers 1 GiB frames, so a rendezvous message arrives whole)
 *   goes to the {@link RailScheduler}, which cuts it into RAIL_SEGMENT frames by the rail policy.
 *   Segments carry their offset, so they may land in any order (the receive buffer is posted
 *   before DATA flows); the receiver acknowledges each, and the send's memory is released (the
 *   send completes) when every segment is acknowledged.
 * - A data rail whose link closes, or that holds segments unacknowledged for
 *   TSMPI_RAIL_ACK_TIMEOUT, leaves the set: its segments go again on the others, and its
 *   connection is retried every `retryInterval` until it is back. The control rail failing fails
 *   the link, with an error naming the rail (control frames in flight cannot be recovered).
 */
import { copyOut } from '../transport/copy-bytes.js';
import type { Clock, TimerHandle } from '../clock.js';
import { FrameType, H_AUX, H_CONTEXT, H_LENGTH, H_SEQ, H_SOURCE, H_TAG, H_TOTAL, H_TYPE } from '../comm/frame-header.js';
import type { RailPolicy } from '../policy/rail/types.js';
import { FRAME_HEADER_WORDS, FRAME_SPLITTABLE, type Link, type LinkEvents, type LinkLimits } from '../transport/link.js';
import { RailScheduler, type RailMessage, type RailSegment, type RailSettings } from './rail-scheduler.js';

/** What a multi-rail DATA frame holds while its segments travel. */
export interface RailFrame {
  readonly header: Int32Array;
  readonly payload: Uint8Array;
  readonly base: number;
}

export interface MultiRailLinkOptions {
  peer: number;
  /** Opens rail `rail`'s send link to the peer (again after a failure). */
  openRail: (rail: number, events: LinkEvents) => Link;
  rails: readonly RailSettings[];
  policy: RailPolicy;
  clock: Clock;
  /** DATA frames below this go whole on the control rail. */
  minSplit: number;
  ackTimeout: number;
  /** Seconds between reconnection attempts of a failed rail. @default 1 */
  retryInterval?: number;
  log: (line: string) => void;
  /** The rank, for messages. */
  rank: number;
}

/** Largest frame the link takes: a whole rendezvous message, up to 1 GiB per frame. */
const MAX_FRAME = 1 << 30;
/** Header words of a RAIL_ACK frame that carry acknowledged segment ids (see frame-header.ts). */
export const ACK_WORDS = [1, 2, 3, 5, 6, 7] as const;

export class MultiRailLink implements Link {
  readonly peer: number;
  readonly direction = 'send' as const;
  readonly limits: LinkLimits;
  readonly scheduler: RailScheduler<RailFrame>;
  private readonly options: MultiRailLinkOptions;
  private readonly links: (Link | undefined)[];
  private readonly railEvents: LinkEvents[];
  private events: LinkEvents;
  private wantsDrain = false;
  private outstanding = 0;
  private releaseWaiters: (() => void)[] = [];
  private readonly acks: number[] = [];
  private readonly segmentHeader = new Int32Array(FRAME_HEADER_WORDS);
  private readonly ackHeader = new Int32Array(FRAME_HEADER_WORDS);
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private drainTimer: TimerHandle | undefined;
  private readonly retries = new Map<number, ReturnType<typeof setTimeout>>();
  private closed = false;
  /** Failures seen, per rail (diagnostics and tests). */
  readonly failures: number[];

  constructor(options: MultiRailLinkOptions, events: LinkEvents) {
    this.options = options;
    this.peer = options.peer;
    this.events = events;
    this.failures = options.rails.map(() => 0);
    this.railEvents = options.rails.map((_, rail) => this.eventsFor(rail));
    this.links = options.rails.map((_, rail) => options.openRail(rail, this.railEvents[rail]!));
    const control = this.links[0]!.limits;
    this.limits = {
      maxFramePayload: MAX_FRAME,
      ...(control.eagerLimit !== undefined ? { eagerLimit: control.eagerLimit } : {}),
      latency: Math.min(...options.rails.map((r) => r.latency)),
      bandwidth: options.rails.reduce((sum, r) => sum + (r.nominalRate > 0 ? r.nominalRate : control.bandwidth), 0),
      polled: false,
    };
    this.scheduler = new RailScheduler<RailFrame>({
      rails: options.rails,
      policy: options.policy,
      clock: options.clock,
      ackTimeout: options.ackTimeout,
      transmit: (rail, segment) => this.transmit(rail, segment),
      messageDone: () => this.messageDone(),
    });
  }

  /** The endpoint's events (the transport may create the link before the endpoint asks for it). */
  setEvents(events: LinkEvents): void {
    this.events = events;
  }

  private eventsFor(rail: number): LinkEvents {
    return {
      frame: () => {},
      arrived: () => {},
      drain: (link) => this.railDrained(rail, link),
      closed: (link, error) => this.railClosed(rail, link, error),
    };
  }

  trySend(header: Int32Array, payload: Uint8Array | null, offset: number, length: number, borrow = false): boolean {
    if (this.closed) return false;
    if ((header[H_TYPE]! & 0xff) === FrameType.Data && payload !== null && length >= this.options.minSplit) {
      const data = borrow ? payload : copyOut(payload, offset, length);
      this.outstanding++;
      this.scheduler.submit({ length, data: { header: header.slice(), payload: data, base: borrow ? offset : 0 } });
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

  whenReleased(fn: () => void): void {
    if (this.outstanding === 0) fn();
    else this.releaseWaiters.push(fn);
  }

  private messageDone(): void {
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
    const h = this.segmentHeader;
    h[H_TYPE] = FrameType.RailSegment | FRAME_SPLITTABLE;
    h[H_CONTEXT] = segment.id;
    h[H_SOURCE] = frame.header[H_TOTAL]!;
    h[H_TAG] = rail;
    h[H_LENGTH] = segment.length;
    h[H_TOTAL] = frame.header[H_TOTAL]! + segment.offset;
    h[H_SEQ] = frame.header[H_SEQ]!;
    h[H_AUX] = segment.message.length;
    return link.trySend(h, frame.payload, frame.base + segment.offset, segment.length, true);
  }

  /** The peer's receiver acknowledged these segments (RAIL_ACK on our receive side). */
  acked(ids: readonly number[]): void {
    for (const id of ids) this.scheduler.acked(id);
    this.scheduler.pump();
  }

  /** This side received segment `id` completely: acknowledge it to the peer (control rail). */
  acknowledge(id: number): void {
    this.acks.push(id);
    this.flushAcks();
  }

  private flushAcks(): void {
    const control = this.links[0];
    if (control === undefined) return;
    const h = this.ackHeader;
    while (this.acks.length > 0) {
      h.fill(0);
      h[H_TYPE] = FrameType.RailAck;
      const n = Math.min(ACK_WORDS.length, this.acks.length);
      for (let i = 0; i < n; i++) h[ACK_WORDS[i]!] = this.acks[i]!;
      if (!control.trySend(h, null, 0, 0)) return;
      this.acks.splice(0, n);
    }
  }

  private railDrained(rail: number, link: Link): void {
    if (link !== this.links[rail]) return;
    if (!this.scheduler.isUp(rail)) {
      this.options.log(`tsmpi: rank ${this.options.rank}: rail ${rail} to rank ${this.peer} is back`);
      this.scheduler.railRecovered(rail);
    }
    if (rail === 0) this.flushAcks();
    if (this.options.policy.drainInterval === undefined) this.scheduler.pump();
    if (rail === 0 && this.wantsDrain && this.acks.length === 0) {
      this.wantsDrain = false;
      this.events.drain(this);
    }
  }

  private railClosed(rail: number, link: Link, error: Error | undefined): void {
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
    const back = this.scheduler.railFailed(rail);
    // A peer closing an idle connection (its end of the job) is no failure worth a line.
    if (back > 0 || this.scheduler.busy) this.options.log(`tsmpi: rank ${this.options.rank}: rail ${rail} to rank ${this.peer} failed (${why}); ${back} segments go again on the other rails`);
    this.scheduleRetry(rail);
  }

  private scheduleRetry(rail: number): void {
    if (this.closed || this.retries.has(rail)) return;
    const timer = setTimeout(() => {
      this.retries.delete(rail);
      if (this.closed || this.links[rail] !== undefined) return;
      this.links[rail] = this.options.openRail(rail, this.railEvents[rail]!);
    }, (this.options.retryInterval ?? 1) * 1000);
    timer.unref();
    this.retries.set(rail, timer);
  }

  /** Keeps the process alive and checks for silent rails while segments are out. */
  private arm(): void {
    if (this.watchdog === undefined) {
      const period = Math.max(10, Math.min(100, (this.options.ackTimeout * 1000) / 4));
      this.watchdog = setInterval(() => this.checkRails(), period);
    }
    const interval = this.options.policy.drainInterval;
    if (interval !== undefined && this.drainTimer === undefined) this.scheduleDrain(interval);
  }

  private scheduleDrain(interval: number): void {
    this.drainTimer = this.options.clock.schedule(interval, () => {
      this.drainTimer = undefined;
      this.scheduler.pump();
      if (this.scheduler.waiting && !this.closed) this.scheduleDrain(interval);
    });
  }

  private disarm(): void {
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private checkRails(): void {
    for (const rail of this.scheduler.overdue(this.options.clock.now())) {
      this.failRail(rail, `no acknowledgement for ${this.options.ackTimeout} s`);
    }
    if (!this.scheduler.busy) this.disarm();
  }

  /** The policy's learnt state (rates, weights, decisions). */
  policyState(): Record<string, unknown> {
    return this.options.policy.describe();
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
    for (const t of this.retries.values()) clearTimeout(t);
    for (const link of this.links) link?.close(reason);
  }
}
