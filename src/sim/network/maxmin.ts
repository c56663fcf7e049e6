/**
 * The max-min fair bandwidth-sharing solver of the simulator: flows cross links, each link has a
 * capacity, and every flow gets a rate such that no link is over capacity and no flow can go
 * faster without slowing a flow that has a smaller (or equal) rate per unit of weight. Pure: no
 * clock, no events; the network model asks it for rates and turns them into completion times.
 *
 * SimGrid counterpart: the lmm solver (`src/kernel/lmm/maxmin.cpp`) as the CM02 network model
 * drives it (`src/kernel/resource/models/network_cm02.cpp`): one constraint per link, one
 * variable per flow with a consumption coefficient on every link it crosses (1 on its route;
 * cross-traffic adds 0.05 on the reverse route, 1.05 where the two meet). Our `weight` is the
 * inverse of SimGrid's `sharing_penalty` (a flow of weight w gets w times the share of a weight-1
 * flow on a common bottleneck) and `bound` is the variable's bound (CM02 uses it for the TCP
 * window limit, gamma / (2 * RTT)). Latency, the TCP-gamma/window arithmetic and FATPIPE
 * (unshared) links are the caller's job.
 *
 * Algorithm: weighted progressive filling. Every flow starts unfixed. Repeatedly take the most
 * constrained item: either the link with the smallest remaining capacity per unit of unfixed
 * weight, key(l) = remaining(l) / Σ coef(f, l) weight(f) over its unfixed flows, or the unfixed
 * flow with the smallest bound / weight. If it is a link at level λ = key(l), each of its unfixed
 * flows f gets rate weight(f) * λ; if it is a flow, it gets its bound. A fixed flow's rate times
 * its coefficient is subtracted from the remaining capacity (and its weight times the coefficient
 * from the unfixed weight) of every link it crosses.
 * Repeat until every flow is fixed; flows whose every link has infinite capacity and no bound get
 * Infinity. In exact arithmetic a link's key never decreases when one of its flows is fixed at
 * the current level (remaining/weight ≥ λ before implies (remaining - wλ)/(weight - w) ≥
 * remaining/weight after), so the levels come out in increasing order and one indexed binary heap
 * (keys only ever sift down) holds the links and the bounded flows.
 *
 * Incremental: `addFlow`, `removeFlow`, `setCapacity`, `setBound` and `setWeight` only mark
 * links or flows dirty. `solve()` walks, from the dirty items, the connected components of the
 * flow/link graph (two flows are connected when they share a link) and refills only those;
 * every other flow keeps its rate and is not reported. This is SimGrid's selective update
 * (`System::update_modified_cnst_set`), done with an explicit breadth-first walk.
 *
 * Complexity of one `solve()`, for the touched components with F flows, L links and E
 * (flow, link) pairs: O(F + L + E) for the walk and O((F + L + E) log(F + L)) for the filling
 * (each pair updates one heap key once). Nothing outside the touched components is looked at,
 * and the scratch arrays are reused across solves (they grow with the system, never per solve).
 *
 * ```
 *   link A (10): f1 f3          level 5:  A is the bottleneck (10 / 2), f1 = f3 = 5
 *   link B (20): f2 f3          then B has 20 - 5 = 15 left for f2 alone: f2 = 15
 * ```
 */

/** Options of {@link MaxMinSystem.addFlow}. */
export interface FlowOptions {
  /** Share relative to other flows on a common bottleneck (weighted max-min), > 0. @default 1 */
  weight?: number;
  /** Upper limit on the flow's rate, ≥ 0 (e.g. the TCP window over the RTT). @default Infinity */
  bound?: number;
  /**
   * Identical flows this one stands for (same links, weight and bound), an integer ≥ 1: it
   * weighs and consumes `count` times on every link it crosses, and its rate is that of each of
   * them. Max-min gives identical flows identical rates, so n flows between the same two hosts
   * can be solved as one. @default 1
   */
  count?: number;
  /**
   * Consumption per unit of rate on each link, in the order of the links (> 0 each): a flow of
   * rate r takes coef x r of the link. @default 1 on every link
   */
  coefficients?: readonly number[];
}

