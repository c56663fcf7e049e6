/**
 * A group: an ordered set of ranks (MPI_Group, mpi4py's Group). A group is local: making one,
 * combining two and translating ranks never communicates. Its members are world ranks; a group's
 * rank r is its r-th member, and `rank` is the calling rank's place in it (UNDEFINED when it is
 * not a member). Communicators come from groups with `comm.create(group)`,
 * `comm.createGroup(group)` and `Communicator.createFromGroup(group, tag)`.
 *
 * @example
 * ```ts
 * const evens = comm.group.rangeIncl([[0, comm.size - 1, 2]]);
 * const evenComm = await comm.create(evens); // undefined on odd ranks
 * ```
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { refuseToEncode } from './codec.js';
import { UNDEFINED } from './status.js';
import { PROC_NULL } from './wildcards.js';

/** Results of comparing groups and communicators (MPI_IDENT ... MPI_UNEQUAL). */
export const IDENT = 0;
/** Communicators over the same group in the same order, with different contexts. */
export const CONGRUENT = 1;
/** The same members in a different order. */
export const SIMILAR = 2;
export const UNEQUAL = 3;
export type Comparison = typeof IDENT | typeof CONGRUENT | typeof SIMILAR | typeof UNEQUAL;

/** A range of ranks for rangeIncl/rangeExcl: first, last (inclusive) and stride (not 0). */
export type RankRange = readonly [first: number, last: number, stride: number];

export class Group {
  /** World rank of each member, in group order. */
  readonly #members: Int32Array;
  /** The calling rank's world rank (-1 when unknown: the empty group). */
  readonly #me: number;
  /** @internal Whoever made the group: what createFromGroup communicates through. */
  readonly origin: unknown;
  #freed = false;

  /** The group with no members (MPI_GROUP_EMPTY). */
  static get EMPTY(): Group {
    return GROUP_EMPTY;
  }

  /** @internal Groups come from `comm.group` and from other groups. */
  constructor(members: Int32Array, me: number, origin: unknown) {
    this.#members = members;
    this.#me = me;
    this.origin = origin;
  }

  /** Number of members. */
  get size(): number {
    return this.#members.length;
  }

  /** The calling rank's rank in the group, UNDEFINED when it is not a member. */
  get rank(): number {
    const at = this.#members.indexOf(this.#me);
    return at < 0 ? UNDEFINED : at;
  }

