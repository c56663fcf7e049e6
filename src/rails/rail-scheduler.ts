/**
 * The sender's side of multi-rail scheduling, without sockets: messages are cut into segments by
 * a {@link RailPolicy} and queued on per-rail FIFO queues; a dispatcher hands each rail's queue
 * to its link while the rail's unacknowledged bytes stay under a window; the receiver's
 * acknowledgements complete segments, feed the policy's rate learning and finally complete the
 * message. A rail that fails (its link closes, or it stops acknowledging for `ackTimeout`) leaves
 * the set: its queued and unacknowledged segments are planned again onto the others (the
 * receiver drops whatever arrives twice, see segment-tracker.ts), and it rejoins when the owner
 * says it is back. Time comes from an injected clock, so tests and the simulator drive it.
 */
import type { Clock } from '../clock.js';
import type { RailPolicy, RailView } from '../policy/rail/types.js';

export interface RailSettings {
  /** One-way latency, seconds. */
  latency: number;
  /** Configured rate, bytes/s (0: unknown). */
  nominalRate: number;
}

/** A message handed to the scheduler; `data` is the owner's (header, payload). */
export interface RailMessage<T> {
  readonly length: number;
  readonly data: T;
}

export interface RailSegment<T> {
  /** Unique per scheduler; the receiver acknowledges it. */
  readonly id: number;
  readonly message: RailMessage<T>;
  /** Offset of the segment in the message. */
  readonly offset: number;
  readonly length: number;
  rail: number;
  enqueuedAt: number;
  /** When handed to the link; -1 while queued. */
  sentAt: number;
  /** How many times it was handed to a link (more than once after a rail failed). */
  attempts: number;
  /** The rail had nothing unacknowledged when this segment was handed to it. */
  afterIdle?: boolean;
}

export interface RailSchedulerOptions<T> {
  rails: readonly RailSettings[];
  policy: RailPolicy;
  clock: Clock;
  /** Hands a segment to rail `rail`'s link; false when the link has no room now. */
  transmit: (rail: number, segment: RailSegment<T>) => boolean;
  /** Every segment of the message is acknowledged. */
  messageDone: (message: RailMessage<T>) => void;
  /** Unacknowledged bytes a rail may hold, beyond its first segment. @default 4 MiB */
  window?: number;
  /** Seconds without an acknowledgement on a rail with segments out before it counts as failed. @default 1 */
  ackTimeout?: number;
}

interface RailState extends RailView {
  up: boolean;
  queuedBytes: number;
  queuedSegments: number;
  inFlightBytes: number;
  lastWait: number;
  queue: RailSegment<unknown>[];
  queueHead: number;
  /** Segments handed to the link and not acknowledged yet. */
  inFlightSegments: number;
  lastAckAt: number;
  sentBytes: number;
  ackedBytes: number;
}

/** Part of a message not planned yet (held by the policy, or given back by a failed rail). */
interface Unplanned<T> {
  message: RailMessage<T>;
  offset: number;
  end: number;
  total: number;
}

export class RailScheduler<T> {
  private readonly options: RailSchedulerOptions<T>;
  private readonly rails: RailState[];
  private readonly unplanned: Unplanned<T>[] = [];
  private readonly remainingSegments = new Map<RailMessage<T>, number>();
  /** Segments handed to a link and not acknowledged yet, by id (every rail's: one map per link). */
  private readonly inFlight = new Map<number, RailSegment<T>>();
  private nextId = 1;
  private readonly window: number;
  private readonly ackTimeout: number;
  /** Segments given back by failed rails and planned again on the others. */
  resent = 0;

  constructor(options: RailSchedulerOptions<T>) {
    this.options = options;
    this.window = options.window ?? 4 * 1024 * 1024;
    this.ackTimeout = options.ackTimeout ?? 1;
    this.rails = options.rails.map((r, index) => ({
      index,
      up: true,
      latency: r.latency,
      nominalRate: r.nominalRate,
      queuedBytes: 0,
      queuedSegments: 0,
      inFlightBytes: 0,
      lastWait: 0,
      queue: [],
      queueHead: 0,
      inFlightSegments: 0,
      lastAckAt: -Infinity,
      sentBytes: 0,
      ackedBytes: 0,
    }));
  }