/** Rates within this relative distance of the previous rate count as unchanged. */
const SAME_RATE = 1e-12;

/**
 * A max-min fair sharing system of links (capacities) and flows (sets of links), solved
 * incrementally.
 *
 * @example
 * ```ts
 * const sys = new MaxMinSystem();
 * const a = sys.addLink(10), b = sys.addLink(20);
 * const f1 = sys.addFlow([a]), f2 = sys.addFlow([b]), f3 = sys.addFlow([a, b]);
 * sys.solve();               // [f1, f2, f3]: all new
 * sys.rate(f2);              // 15
 * sys.setCapacity(a, 5);
 * sys.solve();               // f1, f2 and f3 changed: 2.5, 17.5, 2.5
 * ```
 */
export class MaxMinSystem {
  // ---- links (index = link id) ----
  private nLinks = 0;
  private capacity = new Float64Array(16);
  private linkElems: number[][] = [];
  private linkDirty = new Uint8Array(16);
  private linkSeen = new Uint32Array(16);
  private remaining = new Float64Array(16);
  private remainingErr = new Float64Array(16); // Neumaier compensation of `remaining`
  private weightSum = new Float64Array(16);
  private weightSumErr = new Float64Array(16); // Neumaier compensation of `weightSum`
  private unfixed = new Int32Array(16);
  private linkHeapPos = new Int32Array(16);

  // ---- flows (index = flow id; removed ids go to a free list) ----
  private flowSlots = 0;
  private liveFlows = 0;
  private freeFlows: number[] = [];
  private flowAlive = new Uint8Array(16);
  private flowFresh = new Uint8Array(16); // added since the last solve: always reported
  private flowDirty = new Uint8Array(16);
  private flowSeen = new Uint32Array(16);
  private flowFixed = new Uint32Array(16);
  private flowWeight = new Float64Array(16);
  private flowBound = new Float64Array(16);
  private flowMult = new Float64Array(16);
  private flowRate = new Float64Array(16);
  private newRate = new Float64Array(16);
  private flowHeapPos = new Int32Array(16);
  private flowElems: number[][] = [];

  // ---- elements: one per (flow, link) pair, ids recycled ----
  private elemSlots = 0;
  private freeElems: number[] = [];
  private elemFlow = new Int32Array(64);
  private elemLink = new Int32Array(64);
  private elemPos = new Int32Array(64); // index of the element in its link's list
  private elemCoef = new Float64Array(64); // consumption per unit of the flow's rate

  // ---- dirty seeds and per-solve scratch ----
  private dirtyLinks: number[] = [];
  private dirtyFlows: number[] = [];
  private epoch = 0;
  private compFlows = new Int32Array(16);
  private compLinks = new Int32Array(16);
  private compLinkCount = 0;
  /** Heap items: a link id l ≥ 0, or a bounded flow f as -(f + 1). */
  private heapItem = new Int32Array(32);
  private heapKey = new Float64Array(32);
  private heapSize = 0;

  /** Number of flows whose rates the last `solve()` recomputed (the touched components). */
  lastRecomputed = 0;

  /** Number of links, ids 0 .. linkCount - 1. */
  get linkCount(): number {
    return this.nLinks;
  }

  /** Number of live flows. */
  get flowCount(): number {
    return this.liveFlows;
  }

  /** Adds a link of the given capacity (≥ 0, may be Infinity) and returns its id. */
  addLink(capacity: number): number {
    checkCapacity(capacity);
    const l = this.nLinks++;
    if (l === this.capacity.length) this.growLinks();
    this.capacity[l] = capacity;
    this.linkElems.push([]);
    this.linkHeapPos[l] = -1;
    return l;
  }

