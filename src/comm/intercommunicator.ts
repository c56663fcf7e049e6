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
 * rank of the other group; allgather, allreduce and alltoall give each rank the other group's
 * contributions.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { BufferLike } from './codec.js';
import type { Communicator } from './communicator.js';
import { CONGRUENT, Group, IDENT, SIMILAR, UNEQUAL, type Comparison } from './group.js';
import { checkOp, Op, type AnyOp, type ReduceOp } from './ops.js';
import { receivedWhenSent, Request, waitAll } from './request.js';
import { Status } from './status.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL } from './wildcards.js';

/** The root of an intercommunicator's rooted collective, as the root itself passes it (MPI_ROOT). */
export const ROOT = -3;

/** Tags of the collectives' messages, on the collective intracommunicator only the library uses. */
const enum CollectiveTag {
  Bcast = 1,
  Gather = 2,
  Scatter = 3,
  Reduce = 4,
  Alltoall = 5,
}

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

  /** Returns once every rank of both groups has entered it. */
  barrier(): Promise<void> {
    return this.#collective.barrier();
  }

  /**
   * The root's value to every rank of the other group: the root passes ROOT (and gets `value`
   * back), its group-mates PROC_NULL (undefined), the other group the root's rank there.
   */
  async bcast<T>(value: T, root: number): Promise<T | undefined> {
    if (this.#rooted(root, 'bcast') === 'root') {
      await waitAll(Array.from(this.#remote, (union) => this.#collective.isend(value, union, CollectiveTag.Bcast)));
      return value;
    }
    if (root === PROC_NULL) return undefined;
    return this.#collective.recv<T>(this.#remote[root]!, CollectiveTag.Bcast);
  }

  /** Every rank of the other group's value, in its rank order, on the root (ROOT); undefined elsewhere. */
  async gather<T>(value: T, root: number): Promise<T[] | undefined> {
    if (this.#rooted(root, 'gather') === 'root') return this.#fromEveryRemote<T>(CollectiveTag.Gather);
    if (root !== PROC_NULL) await this.#collective.send(value, this.#remote[root]!, CollectiveTag.Gather);
    return undefined;
  }

  /** `values[i]` (on the root, ROOT) to rank i of the other group; undefined on the root's side. */
  async scatter<T>(values: readonly T[] | undefined, root: number): Promise<T | undefined> {
    if (this.#rooted(root, 'scatter') === 'root') {
      if (!Array.isArray(values) || values.length !== this.remoteSize) {
        throw this.#error(ErrorCode.Count, `the root passed ${Array.isArray(values) ? values.length : 'no'} values for a remote group of ${this.remoteSize}`, 'scatter', 'pass one value per rank of the other group');
      }
      await waitAll(values.map((value, i) => this.#collective.isend(value, this.#remote[i]!, CollectiveTag.Scatter)));
      return undefined;
    }
    if (root === PROC_NULL) return undefined;
    return this.#collective.recv<T>(this.#remote[root]!, CollectiveTag.Scatter);
  }

  /** The other group's values combined with `op` in its rank order, on the root (ROOT); undefined elsewhere. */
  async reduce<T>(value: T, op: AnyOp<T> = Op.sum, root: number = ROOT): Promise<T | undefined> {
    checkOp(op, 'reduce', this.#errorRank);
    if (this.#rooted(root, 'reduce') === 'root') return combineInOrder(await this.#fromEveryRemote<T>(CollectiveTag.Reduce), op as ReduceOp<T>);
    if (root !== PROC_NULL) await this.#collective.send(value, this.#remote[root]!, CollectiveTag.Reduce);
    return undefined;
  }

  /** Every rank of the other group's value, in its rank order, on every rank. */
  async allgather<T>(value: T): Promise<T[]> {
    const all = await this.#collective.allgather(value);
    return Array.from(this.#remote, (union) => all[union]!);
  }

  /** The other group's values combined with `op` in its rank order, on every rank. */
  async allreduce<T>(value: T, op: AnyOp<T> = Op.sum): Promise<T> {
    checkOp(op, 'allreduce', this.#errorRank);
    return combineInOrder(await this.allgather(value), op as ReduceOp<T>);
  }

  /** `values[i]` to rank i of the other group; returns what each rank of the other group sent this one. */
  async alltoall<T>(values: readonly T[]): Promise<T[]> {
    if (!Array.isArray(values) || values.length !== this.remoteSize) {
      throw this.#error(ErrorCode.Count, `alltoall got ${Array.isArray(values) ? values.length : 'no'} values for a remote group of ${this.remoteSize}`, 'alltoall', 'pass one value per rank of the other group');
    }
    const receives = Array.from(this.#remote, (union) => this.#collective.irecv<T>(union, CollectiveTag.Alltoall));
    await waitAll(values.map((value, i) => this.#collective.isend(value, this.#remote[i]!, CollectiveTag.Alltoall)));
    return waitAll(receives);
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

  /** Whether this rank is the root of a rooted collective, checking `root` (ROOT, PROC_NULL, or a rank of the other group). */
  #rooted(root: number, operation: string): 'root' | 'other' {
    if (root === ROOT) return 'root';
    if (root === PROC_NULL || (Number.isInteger(root) && root >= 0 && root < this.remoteSize)) return 'other';
    throw this.#error(ErrorCode.Rank, `root ${root} is not ROOT, PROC_NULL or a rank of the other group (0..${this.remoteSize - 1})`, operation, "the root passes ROOT, its group-mates PROC_NULL, the other group the root's rank");
  }

  #fromEveryRemote<T>(tag: CollectiveTag): Promise<T[]> {
    return waitAll(Array.from(this.#remote, (union) => this.#collective.irecv<T>(union, tag)));
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

/** x0 op x1 op ... in order (an earlier operand on the left, as the intracommunicator reductions combine). */
function combineInOrder<T>(values: readonly T[], op: ReduceOp<T>): T {
  let result: T = values[0] as T;
  for (let i = 1; i < values.length; i++) result = op.combine(result, values[i] as T);
  return result;
}
