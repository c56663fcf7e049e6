/**
 * Intercommunicators (MPI_Intercomm_create, MPI_Intercomm_merge; mpi4py's Intercomm): two
 * disjoint groups of ranks, each rank addressing the other group's ranks by their rank there.
 * `comm.createIntercomm(localLeader, peer, remoteLeader, tag)` makes one from two
 * intracommunicators whose leaders share `peer`.
 *
 * Under it are two intracommunicators over the union of both groups, in one order every member
 * computes alike (the group holding the lower world rank first): the program's point-to-point
 * messages travel on the first, addressed and reported by remote rank; the collectives on the
 * second, so the two never meet. The collectives have MPI's intercommunicator meaning: a rooted
 * one moves data from the root (ROOT on its side, PROC_NULL for its group-mates) to or from every
 * rank of the other group; the all-to-all kinds give each rank the other group's contributions
 * (collectives/inter.ts). `Intercommunicator.createFromGroups` makes one from two groups alone.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { BufferLike } from './codec.js';
import type { Communicator } from './communicator.js';
import { CONGRUENT, Group, IDENT, SIMILAR, UNEQUAL, type Comparison } from './group.js';
import type { TypedArray } from './codec.js';
import type { Concatenated } from './collectives/gather.js';
import {
  interAllgather, interAllgatherv, interAllreduce, interAlltoall, interAlltoallv, interBcast, interGather, interGatherv, interReduce,
  interReduceScatter, interReduceScatterBlock, interScatter, interScatterv, type InterRoot,
} from './collectives/inter.js';
import { checkOp, Op, type AnyOp, type ReduceOp } from './ops.js';
import { receivedWhenSent, Request } from './request.js';
import { Status, UNDEFINED } from './status.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL } from './wildcards.js';

/** The root of an intercommunicator's rooted collective, as the root itself passes it (MPI_ROOT). */
export const ROOT = -3;

/** @internal What an intercommunicator is made of (Communicator.createIntercomm builds it). */
export interface IntercommunicatorParts {
  /** Over the union of both groups: the program's messages. */
  readonly bridge: Communicator;
  /** Over the same union, another context: the collectives' messages. */
  readonly collective: Communicator;
  /** The union rank of each local rank, and of each remote rank. */
  readonly local: Int32Array;
  readonly remote: Int32Array;
  /** This rank's place in the local group. */
  readonly rank: number;
  readonly name: string;
}

export class Intercommunicator {
  /** This rank's number in its own (local) group. */
  readonly rank: number;
  /** The size of the local group (MPI_Comm_size on an intercommunicator). */
  readonly size: number;
  /** The size of the other group (MPI_Comm_remote_size). */
  readonly remoteSize: number;
  readonly #bridge: Communicator;
  readonly #collective: Communicator;
  readonly #local: Int32Array;
  readonly #remote: Int32Array;
  /** Remote rank of each union rank (-1 for local ranks). */
  readonly #remoteOfUnion: Int32Array;
  #name: string;