  /** Changes a link's capacity; the flows of its component are recomputed at the next solve. */
  setCapacity(link: number, capacity: number): void {
    this.checkLink(link);
    checkCapacity(capacity);
    if (this.capacity[link] === capacity) return;
    this.capacity[link] = capacity;
    this.markLink(link);
  }

  /** The capacity of a link. */
  capacityOf(link: number): number {
    this.checkLink(link);
    return this.capacity[link]!;
  }

  /** Sum of the rates of the flows on a link (after the last solve), for utilisation. */
  usage(link: number): number {
    this.checkLink(link);
    const elems = this.linkElems[link]!;
    let sum = 0;
    for (let i = 0; i < elems.length; i++) {
      const e = elems[i]!;
      const f = this.elemFlow[e]!;
      sum += this.flowRate[f]! * this.flowMult[f]! * this.elemCoef[e]!;
    }
    return sum;
  }

  /**
   * Adds a flow over the given links (each at most once; none is allowed: the rate is then the
   * bound) and returns its id. Its rate is 0 until the next `solve()`, which reports it.
   */
  addFlow(links: readonly number[], options?: FlowOptions): number {
    const weight = options?.weight ?? 1;
    const bound = options?.bound ?? Infinity;
    const count = options?.count ?? 1;
    checkWeight(weight);
    checkBound(bound);
    checkCount(count);
    const coefficients = options?.coefficients;
    if (coefficients !== undefined) {
      if (coefficients.length !== links.length) throw new RangeError(`maxmin: ${coefficients.length} coefficients for ${links.length} links`);
      for (const c of coefficients) if (!(c > 0 && c < Infinity)) throw new RangeError(`maxmin: coefficient must be finite and > 0, got ${c}`);
    }
    for (let i = 0; i < links.length; i++) {
      this.checkLink(links[i]!);
      for (let j = 0; j < i; j++) {
        if (links[j] === links[i]) throw new RangeError(`maxmin: link ${links[i]} appears twice in one flow`);
      }
    }
    let f: number;
    if (this.freeFlows.length > 0) f = this.freeFlows.pop()!;
    else {
      f = this.flowSlots++;
      if (f === this.flowAlive.length) this.growFlows();
      this.flowElems.push([]);
    }
    this.liveFlows++;
    this.flowAlive[f] = 1;
    this.flowFresh[f] = 1;
    this.flowWeight[f] = weight;
    this.flowBound[f] = bound;
    this.flowMult[f] = count;
    this.flowRate[f] = 0;
    this.flowHeapPos[f] = -1;
    const mine = this.flowElems[f]!;
    for (let i = 0; i < links.length; i++) {
      const l = links[i]!;
      const e = this.newElem();
      const theirs = this.linkElems[l]!;
      this.elemFlow[e] = f;
      this.elemLink[e] = l;
      this.elemPos[e] = theirs.length;
      this.elemCoef[e] = coefficients === undefined ? 1 : coefficients[i]!;
      theirs.push(e);
      mine.push(e);
    }
    this.markFlow(f);
    return f;
  }

  /** Removes a flow; the flows that shared links with it are recomputed at the next solve. */
  removeFlow(flow: number): void {
    this.checkFlow(flow);
    const mine = this.flowElems[flow]!;
    for (let i = 0; i < mine.length; i++) {
      const e = mine[i]!;
      const l = this.elemLink[e]!;
      const theirs = this.linkElems[l]!;
      // Swap-remove from the link's list, keeping the moved element's position right.
      const last = theirs.pop()!;
      if (last !== e) {
        const p = this.elemPos[e]!;
        theirs[p] = last;
        this.elemPos[last] = p;
      }
      this.freeElems.push(e);
      this.markLink(l);
    }
    mine.length = 0;
    this.flowAlive[flow] = 0;
    this.flowFresh[flow] = 0;
    this.flowRate[flow] = 0;
    this.liveFlows--;
    this.freeFlows.push(flow);
  }

  /** Changes a flow's bound (≥ 0, Infinity for none). */
  setBound(flow: number, bound: number): void {
    this.checkFlow(flow);
    checkBound(bound);
    if (this.flowBound[flow] === bound) return;
    this.flowBound[flow] = bound;
    this.markFlow(flow);
  }