  /** The world rank of each member, in group order (a copy). */
  get worldRanks(): number[] {
    return Array.from(this.#members);
  }

  /** True once {@link free} was called; the group can then no longer be used. */
  get freed(): boolean {
    return this.#freed;
  }

  /** @internal The members, for the communicator that builds from the group (not copied). */
  members(operation: string): Int32Array {
    this.#live(operation);
    return this.#members;
  }

  /** A group of the members at `ranks`, in that order (MPI_Group_incl). */
  incl(ranks: readonly number[]): Group {
    this.#checkRanks(ranks, 'incl');
    return this.#derive(Int32Array.from(ranks, (r) => this.#members[r]!));
  }

  /** This group without the members at `ranks`, the others in their order (MPI_Group_excl). */
  excl(ranks: readonly number[]): Group {
    this.#checkRanks(ranks, 'excl');
    const out = new Set(ranks);
    return this.#derive(this.#members.filter((_w, r) => !out.has(r)));
  }

  /**
   * A group of the ranks the ranges name, range by range (MPI_Group_range_incl): `[0, 6, 2]` is
   * ranks 0, 2, 4, 6; `[5, 1, -2]` is 5, 3, 1.
   */
  rangeIncl(ranges: readonly RankRange[]): Group {
    return this.incl(this.#expand(ranges, 'rangeIncl'));
  }

  /** This group without the ranks the ranges name (MPI_Group_range_excl). */
  rangeExcl(ranges: readonly RankRange[]): Group {
    return this.excl(this.#expand(ranges, 'rangeExcl'));
  }

  /** This group's members, then the other's that are not in this one (MPI_Group_union). */
  union(other: Group): Group {
    const mine = this.#set('union');
    const extra = other.members('union').filter((w) => !mine.has(w));
    return this.#combine(other, Int32Array.from([...this.#members, ...extra]));
  }

  /** This group's members that are also in the other, in this group's order (MPI_Group_intersection). */
  intersection(other: Group): Group {
    const theirs = other.#set('intersection');
    this.#live('intersection');
    return this.#combine(other, this.#members.filter((w) => theirs.has(w)));
  }

  /** This group's members that are not in the other, in this group's order (MPI_Group_difference). */
  difference(other: Group): Group {
    const theirs = other.#set('difference');
    this.#live('difference');
    return this.#combine(other, this.#members.filter((w) => !theirs.has(w)));
  }

  /**
   * The rank in `other` of each of this group's `ranks` (MPI_Group_translate_ranks): UNDEFINED
   * where a member is not in `other`, PROC_NULL stays PROC_NULL. Without `other`, world ranks.
   * Without `ranks`, every rank of this group.
   */
  translateRanks(ranks?: readonly number[], other?: Group): number[] {
    const list = ranks ?? Array.from(this.#members, (_w, r) => r);
    for (const r of list) if (r !== PROC_NULL) this.#checkRank(r, 'translateRanks');
    if (other === undefined) return list.map((r) => (r === PROC_NULL ? PROC_NULL : this.#members[r]!));
    const target = other.members('translateRanks');
    return list.map((r) => {
      if (r === PROC_NULL) return PROC_NULL;
      const at = target.indexOf(this.#members[r]!);
      return at < 0 ? UNDEFINED : at;
    });
  }

  /** IDENT (same members, same order), SIMILAR (same members, another order) or UNEQUAL. */
  compare(other: Group): Comparison {
    return Group.compare(this, other);
  }

  /** Compares two groups; see {@link Group.prototype.compare}. */
  static compare(a: Group, b: Group): Comparison {
    const x = a.members('compare');
    const y = b.members('compare');
    if (x.length !== y.length) return UNEQUAL;
    if (x.every((w, i) => w === y[i])) return IDENT;
    const set = new Set(x);
    return y.every((w) => set.has(w)) ? SIMILAR : UNEQUAL;
  }

  /** The union of two groups; see {@link Group.prototype.union}. */
  static union(a: Group, b: Group): Group {
    return a.union(b);
  }

  /** The intersection of two groups; see {@link Group.prototype.intersection}. */
  static intersection(a: Group, b: Group): Group {
    return a.intersection(b);
  }

  /** The difference of two groups; see {@link Group.prototype.difference}. */
  static difference(a: Group, b: Group): Group {
    return a.difference(b);
  }

  /** The ranks of `ranks` in `a`, translated to `b`; see {@link Group.prototype.translateRanks}. */
  static translateRanks(a: Group, ranks?: readonly number[], b?: Group): number[] {
    return a.translateRanks(ranks, b);
  }

  /** A group with the same members (MPI_Group_dup). */
  dup(): Group {
    return this.#derive(this.#members.slice());
  }

  /**
   * Marks the group as no longer used (MPI_Group_free): any later call on it is ERR_CLOSED. A
   * group is memory like any other object; freeing is optional. The empty group cannot be freed.
   */
  free(): void {
    if (this === GROUP_EMPTY) throw this.#error(ErrorCode.Arg, 'the empty group cannot be freed', 'free', 'free only groups you made');
    this.#live('free');
    this.#freed = true;
  }

  /** How console.log shows a group: `Group { size: 3, rank: 1, worldRanks: [ 0, 2, 4 ] }`. */
  [Symbol.for('nodejs.util.inspect.custom')](): object {
    return { size: this.size, rank: this.rank, worldRanks: this.worldRanks, ...(this.#freed ? { freed: true } : {}) };
  }

  #derive(members: Int32Array): Group {
    this.#live('group');
    return new Group(members, this.#me, this.origin);
  }

  /** A group made from this one and `other`: it keeps whichever knows the calling rank. */
  #combine(other: Group, members: Int32Array): Group {
    return this.#me >= 0 ? new Group(members, this.#me, this.origin) : new Group(members, other.#me, other.origin);
  }

  #set(operation: string): Set<number> {
    return new Set(this.members(operation));
  }

  #live(operation: string): void {
    if (this.#freed) throw this.#error(ErrorCode.Closed, 'the group was freed', operation, 'make a new group (comm.group) instead of using a freed one');
  }

  #checkRank(rank: number, operation: string): void {
    this.#live(operation);
    if (Number.isInteger(rank) && rank >= 0 && rank < this.#members.length) return;
    throw this.#error(ErrorCode.Rank, `rank ${String(rank)} is out of range for a group of size ${this.#members.length}`, operation, this.#members.length === 0 ? 'the group is empty: it has no ranks to name' : `pass ranks from 0 to ${this.#members.length - 1}`);
  }

  /** Ranks for incl/excl: each valid, none twice (MPI makes both an error). */
  #checkRanks(ranks: readonly number[], operation: string): void {
    this.#live(operation);
    if (!Array.isArray(ranks)) throw this.#error(ErrorCode.Arg, 'ranks is not an array', operation, 'pass an array of group ranks, e.g. [0, 2]');
    const seen = new Set<number>();
    for (const r of ranks) {
      this.#checkRank(r, operation);
      if (seen.has(r)) throw this.#error(ErrorCode.Rank, `rank ${r} appears twice`, operation, 'name each rank once');
      seen.add(r);
    }
  }

  #expand(ranges: readonly RankRange[], operation: string): number[] {
    this.#live(operation);
    const out: number[] = [];
    for (const range of ranges) {
      const [first, last, stride] = range;
      if (!Number.isInteger(stride) || stride === 0) throw this.#error(ErrorCode.Arg, `range [${range.join(', ')}] has stride ${String(stride)}`, operation, 'use a non-zero integer stride');
      this.#checkRank(first, operation);
      this.#checkRank(last, operation);
      for (let r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push(r);
    }
    return out;
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, message, { rank: this.#me, operation: `Group.${operation}`, hint });
  }
}

/** The group with no members (MPI_GROUP_EMPTY); also `Group.EMPTY`. */
export const GROUP_EMPTY: Group = new Group(new Int32Array(0), -1, undefined);

refuseToEncode(Group, 'a group (send group.worldRanks instead)');
