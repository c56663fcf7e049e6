/**
 * The gossip of the random-diffusion balancer (patent CN105117292B, "random-diffusion dynamic load
 * balancing", steps 11-13; docs/techniques.md §3), with GrapevineLB's message cap:
 *
 * - Round 1: every underloaded rank sends its record (the work it can still take) to `fanout`
 *   random peers.
 * - Round r > 1: every rank that learned something new in round r - 1 forwards everything it knows
 *   to `fanout` random peers, each drawn independently of the other ranks' draws.
 * - A rank sends at most `messageCap` messages over one gossip (default 2 * ceil(log2 P), the cap
 *   of GrapevineLB, Menon and Kalé, SC'13); the gossip ends when no rank has anything new to send.
 * - Option, ours: `quietRounds` keeps a rank forwarding that many rounds after its last news. As
 *   written (0) each informed rank forwards about once, which stalls a lone record at ~80% of the
 *   ranks for fanout 2; many records (a quarter of the ranks underloaded) reach 99%.
 *
 * Deviation from the patent, stated: step 12 forwards "to processes of the other type" (from the
 * underloaded to the overloaded and balanced, and on); here peers are drawn from every rank but the
 * sender, as GrapevineLB does, since a rank does not know the others' types before the gossip.
 *
 * Pure policy: no I/O, no timers, no communicator. The runtime driver runs one GossipKnowledge per
 * rank and delivers each round's sends; bench/lib/balance-lockstep.ts runs the same objects in one process, so
 * the simulated and the real gossip are the same code.
 */
import { Rng } from '../../rng.js';

/** What an underloaded rank advertises: it can take `deficit` more work units. */
export interface GossipRecord {
  readonly rank: number;
  readonly deficit: number;
}

/** Tunables of one rank's gossip. */
export interface GossipKnowledgeOptions {
  /** Messages one rank may send over one gossip. @default 2 * ceil(log2 size) (GrapevineLB) */
  messageCap?: number;
  /**
   * Rounds a rank goes on forwarding after one in which it learned nothing new. 0 is the seed as
   * written: a rank forwards only after news. With few underloaded ranks that stalls short of 99%:
   * every informed rank forwards about once, so a lone record reaches the fraction c of ranks that
   * solves 1 - c = exp(-fanout * c), 80% for fanout 2; 1 quiet round lifts that to 98%, 2 to 99.7%
   * (each informed rank sending 2 and 3 times), still within the message cap. @default 0
   */
  quietRounds?: number;
}

/** ceil(log2 size) for an integer size >= 1 (0 for size 1). */
function ceilLog2(size: number): number {
  return size <= 1 ? 0 : Math.ceil(Math.log2(size));
}