  /** Changes a flow's weight (> 0). */
  setWeight(flow: number, weight: number): void {
    this.checkFlow(flow);
    checkWeight(weight);
    if (this.flowWeight[flow] === weight) return;
    this.flowWeight[flow] = weight;
    this.markFlow(flow);
  }

  /** Changes how many identical flows a flow stands for (an integer ≥ 1; see {@link FlowOptions.count}). */
  setCount(flow: number, count: number): void {
    this.checkFlow(flow);
    checkCount(count);
    if (this.flowMult[flow] === count) return;
    this.flowMult[flow] = count;
    this.markFlow(flow);
  }

  /** The flow's rate after the last `solve()` (0 for a flow added since). */
  rate(flow: number): number {
    this.checkFlow(flow);
    return this.flowRate[flow]!;
  }

  /** The links a flow crosses, in the order given to `addFlow`. */
  linksOf(flow: number): number[] {
    this.checkFlow(flow);
    const mine = this.flowElems[flow]!;
    const out = new Array<number>(mine.length);
    for (let i = 0; i < mine.length; i++) out[i] = this.elemLink[mine[i]!]!;
    return out;
  }

  /**
   * Recomputes the rates of the components touched since the last solve and returns the ids of
   * the flows whose rate changed (relative change above 1e-12), including every flow added
   * since. The order is deterministic (component walk order), not sorted.
   */
  solve(): number[] {
    const changed: number[] = [];
    const nFlows = this.collect();
    this.lastRecomputed = nFlows;
    if (nFlows === 0) return changed;
    this.fill(nFlows);
    const comp = this.compFlows;
    for (let i = 0; i < nFlows; i++) {
      const f = comp[i]!;
      const next = this.newRate[f]!;
      const prev = this.flowRate[f]!;
      if (this.flowFresh[f] === 1 || rateMoved(prev, next)) {
        this.flowFresh[f] = 0;
        this.flowRate[f] = next;
        changed.push(f);
      }
    }
    return changed;
  }

  // ---------------------------------------------------------------------------------------------
  // The component walk

  /** Breadth-first walk from the dirty links and flows; fills compFlows/compLinks, returns F. */
  private collect(): number {
    if (this.dirtyLinks.length === 0 && this.dirtyFlows.length === 0) return 0;
    const stamp = this.nextEpoch();
    let nFlows = 0;
    let nLinks = 0;
    const dirtyLinks = this.dirtyLinks;
    for (let i = 0; i < dirtyLinks.length; i++) {
      const l = dirtyLinks[i]!;
      this.linkDirty[l] = 0;
      if (this.linkSeen[l] !== stamp) {
        this.linkSeen[l] = stamp;
        this.compLinks[nLinks++] = l;
      }
    }
    dirtyLinks.length = 0;
    const dirtyFlows = this.dirtyFlows;
    for (let i = 0; i < dirtyFlows.length; i++) {
      const f = dirtyFlows[i]!;
      this.flowDirty[f] = 0;
      if (this.flowAlive[f] === 1 && this.flowSeen[f] !== stamp) {
        this.flowSeen[f] = stamp;
        this.compFlows[nFlows++] = f;
      }
    }
    dirtyFlows.length = 0;
    // Alternate: links queued so far bring in their flows, flows bring in their links.
    let li = 0;
    let fi = 0;
    while (li < nLinks || fi < nFlows) {
      for (; li < nLinks; li++) {
        const elems = this.linkElems[this.compLinks[li]!]!;
        for (let k = 0; k < elems.length; k++) {
          const f = this.elemFlow[elems[k]!]!;
          if (this.flowSeen[f] !== stamp) {
            this.flowSeen[f] = stamp;
            this.compFlows[nFlows++] = f;
          }
        }
      }
      for (; fi < nFlows; fi++) {
        const elems = this.flowElems[this.compFlows[fi]!]!;
        for (let k = 0; k < elems.length; k++) {
          const l = this.elemLink[elems[k]!]!;
          if (this.linkSeen[l] !== stamp) {
            this.linkSeen[l] = stamp;
            this.compLinks[nLinks++] = l;
          }
        }
      }
    }
    this.compLinkCount = nLinks;
    return nFlows;
  }

