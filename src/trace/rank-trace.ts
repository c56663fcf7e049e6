/**
 * A rank's timeline recorder (`--trace`): the calls the program makes (a slice each: name,
 * communicator, peer, tag), the rounds of its collectives, and every message it sends or matches
 * (for the arrows from a send to its receive). Events go into fixed typed arrays; when they are
 * full the chunk is handed to `sink` (the rank's host writes it out) and recording goes on in
 * fresh arrays, up to `limit` events per rank, past which events are counted as dropped. Times
 * come from the rank's clock (virtual under the simulator), in seconds.
 *
 * Off (no recorder), the hooks cost one property test each.
 */
import type { Clock } from '../clock.js';
import { RankProfile, type RankProfileData } from './rank-profile.js';

export const TraceEvent = {
  /** A slice begins: ints = [slice id, name, communicator, peer], tag in `extra`. */
  Begin: 1,
  /** A slice ends: ints = [slice id]. */
  End: 2,
  /** A message leaves: ints = [world dest, sequence, tag], bytes in `extra`. */
  Send: 3,
  /** A message is matched by a receive: ints = [world source, sequence], bytes in `extra`. */
  Match: 4,
  /** A rail took a segment: ints = [rail, world peer], bytes in `extra`. */
  Segment: 5,
} as const;

export const INTS_PER_EVENT = 4;

/** What a rank hands its host: a run of events (transferable arrays) and its string table. */
export interface TraceChunk {
  readonly rank: number;
  readonly count: number;
  readonly kinds: Uint8Array;
  readonly times: Float64Array;
  readonly ints: Int32Array;
  readonly extra: Float64Array;
  /** Every name and communicator name the ids of this rank refer to (ids are stable across chunks). */
  readonly strings: string[];
  /** Events not recorded since the limit was reached (so far, for this rank). */
  readonly dropped: number;
  /** Seconds to add to this rank's times to get seconds since the Unix epoch (0 for virtual time). */
  readonly epoch: number;
  /** True on the rank's last chunk. */
  readonly last: boolean;
  /** On the last chunk of a profiled rank: its profile. */
  readonly profile?: RankProfileData;
}

export class RankTrace {
  readonly rank: number;
  private readonly clock: Clock;
  private readonly capacity: number;
  private readonly limit: number;
  private readonly sink: (chunk: TraceChunk) => void;
  private kinds: Uint8Array;
  private times: Float64Array;
  private ints: Int32Array;
  private extra: Float64Array;
  private count = 0;
  private recorded = 0;
  private dropped = 0;
  private nextSlice = 1;
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  /**
   * Above zero while a traced call runs its synchronous part: calls it makes itself (a blocking
   * send's isend and wait) are part of its slice, not slices of their own.
   */
  mute = 0;
  private closed = false;
  /** The rank's profile (`--profile`), aggregated as it runs. */
  readonly profile: RankProfile | undefined;
  /** False when only the profile is wanted: no event is kept. */
  private readonly events: boolean;
  /** Where the program made the call being traced (file:line:column), when profiling. */
  captureSite: (() => string) | undefined = undefined;

  constructor(rank: number, clock: Clock, options: { chunkEvents: number; limit: number; sink: (chunk: TraceChunk) => void; events?: boolean; profile?: boolean }) {
    this.rank = rank;
    this.clock = clock;
    this.events = options.events ?? true;
    this.capacity = this.events ? Math.max(16, options.chunkEvents) : 0;
    this.limit = this.events ? options.limit : 0;
    this.sink = options.sink;
    this.profile = options.profile === true ? new RankProfile(rank) : undefined;
    this.kinds = new Uint8Array(this.capacity);
    this.times = new Float64Array(this.capacity);
    this.ints = new Int32Array(this.capacity * INTS_PER_EVENT);
    this.extra = new Float64Array(this.capacity);
  }

  /** The id of `text` in this rank's string table. */
  intern(text: string): number {
    let id = this.stringIds.get(text);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(text);
      this.stringIds.set(text, id);
    }
    return id;
  }

  private slot(): number {
    if (!this.events) return -1;
    if (this.closed || this.recorded >= this.limit) {
      this.dropped++;
      return -1;
    }
    if (this.count === this.capacity) this.flush(false);
    this.recorded++;
    return this.count++;
  }

  /** Opens a slice; returns its id for {@link end}. `site`: the program's file:line (profiles). */
  begin(name: string, communicator: string, peer: number, tag: number, site = ''): number {
    const id = this.nextSlice++;
    const time = this.clock.now();
    this.profile?.begin(id, name, communicator, site, time);
    const i = this.slot();
    if (i < 0) return id;
    this.kinds[i] = TraceEvent.Begin;
    this.times[i] = time;
    const o = i * INTS_PER_EVENT;
    this.ints[o] = id;
    this.ints[o + 1] = this.intern(name);
    this.ints[o + 2] = this.intern(communicator);
    this.ints[o + 3] = peer;
    this.extra[i] = tag;
    return id;
  }

  end(id: number): void {
    const time = this.clock.now();
    this.profile?.end(id, time);
    const i = this.slot();
    if (i < 0) return;
    this.kinds[i] = TraceEvent.End;
    this.times[i] = time;
    this.ints[i * INTS_PER_EVENT] = id;
  }

  /** A slice around a call that returns a promise: ends when it settles (the promise is returned as is). */
  around<T>(name: string, communicator: string, peer: number, tag: number, run: () => Promise<T>): Promise<T> {
    const id = this.begin(name, communicator, peer, tag, this.profile !== undefined && this.captureSite !== undefined ? this.captureSite() : '');
    this.mute++;
    let promise: Promise<T>;
    try {
      promise = run();
    } catch (error) {
      this.end(id);
      throw error;
    } finally {
      this.mute--;
    }
    promise.then(
      () => this.end(id),
      () => this.end(id),
    );
    return promise;
  }

  sent(dest: number, sequence: number, tag: number, bytes: number): void {
    this.profile?.sent(dest, bytes);
    this.put(TraceEvent.Send, dest, sequence, tag, bytes);
  }

  matched(source: number, sequence: number, bytes: number): void {
    this.profile?.matched(bytes);
    this.put(TraceEvent.Match, source, sequence, 0, bytes);
  }

  segment(rail: number, peer: number, bytes: number): void {
    this.put(TraceEvent.Segment, rail, peer, 0, bytes);
  }

  /** One event of the kinds that carry three integers and a number, at the clock's time. */
  private put(kind: number, a: number, b: number, c: number, extra: number): void {
    const i = this.slot();
    if (i < 0) return;
    this.kinds[i] = kind;
    this.times[i] = this.clock.now();
    const o = i * INTS_PER_EVENT;
    this.ints[o] = a;
    this.ints[o + 1] = b;
    this.ints[o + 2] = c;
    this.extra[i] = extra;
  }

  /** Hands what is recorded to the sink; `last` once the rank ends (later events are dropped). */
  flush(last: boolean): void {
    if (this.closed) return;
    const n = this.count;
    this.sink({
      rank: this.rank,
      count: n,
      kinds: this.kinds.slice(0, n),
      times: this.times.slice(0, n),
      ints: this.ints.slice(0, n * INTS_PER_EVENT),
      extra: this.extra.slice(0, n),
      strings: this.strings.slice(),
      dropped: this.dropped,
      epoch: this.clock.epoch ?? 0,
      last,
      ...(last && this.profile !== undefined ? { profile: this.profile.data(this.clock.epoch ?? 0) } : {}),
    });
    this.count = 0;
    if (last) this.closed = true;
  }
}
