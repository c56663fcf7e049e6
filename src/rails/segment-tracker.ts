/**
 * The receiver's side of multi-rail delivery: segments of a frame arrive on several rails, in
 * any order and in pieces, and after a rail failure some bytes arrive twice (once on the failed
 * rail before it died, once re-sent). The tracker keeps, per frame, the byte ranges already
 * delivered and returns only the new parts of each piece, so the layer above sees every byte of a
 * message exactly once and can count a message complete when its byte count is reached. A frame
 * is forgotten once complete; a short memory of completed frames drops late duplicates.
 */

/** A half-open byte range [start, end). */
export interface ByteRange {
  start: number;
  end: number;
}

/** Sorted, disjoint ranges; `add` returns the parts of a range that were not there yet. */
export class RangeSet {
  private readonly ranges: ByteRange[] = [];
  private covered = 0;

  get bytes(): number {
    return this.covered;
  }

  add(start: number, end: number): ByteRange[] {
    const fresh: ByteRange[] = [];
    if (end <= start) return fresh;
    const r = this.ranges;
    // First range that ends at or after start.
    let lo = 0;
    let hi = r.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (r[mid]!.end < start) lo = mid + 1;
      else hi = mid;
    }
    let i = lo;
    let cursor = start;
    let mergedStart = start;
    let mergedEnd = end;
    const first = i;
    while (i < r.length && r[i]!.start <= end) {
      const range = r[i]!;
      if (range.start > cursor) fresh.push({ start: cursor, end: range.start });
      cursor = Math.max(cursor, range.end);
      mergedStart = Math.min(mergedStart, range.start);
      mergedEnd = Math.max(mergedEnd, range.end);
      i++;
    }
    if (cursor < end) fresh.push({ start: cursor, end });
    r.splice(first, i - first, { start: mergedStart, end: mergedEnd });
    for (const f of fresh) this.covered += f.end - f.start;
    return fresh;
  }

  /** The ranges held (a copy). */
  toArray(): ByteRange[] {
    return this.ranges.map((x) => ({ ...x }));
  }
}

/** Frames remembered after completion, to drop late duplicates. */
const REMEMBERED = 4096;

/**
 * The frames of one receiver: opened (announced) with their length and the owner's data for them
 * (the multi-rail receiver keeps the frame's header), filled by ranges, forgotten when complete.
 */
export class SegmentTracker<T> {
  private readonly frames = new Map<string, { ranges: RangeSet; length: number; data: T }>();
  private readonly done = new Set<string>();
  private readonly doneOrder: string[] = [];

  /** Frames partly received. */
  get openFrames(): number {
    return this.frames.size;
  }

  /** Frame `key` of `length` bytes is announced (again: nothing changes; after completion: ignored). */
  open(key: string, length: number, data: T): void {
    if (this.done.has(key) || this.frames.has(key)) return;
    if (length === 0) {
      this.finish(key);
      return;
    }
    this.frames.set(key, { ranges: new RangeSet(), length, data });
  }

  /**
   * Bytes [start, end) of frame `key` (offsets in the frame) arrived: the parts not delivered
   * before (none for a duplicate) and the frame's data; undefined for a frame not open (complete
   * and delivered already, or never announced).
   */
  accept(key: string, start: number, end: number): { fresh: ByteRange[]; data: T } | undefined {
    const entry = this.frames.get(key);
    if (entry === undefined) return undefined;
    const fresh = entry.ranges.add(start, Math.min(end, entry.length));
    if (entry.ranges.bytes >= entry.length) {
      this.frames.delete(key);
      this.finish(key);
    }
    return { fresh, data: entry.data };
  }

  private finish(key: string): void {
    this.done.add(key);
    this.doneOrder.push(key);
    if (this.doneOrder.length > REMEMBERED) this.done.delete(this.doneOrder.shift()!);
  }

  /** Forgets what came from one peer (its frames will not complete: the peer is gone). */
  forget(prefix: string): void {
    for (const key of [...this.frames.keys()]) if (key.startsWith(prefix)) this.frames.delete(key);
  }
}