  // ---------------------------------------------------------------------------------------------
  // Progressive filling over the collected components

  private fill(nFlows: number): void {
    const fixedStamp = this.nextEpoch();
    const nLinks = this.compLinkCount;
    this.heapSize = 0;
    for (let i = 0; i < nLinks; i++) {
      const l = this.compLinks[i]!;
      const elems = this.linkElems[l]!;
      this.linkHeapPos[l] = -1;
      if (elems.length === 0) continue;
      let ws = 0;
      for (let k = 0; k < elems.length; k++) {
        const e = elems[k]!;
        const f = this.elemFlow[e]!;
        ws += this.flowWeight[f]! * this.flowMult[f]! * this.elemCoef[e]!;
      }
      this.remaining[l] = this.capacity[l]!;
      this.remainingErr[l] = 0;
      this.weightSum[l] = ws;
      this.weightSumErr[l] = 0;
      this.unfixed[l] = elems.length;
      this.heapAppend(l, this.capacity[l]! / ws);
    }
    for (let i = 0; i < nFlows; i++) {
      const f = this.compFlows[i]!;
      this.flowHeapPos[f] = -1;
      const bound = this.flowBound[f]!;
      if (bound !== Infinity) this.heapAppend(-(f + 1), bound / this.flowWeight[f]!);
    }
    for (let i = (this.heapSize >> 1) - 1; i >= 0; i--) this.siftDown(i);

    while (this.heapSize > 0) {
      const level = this.heapKey[0]!;
      if (level === Infinity) break;
      const item = this.heapItem[0]!;
      this.heapRemove(0);
      if (item < 0) {
        const f = -item - 1;
        this.fixFlow(f, this.flowBound[f]!, level, fixedStamp);
      } else {
        const elems = this.linkElems[item]!;
        for (let k = 0; k < elems.length; k++) {
          const f = this.elemFlow[elems[k]!]!;
          if (this.flowFixed[f] !== fixedStamp) this.fixFlow(f, this.flowWeight[f]! * level, level, fixedStamp);
        }
      }
    }
    // Leave no stale heap positions behind (the loop stops at an infinite level).
    for (let i = 0; i < this.heapSize; i++) this.setHeapPos(this.heapItem[i]!, -1);
    this.heapSize = 0;
    // Whatever is left is limited by nothing finite.
    for (let i = 0; i < nFlows; i++) {
      const f = this.compFlows[i]!;
      if (this.flowFixed[f] !== fixedStamp) {
        this.flowFixed[f] = fixedStamp;
        this.newRate[f] = Infinity;
      }
    }
  }

  /** Fixes flow f at `rate` and takes it out of its links' remaining capacity and weight. */
  private fixFlow(f: number, rate: number, level: number, fixedStamp: number): void {
    this.flowFixed[f] = fixedStamp;
    this.newRate[f] = rate;
    const hp = this.flowHeapPos[f]!;
    if (hp >= 0) this.heapRemove(hp);
    // A flow standing for n identical ones takes n times its rate and weight out of each link.
    const n = this.flowMult[f]!;
    const wn = this.flowWeight[f]! * n;
    const rn = rate * n;
    const elems = this.flowElems[f]!;
    for (let k = 0; k < elems.length; k++) {
      const e = elems[k]!;
      const l = this.elemLink[e]!;
      const left = --this.unfixed[l];
      const pos = this.linkHeapPos[l]!;
      if (pos < 0) continue; // the link being saturated, or one already done
      if (left === 0) {
        this.heapRemove(pos);
        continue;
      }
      if (this.remaining[l] === Infinity) continue; // key stays Infinity
      const coef = this.elemCoef[e]!;
      const used = rn * coef;
      const w = wn * coef;
      // Neumaier-compensated subtraction: weights of very different sizes must not cancel.
      let s = this.remaining[l]!;
      let t = s - used;
      this.remainingErr[l] += Math.abs(s) >= used ? s - t - used : -used - t + s;
      this.remaining[l] = t;
      s = this.weightSum[l]!;
      t = s - w;
      this.weightSumErr[l] += Math.abs(s) >= w ? s - t - w : -w - t + s;
      this.weightSum[l] = t;
      const rem = Math.max(0, this.remaining[l]! + this.remainingErr[l]!);
      let ws = this.weightSum[l]! + this.weightSumErr[l]!;
      if (!(ws > 0)) ws = this.resumWeights(l, fixedStamp);
      let key = rem / ws;
      // Exact arithmetic never lowers a key below the current level; rounding must not either.
      if (!(key >= level)) key = level;
      this.heapKey[pos] = key;
      this.siftDown(pos);
    }
  }