  get railCount(): number {
    return this.rails.length;
  }

  /** The rails as the policy sees them. */
  views(): readonly RailView[] {
    return this.rails;
  }

  isUp(rail: number): boolean {
    return this.rails[rail]!.up;
  }

  /** True while any message is not completely acknowledged. */
  get busy(): boolean {
    return this.remainingSegments.size > 0;
  }

  /** True when a segment waits in a FIFO queue or a part waits to be planned. */
  get waiting(): boolean {
    return this.unplanned.length > 0 || this.rails.some((r) => r.queuedSegments > 0);
  }

  /** The data of every message not completely acknowledged yet. */
  *pendingData(): IterableIterator<T> {
    for (const message of this.remainingSegments.keys()) yield message.data;
  }

  /** Bytes each rail carried (acknowledged), for reports. */
  ackedBytes(): number[] {
    return this.rails.map((r) => r.ackedBytes);
  }

  /** Plans a message onto the rails and starts sending what the links take. */
  submit(message: RailMessage<T>): void {
    this.remainingSegments.set(message, 0);
    this.unplanned.push({ message, offset: 0, end: message.length, total: message.length });
    this.plan();
    if (this.options.policy.drainInterval === undefined) this.pump();
  }

  /** Plans held parts, front to back, while the policy gives rails. */
  private plan(): void {
    const now = this.options.clock.now();
    while (this.unplanned.length > 0) {
      const part = this.unplanned[0]!;
      while (part.offset < part.end) {
        const choice = this.options.policy.next(part.end - part.offset, part.total, this.rails, now);
        if (choice === undefined) return;
        const rail = this.rails[choice.rail];
        if (rail === undefined || !rail.up) throw new RangeError(`rail policy ${this.options.policy.name} chose rail ${choice.rail}, which is not up`);
        const length = Math.max(1, Math.min(Math.floor(choice.bytes), part.end - part.offset));
        const segment: RailSegment<T> = { id: this.nextId++, message: part.message, offset: part.offset, length, rail: choice.rail, enqueuedAt: now, sentAt: -1, attempts: 0 };
        part.offset += length;
        this.remainingSegments.set(part.message, (this.remainingSegments.get(part.message) ?? 0) + 1);
        rail.queue.push(segment as RailSegment<unknown>);
        rail.queuedBytes += length;
        rail.queuedSegments++;
      }
      this.unplanned.shift();
    }
  }

  /** Plans what the policy lets plan now, then hands queued segments to the links while they have room and the window allows. */
  pump(): void {
    if (this.unplanned.length > 0) this.plan();
    const now = this.options.clock.now();
    let dequeued = false;
    for (const rail of this.rails) {
      if (!rail.up) continue;
      while (rail.queueHead < rail.queue.length) {
        const segment = rail.queue[rail.queueHead]! as RailSegment<T>;
        if (rail.inFlightBytes > 0 && rail.inFlightBytes + segment.length > this.window) break;
        segment.sentAt = now;
        segment.afterIdle = rail.inFlightSegments === 0;
        segment.attempts++;
        this.inFlight.set(segment.id, segment);
        rail.inFlightSegments++;
        rail.inFlightBytes += segment.length;
        if (!this.options.transmit(rail.index, segment)) {
          this.inFlight.delete(segment.id);
          rail.inFlightSegments--;
          rail.inFlightBytes -= segment.length;
          segment.sentAt = -1;
          segment.attempts--;
          break;
        }
        rail.queue[rail.queueHead++] = undefined as unknown as RailSegment<unknown>;
        rail.queuedBytes -= segment.length;
        rail.queuedSegments--;
        rail.lastWait = now - segment.enqueuedAt;
        this.options.policy.dequeued?.(rail.index, rail.lastWait, now);
        dequeued = true;
      }
      if (rail.queueHead === rail.queue.length && rail.queueHead > 0) {
        rail.queue = [];
        rail.queueHead = 0;
      }
    }
    // A held part may go now that queues moved.
    if (dequeued && this.unplanned.length > 0) {
      this.plan();
      if (this.options.policy.drainInterval === undefined) this.pump();
    }
  }

