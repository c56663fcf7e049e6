/**
 * When each moving flow will finish at its current rate: an indexed binary min-heap keyed by
 * (time, flow id), so a rate change moves one entry in O(log n) instead of cancelling an event and
 * scheduling another (a solve changes the rates of a whole connected component: thousands of
 * flows behind one backbone). The flow model keeps a single engine event armed at the earliest
 * time.
 *
 * ```
 *  heap:  [ (t0, f7) | (t1, f2) (t1, f9) | ... ]     pos[f] = index of flow f in the heap, or -1
 * ```
 */
export class CompletionHeap {
  private ids: number[] = [];
  private times: number[] = [];
  private pos: Int32Array = new Int32Array(64).fill(-1);

  get size(): number {
    return this.ids.length;
  }

  /** Earliest completion time, or Infinity. */
  peekTime(): number {
    return this.ids.length > 0 ? this.times[0]! : Infinity;
  }

  /** Flow of the earliest completion (undefined when empty). */
  peekId(): number | undefined {
    return this.ids[0];
  }

  has(id: number): boolean {
    return id < this.pos.length && this.pos[id]! >= 0;
  }

  /** Sets (adds or moves) the completion time of flow `id`. */
  set(id: number, time: number): void {
    if (id >= this.pos.length) {
      const grown = new Int32Array(Math.max(id + 1, this.pos.length * 2)).fill(-1);
      grown.set(this.pos);
      this.pos = grown;
    }
    const at = this.pos[id]!;
    if (at < 0) {
      this.ids.push(id);
      this.times.push(time);
      this.pos[id] = this.ids.length - 1;
      this.up(this.ids.length - 1);
      return;
    }
    const old = this.times[at]!;
    this.times[at] = time;
    if (time < old) this.up(at);
    else this.down(at);
  }

  /** Removes flow `id` if present. */
  delete(id: number): void {
    if (!this.has(id)) return;
    const at = this.pos[id]!;
    this.pos[id] = -1;
    const lastId = this.ids.pop()!;
    const lastTime = this.times.pop()!;
    if (at === this.ids.length) return;
    this.ids[at] = lastId;
    this.times[at] = lastTime;
    this.pos[lastId] = at;
    this.up(at);
    this.down(this.pos[lastId]!);
  }

  /** Removes and returns the flow of the earliest completion. */
  pop(): number | undefined {
    const id = this.ids[0];
    if (id !== undefined) this.delete(id);
    return id;
  }

  private less(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta < tb || (ta === tb && this.ids[a]! < this.ids[b]!);
  }

  private swap(a: number, b: number): void {
    const ia = this.ids[a]!;
    const ib = this.ids[b]!;
    const ta = this.times[a]!;
    this.ids[a] = ib;
    this.times[a] = this.times[b]!;
    this.ids[b] = ia;
    this.times[b] = ta;
    this.pos[ib] = a;
    this.pos[ia] = b;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.ids.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) return;
      const r = l + 1;
      const c = r < n && this.less(r, l) ? r : l;
      if (!this.less(c, i)) return;
      this.swap(i, c);
      i = c;
    }
  }
}