  /** Sums the weights of a link's unfixed flows afresh (only if rounding ate the running sum). */
  private resumWeights(l: number, fixedStamp: number): number {
    const elems = this.linkElems[l]!;
    let ws = 0;
    for (let k = 0; k < elems.length; k++) {
      const e = elems[k]!;
      const f = this.elemFlow[e]!;
      if (this.flowFixed[f] !== fixedStamp) ws += this.flowWeight[f]! * this.flowMult[f]! * this.elemCoef[e]!;
    }
    this.weightSum[l] = ws;
    this.weightSumErr[l] = 0;
    return ws;
  }

  // ---------------------------------------------------------------------------------------------
  // Indexed binary min-heap over heapItem/heapKey

  private heapAppend(item: number, key: number): void {
    const i = this.heapSize++;
    this.heapItem[i] = item;
    this.heapKey[i] = key;
    this.setHeapPos(item, i);
  }

  private setHeapPos(item: number, pos: number): void {
    if (item >= 0) this.linkHeapPos[item] = pos;
    else this.flowHeapPos[-item - 1] = pos;
  }

  private heapRemove(pos: number): void {
    this.setHeapPos(this.heapItem[pos]!, -1);
    const last = --this.heapSize;
    if (pos === last) return;
    this.heapItem[pos] = this.heapItem[last]!;
    this.heapKey[pos] = this.heapKey[last]!;
    this.setHeapPos(this.heapItem[pos]!, pos);
    this.siftDown(pos);
    this.siftUp(pos);
  }