  /** The receiver acknowledged segment `id` (unknown ids, e.g. of a resent segment, are ignored). */
  acked(id: number): void {
    const now = this.options.clock.now();
    const segment = this.inFlight.get(id);
    if (segment === undefined) return;
    const rail = this.rails[segment.rail]!;
    this.inFlight.delete(id);
    rail.inFlightSegments--;
    rail.inFlightBytes -= segment.length;
    rail.ackedBytes += segment.length;
    const serviceStart = Math.max(segment.sentAt, rail.lastAckAt);
    rail.lastAckAt = now;
    this.options.policy.completed({ rail: rail.index, bytes: segment.length, sentAt: segment.sentAt, ackedAt: now, serviceStart, afterIdle: segment.afterIdle === true });
    this.finishSegment(segment);
  }

  private finishSegment(segment: RailSegment<T>): void {
    const left = (this.remainingSegments.get(segment.message) ?? 1) - 1;
    if (left === 0 && !this.unplanned.some((p) => p.message === segment.message)) {
      this.remainingSegments.delete(segment.message);
      this.options.messageDone(segment.message);
    } else {
      this.remainingSegments.set(segment.message, left);
    }
  }

  /**
   * Rail `index` failed: it leaves the set, and its queued and unacknowledged segments are
   * planned again on the others. Returns the number of segments given back.
   */
  railFailed(index: number): number {
    const rail = this.rails[index]!;
    if (!rail.up) return 0;
    rail.up = false;
    const back: RailSegment<T>[] = [];
    for (const s of this.inFlight.values()) if (s.rail === index) back.push(s);
    for (const s of back) this.inFlight.delete(s.id);
    for (let i = rail.queueHead; i < rail.queue.length; i++) back.push(rail.queue[i]! as RailSegment<T>);
    rail.inFlightSegments = 0;
    rail.inFlightBytes = 0;
    rail.queue = [];
    rail.queueHead = 0;
    rail.queuedBytes = 0;
    rail.queuedSegments = 0;
    back.sort((a, b) => a.id - b.id);
    this.resent += back.length;
    for (const s of back) {
      // The segment is replaced by the parts planned from its range.
      this.remainingSegments.set(s.message, (this.remainingSegments.get(s.message) ?? 1) - 1);
      this.unplanned.push({ message: s.message, offset: s.offset, end: s.offset + s.length, total: s.length });
    }
    if (this.rails.some((r) => r.up)) {
      this.plan();
      if (this.options.policy.drainInterval === undefined) this.pump();
    }
    return back.length;
  }

  /** Rail `index` is back: it rejoins the set. */
  railRecovered(index: number): void {
    const rail = this.rails[index]!;
    if (rail.up) return;
    rail.up = true;
    rail.lastAckAt = -Infinity;
    this.plan();
    if (this.options.policy.drainInterval === undefined) this.pump();
  }

  /** Rails with segments out and no acknowledgement for ackTimeout seconds (to be failed by the owner). */
  overdue(now: number): number[] {
    const oldest = this.rails.map(() => Infinity);
    for (const s of this.inFlight.values()) if (s.sentAt < oldest[s.rail]!) oldest[s.rail] = s.sentAt;
    const out: number[] = [];
    for (const rail of this.rails) {
      if (!rail.up || rail.inFlightSegments === 0) continue;
      if (now - Math.max(oldest[rail.index]!, rail.lastAckAt) > this.ackTimeout) out.push(rail.index);
    }
    return out;
  }
}