  /** @internal Intercommunicators come from `comm.createIntercomm` and `dup`. */
  constructor(parts: IntercommunicatorParts) {
    this.#bridge = parts.bridge;
    this.#collective = parts.collective;
    this.#local = parts.local;
    this.#remote = parts.remote;
    this.rank = parts.rank;
    this.size = parts.local.length;
    this.remoteSize = parts.remote.length;
    this.#remoteOfUnion = new Int32Array(parts.local.length + parts.remote.length).fill(-1);
    parts.remote.forEach((union, remote) => (this.#remoteOfUnion[union] = remote));
    this.#name = parts.name;
    this.#bridge.name = `${parts.name} (messages)`;
    this.#collective.name = `${parts.name} (collectives)`;
  }

  /**
   * An intercommunicator of two disjoint groups without a communicator they share (MPI-4's
   * MPI_Intercomm_create_from_groups): every rank of both groups calls it, passing its own group
   * as `localGroup`, the same leaders (ranks in their groups) and the same `tag`.
   * @throws {TsmpiError} ERR_GROUP when this rank is not in `localGroup` or the groups overlap;
   *   ERR_RANK for a leader outside its group
   */
  static createFromGroups(localGroup: Group, localLeader: number, remoteGroup: Group, remoteLeader: number, tag = 'tsmpi'): Promise<Intercommunicator> {
    const origin = localGroup instanceof Group ? (localGroup.origin as Partial<Communicator> | undefined) : undefined;
    if (!(remoteGroup instanceof Group) || typeof origin?.intercommFromGroups !== 'function') {
      throw new TsmpiError(ErrorCode.Arg, 'needs two groups made from communicators', { operation: 'createFromGroups', hint: 'pass groups such as world.group.incl([0, 1]) and world.group.excl([0, 1])' });
    }
    return origin.intercommFromGroups.call(origin, localGroup, localLeader, remoteGroup, remoteLeader, tag);
  }

  /** True: an intercommunicator (MPI_Comm_test_inter). */
  get isInter(): boolean {
    return true;
  }

  get isIntra(): boolean {
    return false;
  }

  /** What reports and errors call it. */
  get name(): string {
    return this.#name;
  }

  set name(name: string) {
    if (typeof name !== 'string' || name === '') throw this.#error(ErrorCode.Arg, `name ${JSON.stringify(name)} is not a non-empty string`, 'name', "pass a string, e.g. comm.name = 'coupling'");
    this.#name = name;
    this.#bridge.name = `${name} (messages)`;
    this.#collective.name = `${name} (collectives)`;
  }

  /** The local group (MPI_Comm_group), this rank in it. */
  get group(): Group {
    return new Group(this.#worlds(this.#local), this.#bridge.worldRankOf(this.#local[this.rank]!), this.#bridge);
  }

  /** The other group (MPI_Comm_remote_group); this rank is not in it. */
  get remoteGroup(): Group {
    return new Group(this.#worlds(this.#remote), this.#bridge.worldRankOf(this.#local[this.rank]!), this.#bridge);
  }

  /** No process topology on an intercommunicator (MPI_Topo_test: MPI_UNDEFINED). */
  get topology(): undefined {
    return undefined;
  }

  /**
   * IDENT (this one), CONGRUENT (another intercommunicator of the same local and remote groups,
   * in the same orders), SIMILAR (the same members in another order), else UNEQUAL (MPI_Comm_compare).
   */
  compare(other: unknown): Comparison {
    if (other === this) return IDENT;
    if (!(other instanceof Intercommunicator)) return UNEQUAL;
    const local = Group.compare(this.group, other.group);
    const remote = Group.compare(this.remoteGroup, other.remoteGroup);
    if (local === IDENT && remote === IDENT) return CONGRUENT;
    return local !== UNEQUAL && remote !== UNEQUAL ? SIMILAR : UNEQUAL;
  }

  // ---- point-to-point: ranks are the other group's ----------------------------------------------

  /** Sends `value` to rank `dest` of the other group; see Communicator.send. */
  send(value: unknown, dest: number, tag = 0): Promise<void> {
    return this.#bridge.send(value, this.#peer(dest, false, 'send'), tag);
  }

  isend(value: unknown, dest: number, tag = 0): Request<void> {
    return this.#bridge.isend(value, this.#peer(dest, false, 'isend'), tag);
  }

  ssend(value: unknown, dest: number, tag = 0): Promise<void> {
    return this.#bridge.ssend(value, this.#peer(dest, false, 'ssend'), tag);
  }

  issend(value: unknown, dest: number, tag = 0): Request<void> {
    return this.#bridge.issend(value, this.#peer(dest, false, 'issend'), tag);
  }

  /** Receives from rank `source` of the other group (or ANY_SOURCE); its status names the remote rank. */
  recv<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<T> {
    return this.irecv<T>(source, tag).wait();
  }

  irecv<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): Request<T> {
    const inner = this.#bridge.irecv<T>(this.#peer(source, true, 'irecv'), tag);
    const request = new Request<T>(inner.driver, 'recv', source, tag, this.#bridge.context);
    request.follow(inner, (status) => this.#remoteStatus(status));
    return request;
  }

  /** Receives into `buffer` from rank `source` of the other group; returns the status (remote ranks). */
  async recvInto(buffer: BufferLike, source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<Status> {
    return this.#remoteStatus(await this.#bridge.recvInto(buffer, this.#peer(source, true, 'recvInto'), tag));
  }

  /** Sends to `dest` and receives from `source`, both of the other group. */
  async sendrecv<T = unknown>(value: unknown, dest: number, source: number = ANY_SOURCE, sendTag = 0, recvTag: number = ANY_TAG): Promise<T> {
    return receivedWhenSent(this.irecv<T>(source, recvTag), this.isend(value, dest, sendTag));
  }

  /** Waits for a message from the other group without receiving it; its status names the remote rank. */
  async probe(source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<Status> {
    return this.#remoteStatus(await this.#bridge.probe(this.#peer(source, true, 'probe'), tag));
  }

  iprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG): Status | undefined {
    const status = this.#bridge.iprobe(this.#peer(source, true, 'iprobe'), tag);
    return status === undefined ? undefined : this.#remoteStatus(status);
  }

  // ---- collectives: from one group to the other ---------------------------------------------------
  // Each is a schedule of collectives/inter.ts on the collective intracommunicator, run blocking
  // or (the i forms) as a request the rank's progress advances.

  /** Returns once every rank of both groups has entered it. */
  barrier(): Promise<void> {
    return this.#collective.barrier();
  }

  ibarrier(): Request<void> {
    return this.#collective.ibarrier();
  }

  /**
   * The root's value to every rank of the other group: the root passes ROOT, its group-mates
   * PROC_NULL (both get undefined, as mpi4py's None), the other group the root's rank there.
   */
  bcast<T>(value: T, root: number): Promise<T | undefined> {
    const at = this.#rooted(root, 'bcast');
    return this.#collective.runCollective('bcast', 'bcast', (call) => interBcast(call, this.#remote, value, at));
  }

  ibcast<T>(value: T, root: number): Request<T | undefined> {
    const at = this.#rooted(root, 'ibcast');
    return this.#collective.startCollective('bcast', 'ibcast', (call) => interBcast(call, this.#remote, value, at));
  }

  /** Every rank of the other group's value, in its rank order, on the root (ROOT); undefined elsewhere. */
  gather<T>(value: T, root: number): Promise<T[] | undefined> {
    const at = this.#rooted(root, 'gather');
    return this.#collective.runCollective('gather', 'gather', (call) => interGather(call, this.#remote, value, at));
  }

  igather<T>(value: T, root: number): Request<T[] | undefined> {
    const at = this.#rooted(root, 'igather');
    return this.#collective.startCollective('gather', 'igather', (call) => interGather(call, this.#remote, value, at));
  }

  /** `values[i]` (on the root, ROOT) to rank i of the other group; undefined on the root's side. */
  scatter<T>(values: readonly T[] | undefined, root: number): Promise<T | undefined> {
    const at = this.#scatterRoot(values, root, 'scatter');
    return this.#collective.runCollective('scatter', 'scatter', (call) => interScatter(call, this.#remote, values, at));
  }

  iscatter<T>(values: readonly T[] | undefined, root: number): Request<T | undefined> {
    const at = this.#scatterRoot(values, root, 'iscatter');
    return this.#collective.startCollective('scatter', 'iscatter', (call) => interScatter(call, this.#remote, values, at));
  }

  /** The other group's values combined with `op` in its rank order, on the root (ROOT); undefined elsewhere. */
  reduce<T>(value: T, op: AnyOp<T> = Op.sum, root: number = ROOT): Promise<T | undefined> {
    checkOp(op, 'reduce', this.#errorRank);
    const at = this.#rooted(root, 'reduce');
    return this.#collective.runCollective('reduce', 'reduce', (call) => interReduce(call, this.#remote, value, op as ReduceOp, at));
  }

  ireduce<T>(value: T, op: AnyOp<T> = Op.sum, root: number = ROOT): Request<T | undefined> {
    checkOp(op, 'ireduce', this.#errorRank);
    const at = this.#rooted(root, 'ireduce');
    return this.#collective.startCollective('reduce', 'ireduce', (call) => interReduce(call, this.#remote, value, op as ReduceOp, at));
  }

  /** Every rank of the other group's value, in its rank order, on every rank. */
  allgather<T>(value: T): Promise<T[]> {
    return this.#collective.runCollective('allgather', 'allgather', (call) => interAllgather(call, this.#remote, value));
  }

  iallgather<T>(value: T): Request<T[]> {
    return this.#collective.startCollective('allgather', 'iallgather', (call) => interAllgather(call, this.#remote, value));
  }

  /** The other group's values combined with `op` in its rank order, on every rank. */
  allreduce<T>(value: T, op: AnyOp<T> = Op.sum): Promise<T> {
    checkOp(op, 'allreduce', this.#errorRank);
    return this.#collective.runCollective('allreduce', 'allreduce', (call) => interAllreduce(call, this.#remote, value, op as ReduceOp));
  }

  iallreduce<T>(value: T, op: AnyOp<T> = Op.sum): Request<T> {
    checkOp(op, 'iallreduce', this.#errorRank);
    return this.#collective.startCollective('allreduce', 'iallreduce', (call) => interAllreduce(call, this.#remote, value, op as ReduceOp));
  }

  /** `values[i]` to rank i of the other group; returns what each rank of the other group sent this one. */
  alltoall<T>(values: readonly T[]): Promise<T[]> {
    this.#onePerRemote(values, 'alltoall');
    return this.#collective.runCollective('alltoall', 'alltoall', (call) => interAlltoall(call, this.#remote, values));
  }

  ialltoall<T>(values: readonly T[]): Request<T[]> {
    this.#onePerRemote(values, 'ialltoall');
    return this.#collective.startCollective('alltoall', 'ialltoall', (call) => interAlltoall(call, this.#remote, values));
  }

  /**
   * Every rank of the other group's typed array, concatenated in its rank order with its counts
   * and displacements, on the root (ROOT, which passes no data); undefined elsewhere (MPI_Gatherv).
   */
  gatherv<A extends TypedArray>(data: A | undefined, root: number): Promise<Concatenated<A> | undefined> {
    const at = this.#typedRoot(data, root, 'gatherv');
    return this.#collective.runCollective('gatherv', 'gatherv', (call) => interGatherv(call, this.#remote, data, at));
  }

  igatherv<A extends TypedArray>(data: A | undefined, root: number): Request<Concatenated<A> | undefined> {
    const at = this.#typedRoot(data, root, 'igatherv');
    return this.#collective.startCollective('gatherv', 'igatherv', (call) => interGatherv(call, this.#remote, data, at));
  }

  /**
   * The root's (ROOT) `counts[i]` elements, in order, to rank i of the other group (equal blocks
   * without counts); undefined on the root's side (MPI_Scatterv).
   */
  scatterv<A extends TypedArray>(data: A | undefined, counts: readonly number[] | undefined, root: number): Promise<A | undefined> {
    const at = this.#scattervRoot(data, root, 'scatterv');
    return this.#collective.runCollective('scatterv', 'scatterv', (call) => interScatterv(call, this.#remote, data, counts, at));
  }

  iscatterv<A extends TypedArray>(data: A | undefined, counts: readonly number[] | undefined, root: number): Request<A | undefined> {
    const at = this.#scattervRoot(data, root, 'iscatterv');
    return this.#collective.startCollective('scatterv', 'iscatterv', (call) => interScatterv(call, this.#remote, data, counts, at));
  }

  /** Every rank of the other group's typed array, concatenated in its rank order (into `into` when given; MPI_Allgatherv). */
  allgatherv<A extends TypedArray>(data: A, into?: A): Promise<Concatenated<A>> {
    this.#checkTyped(data, 'allgatherv');
    return this.#collective.runCollective('allgatherv', 'allgatherv', (call) => interAllgatherv(call, this.#remote, data, into));
  }

  iallgatherv<A extends TypedArray>(data: A, into?: A): Request<Concatenated<A>> {
    this.#checkTyped(data, 'iallgatherv');
    return this.#collective.startCollective('allgatherv', 'iallgatherv', (call) => interAllgatherv(call, this.#remote, data, into));
  }

  /**
   * Block i of `data` (`sendCounts[i]` elements, in order) to rank i of the other group; the
   * blocks the other group sent this rank, concatenated in its rank order (MPI_Alltoallv).
   * `recvCounts`, when given, is checked against what arrived.
   */
  alltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[], into?: A): Promise<Concatenated<A>> {
    this.#checkTyped(data, 'alltoallv');
    return this.#collective.runCollective('alltoallv', 'alltoallv', (call) => interAlltoallv(call, this.#remote, data, sendCounts, recvCounts, into));
  }

  ialltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[], into?: A): Request<Concatenated<A>> {
    this.#checkTyped(data, 'ialltoallv');
    return this.#collective.startCollective('alltoallv', 'ialltoallv', (call) => interAlltoallv(call, this.#remote, data, sendCounts, recvCounts, into));
  }

  /**
   * The other group's typed arrays combined element by element with `op` in its rank order; this
   * rank gets block `rank` of the result, block i of each remote array going to rank i
   * (MPI_Reduce_scatter_block: each array holds one block per rank of this rank's group).
   */
  reduceScatterBlock<A extends TypedArray>(data: A, op: AnyOp<A> = Op.sum, into?: A): Promise<A> {
    this.#checkReduceScatter(data, op, 'reduceScatterBlock');
    return this.#collective.runCollective('reducescatter', 'reduceScatterBlock', (call) => interReduceScatterBlock(call, this.#remote, data, op as ReduceOp, into));
  }

  ireduceScatterBlock<A extends TypedArray>(data: A, op: AnyOp<A> = Op.sum, into?: A): Request<A> {
    this.#checkReduceScatter(data, op, 'ireduceScatterBlock');
    return this.#collective.startCollective('reducescatter', 'ireduceScatterBlock', (call) => interReduceScatterBlock(call, this.#remote, data, op as ReduceOp, into));
  }

  /**
   * As reduceScatterBlock with blocks of `counts[i]` elements for rank i of this group (every rank
   * of a group passes its group's counts; the other group's arrays hold their sum; MPI_Reduce_scatter).
   */
  reduceScatter<A extends TypedArray>(data: A, counts: readonly number[], op: AnyOp<A> = Op.sum, into?: A): Promise<A> {
    this.#checkReduceScatter(data, op, 'reduceScatter', counts);
    return this.#collective.runCollective('reducescatter', 'reduceScatter', (call) => interReduceScatter(call, this.#remote, this.rank, data, counts, op as ReduceOp, into));
  }

  ireduceScatter<A extends TypedArray>(data: A, counts: readonly number[], op: AnyOp<A> = Op.sum, into?: A): Request<A> {
    this.#checkReduceScatter(data, op, 'ireduceScatter', counts);
    return this.#collective.startCollective('reducescatter', 'ireduceScatter', (call) => interReduceScatter(call, this.#remote, this.rank, data, counts, op as ReduceOp, into));
  }

  // ---- communicators ----------------------------------------------------------------------------

  /**
   * An intracommunicator of both groups (MPI_Intercomm_merge): the group that passed `high`
   * false first (each group's ranks pass the same), in their rank order; when both groups pass
   * the same, the group with the lower world rank first.
   */
  async merge(high = false): Promise<Communicator> {
    const flags = await this.#collective.allgather(high === true);
    const localHigh = flags[this.#local[0]!]!;
    const remoteHigh = flags[this.#remote[0]!]!;
    const localFirst = localHigh === remoteHigh ? this.#local[0]! < this.#remote[0]! : !localHigh;
    const merged = (await this.#bridge.split(0, localFirst ? this.rank : this.remoteSize + this.rank))!;
    merged.name = `merge of ${this.#name}`;
    return merged;
  }

  /**
   * Intercommunicators of the ranks that pass the same `color`, each group's part ordered by
   * `key` (then rank): a colour's ranks of this group face its ranks of the other group
   * (MPI_Comm_split on an intercommunicator). Undefined for `undefined` or UNDEFINED, and for a
   * colour the other group has no rank of. Collective over both groups.
   */
  split(color: number | undefined, key = 0): Promise<Intercommunicator | undefined> {
    if (color !== undefined && color !== UNDEFINED && (!Number.isInteger(color) || color < 0)) {
      throw this.#error(ErrorCode.Arg, `color ${String(color)} is not a non-negative integer`, 'split', 'pass an integer >= 0, or undefined for no communicator');
    }
    if (!Number.isInteger(key)) throw this.#error(ErrorCode.Arg, `key ${String(key)} is not an integer`, 'split', 'pass an integer key');
    return this.#regroup(color === undefined || color === UNDEFINED ? -1 : color, key, `split of ${this.#name}`);
  }

  /**
   * An intercommunicator of `group`, a part of this rank's group (every rank of the group passes
   * the same), facing the part the other group's ranks pass; undefined for ranks outside `group`
   * and for all when either part is empty (MPI_Comm_create on an intercommunicator).
   * @throws {TsmpiError} ERR_GROUP when `group` holds ranks outside the local group
   */
  create(group: Group): Promise<Intercommunicator | undefined> {
    const members = group instanceof Group ? group.members('create') : undefined;
    const locals = this.#worlds(this.#local);
    const outside = members === undefined ? [] : Array.from(members).filter((world) => !locals.includes(world));
    if (members === undefined || outside.length > 0) {
      throw this.#error(ErrorCode.Group, members === undefined ? 'create takes a Group' : `world ranks ${outside.join(', ')} are not in this rank's group`, 'create', "pass a part of this rank's own group, e.g. inter.group.incl([0, 1])");
    }
    const place = members.indexOf(locals[this.rank]!);
    return this.#regroup(place < 0 ? -1 : 0, place, `create of ${this.#name}`);
  }

  /**
   * The intercommunicator of this rank's colour (-1: none): every rank's colour and key go to
   * all (over the collective intracommunicator), each rank works out both parts of its colour,
   * and a split of the message intracommunicator makes the union, in the order an
   * intercommunicator's union has (the part holding the lower world rank first).
   */
  async #regroup(color: number, key: number, name: string): Promise<Intercommunicator | undefined> {
    const all = await this.#collective.allgather([color, key] as const);
    const part = (side: Int32Array): number[] =>
      Array.from(side)
        .filter((union) => color >= 0 && all[union]![0] === color)
        .sort((a, b) => all[a]![1] - all[b]![1] || a - b);
    const local = part(this.#local);
    const remote = part(this.#remote);
    const joins = color >= 0 && remote.length > 0;
    const worldOf = (union: number): number => this.#bridge.worldRankOf(union);
    const localFirst = joins && Math.min(...local.map(worldOf)) < Math.min(...remote.map(worldOf));
    const me = local.indexOf(this.#local[this.rank]!);
    const bridge = await this.#bridge.split(joins ? color : undefined, localFirst ? me : remote.length + me);
    if (bridge === undefined) return undefined;
    return Intercommunicator.overUnion(bridge, local.length, remote.length, localFirst, me, name);
  }

  /**
   * @internal The intercommunicator over `bridge`, a communicator of both groups' ranks, one group
   * after the other (`localFirst`: this rank's group first); `rank` is this rank's place in its group.
   */
  static async overUnion(bridge: Communicator, localSize: number, remoteSize: number, localFirst: boolean, rank: number, name: string): Promise<Intercommunicator> {
    const collective = await bridge.dup();
    const first = localFirst ? 0 : remoteSize;
    const second = localFirst ? localSize : 0;
    return new Intercommunicator({
      bridge,
      collective,
      local: Int32Array.from({ length: localSize }, (_, i) => first + i),
      remote: Int32Array.from({ length: remoteSize }, (_, i) => second + i),
      rank,
      name,
    });
  }

  /** The same groups with contexts of their own (MPI_Comm_dup); collective over both groups. */
  async dup(): Promise<Intercommunicator> {
    const bridge = await this.#bridge.dup();
    const collective = await bridge.dup();
    return new Intercommunicator({ bridge, collective, local: this.#local, remote: this.#remote, rank: this.rank, name: `dup of ${this.#name}` });
  }

  /** Frees it (MPI_Comm_free): later calls fail with ERR_CLOSED. */
  free(): void {
    this.#bridge.free();
    this.#collective.free();
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** The union rank of remote rank `rank` (PROC_NULL and, for receives, ANY_SOURCE as they are). */
  #peer(rank: number, receive: boolean, operation: string): number {
    if (rank === PROC_NULL || (receive && rank === ANY_SOURCE)) return rank;
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.remoteSize) {
      throw this.#error(ErrorCode.Rank, `rank ${rank} is out of range for the other group of ${this.remoteSize}`, operation, `on an intercommunicator ranks are the other group's: 0..${this.remoteSize - 1}${receive ? ', ANY_SOURCE' : ''} or PROC_NULL`);
    }
    return this.#remote[rank]!;
  }

  #remoteStatus(status: Status): Status {
    const source = status.source >= 0 ? this.#remoteOfUnion[status.source]! : status.source;
    return new Status(source, status.tag, status.bytes, status.error, status.cancelled);
  }

  /** Where this rank stands in a rooted collective, checking `root` (ROOT, PROC_NULL, or a rank of the other group). */
  #rooted(root: number, operation: string): InterRoot {
    if (root === ROOT) return 'root';
    if (root === PROC_NULL) return 'idle';
    if (Number.isInteger(root) && root >= 0 && root < this.remoteSize) return root;
    throw this.#error(ErrorCode.Rank, `root ${root} is not ROOT, PROC_NULL or a rank of the other group (0..${this.remoteSize - 1})`, operation, "the root passes ROOT, its group-mates PROC_NULL, the other group the root's rank");
  }

  #scatterRoot(values: readonly unknown[] | undefined, root: number, operation: string): InterRoot {
    const at = this.#rooted(root, operation);
    if (at === 'root') this.#onePerRemote(values, operation);
    return at;
  }

  #onePerRemote(values: readonly unknown[] | undefined, operation: string): void {
    if (Array.isArray(values) && values.length === this.remoteSize) return;
    throw this.#error(ErrorCode.Count, `${operation} got ${Array.isArray(values) ? values.length : 'no'} values for a remote group of ${this.remoteSize}`, operation, 'pass one value per rank of the other group');
  }

  /** A rooted v collective: the ranks that send pass a typed array. */
  #typedRoot(data: unknown, root: number, operation: string): InterRoot {
    const at = this.#rooted(root, operation);
    if (typeof at === 'number') this.#checkTyped(data, operation);
    return at;
  }

  #scattervRoot(data: unknown, root: number, operation: string): InterRoot {
    const at = this.#rooted(root, operation);
    if (at === 'root') this.#checkTyped(data, operation);
    return at;
  }

  #checkTyped(data: unknown, operation: string): void {
    if (ArrayBuffer.isView(data) && !(data instanceof DataView)) return;
    throw this.#error(ErrorCode.Type, `${operation} takes a typed array, got ${data === null ? 'null' : typeof data}`, operation, 'pass a typed array such as a Float64Array');
  }

  #checkReduceScatter(data: unknown, op: unknown, operation: string, counts?: readonly number[]): void {
    checkOp(op as AnyOp<unknown>, operation, this.#errorRank);
    this.#checkTyped(data, operation);
    if (counts !== undefined && (!Array.isArray(counts) || counts.length !== this.size || counts.some((n) => !Number.isInteger(n) || n < 0))) {
      throw this.#error(ErrorCode.Count, `counts ${JSON.stringify(counts)} are not ${this.size} non-negative integers`, operation, "pass one count per rank of this rank's own group");
    }
  }

  #worlds(unionRanks: Int32Array): Int32Array {
    return Int32Array.from(unionRanks, (union) => this.#bridge.worldRankOf(union));
  }

  get #errorRank(): number {
    return this.#bridge.worldRankOf(this.#local[this.rank]!);
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, `${message} (on ${this.#name})`, { rank: this.#errorRank, operation, hint });
  }
}