  private siftUp(pos: number): void {
    const items = this.heapItem;
    const keys = this.heapKey;
    const item = items[pos]!;
    const key = keys[pos]!;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      if (keys[parent]! <= key) break;
      items[pos] = items[parent]!;
      keys[pos] = keys[parent]!;
      this.setHeapPos(items[pos]!, pos);
      pos = parent;
    }
    items[pos] = item;
    keys[pos] = key;
    this.setHeapPos(item, pos);
  }

  private siftDown(pos: number): void {
    const items = this.heapItem;
    const keys = this.heapKey;
    const n = this.heapSize;
    const item = items[pos]!;
    const key = keys[pos]!;
    for (;;) {
      let child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= key) break;
      items[pos] = items[child]!;
      keys[pos] = keys[child]!;
      this.setHeapPos(items[pos]!, pos);
      pos = child;
    }
    items[pos] = item;
    keys[pos] = key;
    this.setHeapPos(item, pos);
  }

  // ---------------------------------------------------------------------------------------------
  // Bookkeeping

  private markLink(l: number): void {
    if (this.linkDirty[l] === 0) {
      this.linkDirty[l] = 1;
      this.dirtyLinks.push(l);
    }
  }

  private markFlow(f: number): void {
    if (this.flowDirty[f] === 0) {
      this.flowDirty[f] = 1;
      this.dirtyFlows.push(f);
    }
  }

  private nextEpoch(): number {
    if (this.epoch === 0xffffffff) {
      // Wrapped: forget every old stamp so none can be mistaken for a new one.
      this.epoch = 0;
      this.linkSeen.fill(0);
      this.flowSeen.fill(0);
      this.flowFixed.fill(0);
    }
    return ++this.epoch;
  }

  private newElem(): number {
    if (this.freeElems.length > 0) return this.freeElems.pop()!;
    const e = this.elemSlots++;
    if (e === this.elemFlow.length) {
      const n = e * 2;
      this.elemFlow = grow(this.elemFlow, n);
      this.elemLink = grow(this.elemLink, n);
      this.elemPos = grow(this.elemPos, n);
      this.elemCoef = grow(this.elemCoef, n);
    }
    return e;
  }

  private growLinks(): void {
    const n = this.capacity.length * 2;
    this.capacity = grow(this.capacity, n);
    this.linkDirty = grow(this.linkDirty, n);
    this.linkSeen = grow(this.linkSeen, n);
    this.remaining = grow(this.remaining, n);
    this.remainingErr = grow(this.remainingErr, n);
    this.weightSum = grow(this.weightSum, n);
    this.weightSumErr = grow(this.weightSumErr, n);
    this.unfixed = grow(this.unfixed, n);
    this.linkHeapPos = grow(this.linkHeapPos, n);
    this.compLinks = grow(this.compLinks, n);
    this.growHeap();
  }

  private growFlows(): void {
    const n = this.flowAlive.length * 2;
    this.flowAlive = grow(this.flowAlive, n);
    this.flowFresh = grow(this.flowFresh, n);
    this.flowDirty = grow(this.flowDirty, n);
    this.flowSeen = grow(this.flowSeen, n);
    this.flowFixed = grow(this.flowFixed, n);
    this.flowWeight = grow(this.flowWeight, n);
    this.flowBound = grow(this.flowBound, n);
    this.flowMult = grow(this.flowMult, n);
    this.flowRate = grow(this.flowRate, n);
    this.newRate = grow(this.newRate, n);
    this.flowHeapPos = grow(this.flowHeapPos, n);
    this.compFlows = grow(this.compFlows, n);
    this.growHeap();
  }

  /** The heap holds at most every link and every flow. */
  private growHeap(): void {
    const n = this.capacity.length + this.flowAlive.length;
    if (n <= this.heapItem.length) return;
    this.heapItem = grow(this.heapItem, n);
    this.heapKey = grow(this.heapKey, n);
  }

  private checkLink(link: number): void {
    if (!Number.isInteger(link) || link < 0 || link >= this.nLinks) throw new RangeError(`maxmin: no link ${link}`);
  }

  private checkFlow(flow: number): void {
    if (!Number.isInteger(flow) || flow < 0 || flow >= this.flowSlots || this.flowAlive[flow] !== 1) {
      throw new RangeError(`maxmin: no flow ${flow}`);
    }
  }
}

/** True when `next` differs from `prev` by more than SAME_RATE relative (any change to or from Infinity). */
function rateMoved(prev: number, next: number): boolean {
  if (next === prev) return false;
  if (next === Infinity || prev === Infinity) return true;
  return Math.abs(next - prev) > SAME_RATE * Math.max(next, prev);
}

type NumberArray = Float64Array | Int32Array | Uint32Array | Uint8Array;

function grow<T extends NumberArray>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

function checkCapacity(capacity: number): void {
  if (!(capacity >= 0)) throw new RangeError(`maxmin: capacity must be >= 0, got ${capacity}`);
}

function checkWeight(weight: number): void {
  if (!(weight > 0 && weight < Infinity)) throw new RangeError(`maxmin: weight must be finite and > 0, got ${weight}`);
}

function checkCount(count: number): void {
  if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`maxmin: count must be an integer >= 1, got ${count}`);
}

function checkBound(bound: number): void {
  if (!(bound >= 0)) throw new RangeError(`maxmin: bound must be >= 0, got ${bound}`);
}