function checkSize(size: number): void {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be an integer >= 1, got ${size}`);
}

/** Default number of gossip rounds for P ranks: ceil(log2 P) + 2 (at least 1). */
export function defaultGossipRounds(size: number): number {
  checkSize(size);
  return Math.max(1, ceilLog2(size) + 2);
}

/** GrapevineLB's cap on the messages one rank sends over one gossip: 2 * ceil(log2 P). */
export function defaultMessageCap(size: number): number {
  checkSize(size);
  return 2 * ceilLog2(size);
}

/**
 * The generator rank `rank` draws its gossip peers from, in gossip `seed`. The runtime driver uses
 * it too, so that a simulated gossip and a real one with the same seed choose the same peers.
 */
export function gossipRng(seed: number, rank: number): Rng {
  return new Rng(`gossip:${seed}:${rank}`);
}

/** One rank's view of the gossip (seed 3): what it knows and what it learned in the last round. */
export class GossipKnowledge {
  /** This rank. */
  readonly self: number;
  /** Ranks in the gossip. */
  readonly size: number;
  /** Messages this rank may send over one gossip (it has `messageCap - messagesSent` left). */
  readonly messageCap: number;
  private sent = 0;
  /** seen[r] = 1 once rank r's record is known (a byte per rank: 4 KiB per rank at P = 4096). */
  private readonly seen: Uint8Array;
  /** Known records in the order they were learned (append only, so a prefix is a snapshot). */
  private readonly list: GossipRecord[] = [];
  /** ranks[i] = list[i].rank, packed, so that merging a peer's list reads contiguous integers. */
  private ranks = new Int32Array(16);
  /** Sends left before this rank falls silent: 1 + quietRounds after news, counting down per round. */
  private roundsLeft = 0;
  readonly quietRounds: number;
  private map: Map<number, GossipRecord> | undefined;

  constructor(self: number, size: number, options: GossipKnowledgeOptions = {}) {
    checkSize(size);
    if (!Number.isInteger(self) || self < 0 || self >= size) throw new RangeError(`self must be a rank in [0, ${size}), got ${self}`);
    const cap = options.messageCap ?? defaultMessageCap(size);
    if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`messageCap must be an integer >= 0, got ${cap}`);
    const quiet = options.quietRounds ?? 0;
    if (!Number.isInteger(quiet) || quiet < 0) throw new RangeError(`quietRounds must be an integer >= 0, got ${quiet}`);
    this.quietRounds = quiet;
    this.self = self;
    this.size = size;
    this.messageCap = cap;
    this.seen = new Uint8Array(size);
  }

  /** Records known so far, by rank (its own, if it is underloaded, is added with learn()). */
  get known(): ReadonlyMap<number, GossipRecord> {
    if (this.map === undefined || this.map.size !== this.list.length) {
      this.map = new Map(this.list.map((r) => [r.rank, r]));
    }
    return this.map;
  }

  /** Records known so far, in the order they were learned (a copy). */
  records(): GossipRecord[] {
    return this.list.slice();
  }

  /** How many records are known. */
  get count(): number {
    return this.list.length;
  }

  /** Messages sent so far in this gossip. */
  get messagesSent(): number {
    return this.sent;
  }

  /**
   * Merges records received; returns true when at least one was new. A record is keyed by its rank:
   * one gossip carries one snapshot of the deficits, so a second record for a known rank is ignored.
   * @throws RangeError for a record whose rank is outside [0, size) or whose deficit is not finite.
   */
  learn(records: readonly GossipRecord[]): boolean {
    const seen = this.seen;
    let added = false;
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const rank = record.rank;
      if (seen[rank] === 1) continue;
      if (!Number.isInteger(rank) || rank < 0 || rank >= this.size) throw new RangeError(`gossip record rank must be in [0, ${this.size}), got ${rank}`);
      if (!Number.isFinite(record.deficit)) throw new RangeError(`gossip record deficit must be finite, got ${record.deficit} (rank ${rank})`);
      seen[rank] = 1;
      this.append(record);
      added = true;
    }
    if (added) this.roundsLeft = 1 + this.quietRounds;
    return added;
  }

  /**
   * learn() of the first `count` records `peer` knows, without copying them: what a message from
   * `peer` carries when its plan said `count` (records are only ever appended, so that prefix is
   * what it knew then). For a lockstep run (bench/lib/balance-lockstep.ts); a real rank receives the records of nextRound() instead.
   * @internal
   */
  learnFrom(peer: GossipKnowledge, count: number): boolean {
    const seen = this.seen;
    const ranks = peer.ranks;
    let added = false;
    for (let i = 0; i < count; i++) {
      const rank = ranks[i]!;
      if (seen[rank] === 1) continue;
      seen[rank] = 1;
      this.append(peer.list[i]!);
      added = true;
    }
    if (added) this.roundsLeft = 1 + this.quietRounds;
    return added;
  }

  private append(record: GossipRecord): void {
    const n = this.list.length;
    if (n === this.ranks.length) {
      const grown = new Int32Array(Math.min(this.size, 2 * n));
      grown.set(this.ranks);
      this.ranks = grown;
    }
    this.ranks[n] = record.rank;
    this.list.push(record);
  }

  /**
   * This round's sends: if something new was learned since the last call (or its own record at the
   * start), `fanout` distinct random peers other than itself (fewer when size is small, or when the
   * message cap is nearly spent) and every record known; else no targets and no records (unless
   * quietRounds > 0: then it also sends in that many rounds after the news).
   */
  nextRound(fanout: number, rng: Rng): { targets: number[]; records: GossipRecord[] } {
    const targets = this.planRound(fanout, rng);
    return { targets, records: targets.length === 0 ? [] : this.list.slice() };
  }

  /**
   * nextRound() without the copy of the records: the targets only (the records are the first
   * `count` this rank knows now; see learnFrom). For a lockstep run.
   * @internal
   */
  planRound(fanout: number, rng: Rng): number[] {
    if (!Number.isInteger(fanout) || fanout < 1) throw new RangeError(`fanout must be an integer >= 1, got ${fanout}`);
    if (this.roundsLeft === 0) return [];
    this.roundsLeft--;
    const k = Math.min(fanout, this.size - 1, this.messageCap - this.sent);
    if (k <= 0) return [];
    const self = this.self;
    const targets = rng.sample(this.size - 1, k).map((peer) => (peer >= self ? peer + 1 : peer));
    this.sent += k;
    return targets;
  }
}

/** How a gossip is run: peers per send, rounds at most, the seed of every rank's draws. */
