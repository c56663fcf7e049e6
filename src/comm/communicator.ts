/**
 * A communicator: a group of ranks with an isolated context, point-to-point messages and
 * collectives. The name of a call says its cost, as in mpi4py: `send`/`recv`/`bcast`/`gather`...
 * take and return any value (typed arrays move as raw bytes, other values are encoded);
 * `recvInto`/`bcastInto` fill a buffer you own; `gatherv`/`scatterv`/`allgatherv`/`alltoallv`
 * move typed arrays cut by counts.
 *
 * Every rank of the group must call a collective, in the same order as the others.
 */
import type { Clock } from '../clock.js';
import type { Settings } from '../config/tunables.js';
import { bytesOf, rawKindOf, type BufferLike, type TypedArray } from './codec.js';
import { allgather, allgatherv } from './collectives/allgather.js';
import { allreduce } from './collectives/allreduce.js';
import { alltoall, alltoallv } from './collectives/alltoall.js';
import { barrier } from './collectives/barrier.js';
import { bcast, bcastBytes } from './collectives/bcast.js';
import { CollectiveCall } from './collectives/call.js';
import { runSteps, ScheduleRequest, withResult, type Steps } from './collectives/steps.js';
import { gather, gatherv, type Concatenated } from './collectives/gather.js';
import { reduce } from './collectives/reduce.js';
import { scan, exscan } from './collectives/scan.js';
import { scatter, scatterv } from './collectives/scatter.js';
import type { Endpoint } from './endpoint.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL } from './matching.js';
import type { CommunicatorLabel } from './context-names.js';
import { checkOp, type AnyOp, type ReduceOp } from './ops.js';
import { Request } from './request.js';
import { Status } from './status.js';

export { ANY_SOURCE, ANY_TAG, PROC_NULL };
/** What a receive from or a probe of PROC_NULL reports. */
/** What an operation on PROC_NULL reports (a fresh one each time: a program may set its fields). */
const nullStatus = (): Status => new Status(PROC_NULL, ANY_TAG, 0);

/** The largest tag a user may use (MPI_TAG_UB). */
export const TAG_UB = 0x3fffffff;

export type { Concatenated };

const collectiveOperations = [
  'barrier', 'bcast', 'bcastInto', 'reduce', 'allreduce', 'scan', 'exscan', 'gather', 'gatherv', 'scatter',
  'scatterv', 'allgather', 'allgatherv', 'alltoall', 'alltoallv', 'split', 'reducescatter',
  'neighborAllgather', 'neighborAllgatherv', 'neighborAlltoall', 'neighborAlltoallv',
] as const;
/** @internal The collectives whose calls get their own tags. */
export type CollectiveOperation = (typeof collectiveOperations)[number];

/** @internal Everything a communicator is built from. */
export interface CommunicatorInit {
  /** Undefined for the handle of a rank that is not a member (`notMember` says why). */
  endpoint: Endpoint | undefined;
  notMember?: string;
  /** The point-to-point context; collectives use context + 1. */
  context: number;
  /** World rank of each communicator rank. */
  group: Int32Array;
  rank: number;
  settings: Settings;
  /** Context of the SELF communicator of this rank (for `self`). */
  selfContext: number;
  /** What reports call it (`world`, `split of world (color 1)`, ...). @default 'world' */
  name?: string;
}

export class Communicator {
  /** This rank's number in the communicator, 0 .. size-1. */
  readonly rank: number;
  /** Number of ranks in the communicator. */
  readonly size: number;
  /**
   * False on a rank that on-demand initialisation left out (TSMPI_CG_PER_PROCESS,
   * TSMPI_MAPPING_FILE): it has rank -1, holds no communication state, and every call throws
   * ERR_NOT_MEMBER. `size` is still the size of the members' world.
   */
  readonly member: boolean;
  readonly #endpointOrUndefined: Endpoint | undefined;
  readonly #notMember: string;
  readonly #context: number;
  readonly #group: Int32Array;
  readonly #settings: Settings;
  readonly #selfContext: number;
  readonly #label: CommunicatorLabel;
  #collectiveSeq = 0;
  #self: Communicator | undefined;

  /** @internal Communicators come from `init()`, `split()` and `dup()`. */
  constructor(init: CommunicatorInit) {
    this.#endpointOrUndefined = init.endpoint;
    this.#notMember = init.notMember ?? '';
    this.member = init.endpoint !== undefined;
    this.#context = init.context;
    this.#group = init.group;
    this.rank = init.rank;
    this.size = init.group.length;
    this.#settings = init.settings;
    this.#selfContext = init.selfContext;
    this.#label = { name: init.name ?? 'world', group: init.group };
    init.endpoint?.names.register(init.context, this.#label);
  }

  /**
   * What hang reports and errors call this communicator: `world`, `self`, `split of world
   * (color 1)`, `dup of world`, ... Set it to name yours (MPI_Comm_set_name).
   */
  get name(): string {
    return this.#label.name;
  }

  set name(name: string) {
    if (typeof name !== 'string' || name === '') throw this.#error(ErrorCode.Arg, `name ${JSON.stringify(name)} is not a non-empty string`, 'name', "pass a string, e.g. comm.name = 'rows'");
    this.#label.name = name;
  }

  /** The endpoint, or ERR_NOT_MEMBER on a rank outside the communicating group. */
  get #endpoint(): Endpoint {
    const endpoint = this.#endpointOrUndefined;
    if (endpoint === undefined) {
      throw new TsmpiError(ErrorCode.NotMember, `this process is not a member of the communicating group (${this.#notMember})`, {
        rank: -1,
        operation: 'communicate',
        hint: 'check comm.member before communicating, or change TSMPI_CG_PER_PROCESS / TSMPI_MAPPING_FILE',
      });
    }
    return endpoint;
  }

  /** The communicator's context id (unique on this rank among its communicators). */
  get context(): number {
    return this.#context;
  }

  /** The world rank of communicator rank `rank`. */
  worldRankOf(rank: number): number {
    this.#checkMember(rank, 'worldRankOf');
    return this.#group[rank]!;
  }

  /** A communicator holding only this rank (MPI_COMM_SELF). */
  get self(): Communicator {
    if (this.#self === undefined) {
      this.#self = new Communicator({
        endpoint: this.#endpoint,
        context: this.#selfContext,
        group: Int32Array.of(this.#endpoint.rank),
        rank: 0,
        settings: this.#settings,
        selfContext: this.#selfContext,
        name: 'self',
      });
    }
    return this.#self;
  }

  // ---- point-to-point -------------------------------------------------------------------------

  /**
   * Sends `value` to `dest` and resolves when the value has left this rank's memory (for large
   * messages: when the receiver has taken it). Typed arrays, Buffers and DataViews move as raw
   * bytes and arrive as the same kind; numbers and strings take fast paths; other values are
   * encoded (structured-clone semantics). Do not change a typed array until the send completes.
   * @throws {TsmpiError} ERR_RANK, ERR_TAG, ERR_ENCODE
   * @example
   * ```ts
   * if (comm.rank === 0) await comm.send({ step: 1, data: new Float64Array(8) }, 1, 7);
   * else if (comm.rank === 1) console.log(await comm.recv(0, 7));
   * ```
   */
  send(value: unknown, dest: number, tag = 0): Promise<void> {
    return this.isend(value, dest, tag).wait();
  }

  /** Starts a send; see {@link send}. */
  isend(value: unknown, dest: number, tag = 0): Request<void> {
    return this.#isend(value, dest, tag, 'send', false);
  }

  /**
   * A synchronous send (MPI_Ssend): resolves only once the receive has matched it, whatever its
   * size (it always takes the rendezvous path: announce, wait for the receiver's clear-to-send).
   */
  ssend(value: unknown, dest: number, tag = 0): Promise<void> {
    return this.issend(value, dest, tag).wait();
  }

  /** Starts a synchronous send; the request stays pending until the receive has matched (MPI_Issend). */
  issend(value: unknown, dest: number, tag = 0): Request<void> {
    return this.#isend(value, dest, tag, 'ssend', true);
  }

  #isend(value: unknown, dest: number, tag: number, operation: string, synchronous: boolean): Request<void> {
    this.#checkRank(dest, false, operation);
    this.#checkTag(tag, false, operation);
    if (dest === PROC_NULL) return this.#nullRequest(operation, tag) as Request<void>;
    return this.#endpoint.isend(this.#context, this.#group[dest]!, this.rank, tag, value, operation, dest, synchronous);
  }

  /**
   * Receives the next message from `source` (or ANY_SOURCE) with `tag` (or ANY_TAG) and returns
   * its value. Messages from one source with one tag arrive in the order they were sent.
   * @throws {TsmpiError} ERR_RANK, ERR_TAG
   */
  recv<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<T> {
    return this.irecv<T>(source, tag).wait();
  }

  /** Starts a receive; the request's `status` tells the source, tag and size once it is done. */
  irecv<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): Request<T> {
    this.#checkRank(source, true, 'recv');
    this.#checkTag(tag, true, 'recv');
    if (source === PROC_NULL) return this.#nullRequest('recv', tag) as Request<T>;
    return this.#endpoint.irecv(this.#context, source, this.#worldOf(source), tag, null, 'recv') as Request<T>;
  }

  /**
   * Receives a message's raw bytes into `buffer` (any typed array, Buffer or DataView) and
   * returns its status. The message must be a typed array or number and fit the buffer.
   * @throws {TsmpiError} ERR_TRUNCATE when the message is larger than the buffer, ERR_TYPE when
   *   the sender sent an encoded value
   */
  recvInto(buffer: BufferLike, source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<Status> {
    return this.irecvInto(buffer, source, tag).wait();
  }

  /** Starts a receive into `buffer`; see {@link recvInto}. */
  irecvInto(buffer: BufferLike, source: number = ANY_SOURCE, tag: number = ANY_TAG): Request<Status> {
    this.#checkBuffer(buffer, 'recvInto');
    this.#checkRank(source, true, 'recvInto');
    this.#checkTag(tag, true, 'recvInto');
    if (source === PROC_NULL) return this.#nullRequest('recvInto', tag, true) as Request<Status>;
    return this.#endpoint.irecv(this.#context, source, this.#worldOf(source), tag, bytesOf(buffer), 'recvInto') as Request<Status>;
  }

  /** Sends `value` to `dest` and receives from `source` at once (no deadlock in exchanges). */
  async sendrecv<T = unknown>(value: unknown, dest: number, source: number = ANY_SOURCE, sendTag = 0, recvTag: number = ANY_TAG): Promise<T> {
    const receive = this.irecv<T>(source, recvTag);
    const send = this.isend(value, dest, sendTag);
    const result = await receive.wait();
    await send.wait();
    return result;
  }

  /** Waits for a matching message without receiving it and returns its status. */
  async probe(source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<Status> {
    this.#checkRank(source, true, 'probe');
    this.#checkTag(tag, true, 'probe');
    if (source === PROC_NULL) return nullStatus();
    let status: Status | undefined;
    await this.#endpoint.waitUntil(() => (status = this.#endpoint.iprobe(this.#context, source, tag)) !== undefined, {
      operation: 'probe',
      peer: source,
      tag,
      context: this.#context,
    });
    return status!;
  }

  /** The status of a matching message if one has arrived, else undefined (never waits). */
  iprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG): Status | undefined {
    this.#checkRank(source, true, 'iprobe');
    this.#checkTag(tag, true, 'iprobe');
    if (source === PROC_NULL) return nullStatus();
    return this.#endpoint.pollProbe(this.#context, source, tag);
  }

  // ---- collectives ----------------------------------------------------------------------------
  // Each collective is one generator of steps (src/comm/collectives/steps.ts): the blocking call
  // awaits its steps, the nonblocking one (`i` + name, MPI-3) returns a Request that the rank's
  // progress advances at every poll and wait. Calls of either kind take their place in the
  // communicator's sequence when made, so several may be in flight, completing in any order.

  /** Waits until every rank of the communicator has called barrier. */
  barrier(): Promise<void> {
    return runSteps(barrier(this.#call('barrier')));
  }

  /** Starts a barrier; the request completes once every rank has started its barrier (MPI_Ibarrier). */
  ibarrier(): Request<void> {
    return this.#start('barrier', 'ibarrier', (call) => barrier(call));
  }

  /** Returns the root's `value` on every rank (the argument is ignored on other ranks). */
  bcast<T>(value: T, root = 0): Promise<T> {
    this.#checkMember(root, 'bcast');
    return runSteps(bcast(this.#call('bcast'), value, root));
  }

  /** Starts a {@link bcast}; the request's result is the root's value. */
  ibcast<T>(value: T, root = 0): Request<T> {
    this.#checkMember(root, 'ibcast');
    return this.#start('bcast', 'ibcast', (call) => bcast(call, value, root));
  }

  /** Copies the root's buffer into every rank's `buffer` (same byte length everywhere). */
  bcastInto<B extends BufferLike>(buffer: B, root = 0): Promise<B> {
    return runSteps(this.#bcastInto(buffer, root, 'bcastInto')(this.#call('bcastInto')));
  }

  /** Starts a {@link bcastInto}; the request's result is `buffer`, filled. */
  ibcastInto<B extends BufferLike>(buffer: B, root = 0): Request<B> {
    return this.#start('bcastInto', 'ibcastInto', this.#bcastInto(buffer, root, 'ibcastInto'));
  }

  /** Checks the arguments (before the call takes its place in the sequence) and makes its steps. */
  #bcastInto<B extends BufferLike>(buffer: B, root: number, operation: string): (call: CollectiveCall) => Steps<B> {
    this.#checkBuffer(buffer, operation);
    this.#checkMember(root, operation);
    return (call) => withResult(bcastBytes(call, bytesOf(buffer), root), buffer);
  }

  /** Combines every rank's value with `op` in rank order; the result on `root`, undefined elsewhere. */
  reduce<T>(value: T, op: AnyOp<T>, root = 0): Promise<T | undefined> {
    return runSteps(this.#reduce(value, op, root, 'reduce')(this.#call('reduce')));
  }

  /** Starts a {@link reduce}. */
  ireduce<T>(value: T, op: AnyOp<T>, root = 0): Request<T | undefined> {
    return this.#start('reduce', 'ireduce', this.#reduce(value, op, root, 'ireduce'));
  }

  #reduce<T>(value: T, op: AnyOp<T>, root: number, operation: string): (call: CollectiveCall) => Steps<T | undefined> {
    checkOp(op, operation, this.#endpoint.rank);
    this.#checkMember(root, operation);
    return (call) => reduce(call, value, op as ReduceOp, root);
  }

  /** Combines every rank's value with `op`; the result on every rank. */
  allreduce<T>(value: T, op: AnyOp<T>): Promise<T> {
    checkOp(op, 'allreduce', this.#endpoint.rank);
    return runSteps(allreduce(this.#call('allreduce'), value, op as ReduceOp));
  }

  /**
   * Starts an {@link allreduce}: compute meanwhile and `test()` now and then (each test moves the
   * reduction on), or `wait()` for the result.
   * @example
   * ```ts
   * const sum = comm.iallreduce(local, Op.sum);
   * while (!sum.test()) doSomeWork();
   * const total = await sum.wait();
   * ```
   */
  iallreduce<T>(value: T, op: AnyOp<T>): Request<T> {
    checkOp(op, 'iallreduce', this.#endpoint.rank);
    return this.#start('allreduce', 'iallreduce', (call) => allreduce(call, value, op as ReduceOp));
  }

  /** Inclusive prefix reduction: rank r gets x0 op ... op xr. */
  scan<T>(value: T, op: AnyOp<T>): Promise<T> {
    checkOp(op, 'scan', this.#endpoint.rank);
    return runSteps(scan(this.#call('scan'), value, op as ReduceOp));
  }

  /** Starts a {@link scan}. */
  iscan<T>(value: T, op: AnyOp<T>): Request<T> {
    checkOp(op, 'iscan', this.#endpoint.rank);
    return this.#start('scan', 'iscan', (call) => scan(call, value, op as ReduceOp));
  }

  /** Exclusive prefix reduction: rank r gets x0 op ... op x(r-1); undefined on rank 0. */
  exscan<T>(value: T, op: AnyOp<T>): Promise<T | undefined> {
    checkOp(op, 'exscan', this.#endpoint.rank);
    return runSteps(exscan(this.#call('exscan'), value, op as ReduceOp));
  }

  /** Starts an {@link exscan}. */
  iexscan<T>(value: T, op: AnyOp<T>): Request<T | undefined> {
    checkOp(op, 'iexscan', this.#endpoint.rank);
    return this.#start('exscan', 'iexscan', (call) => exscan(call, value, op as ReduceOp));
  }

  /** Every rank's value, in rank order, on `root`; undefined elsewhere. */
  gather<T>(value: T, root = 0): Promise<T[] | undefined> {
    this.#checkMember(root, 'gather');
    return runSteps(gather(this.#call('gather'), value, root));
  }

  /** Starts a {@link gather}. */
  igather<T>(value: T, root = 0): Request<T[] | undefined> {
    this.#checkMember(root, 'igather');
    return this.#start('gather', 'igather', (call) => gather(call, value, root));
  }

  /**
   * Concatenates every rank's typed array (any lengths) on `root`, with the counts and offsets.
   * Pass `counts` when every rank knows them, to skip gathering them.
   */
  gatherv<A extends TypedArray>(data: A, root = 0, counts?: readonly number[]): Promise<Concatenated<A> | undefined> {
    return runSteps(this.#gatherv(data, root, counts, 'gatherv')(this.#call('gatherv')));
  }

  /** Starts a {@link gatherv}. */
  igatherv<A extends TypedArray>(data: A, root = 0, counts?: readonly number[]): Request<Concatenated<A> | undefined> {
    return this.#start('gatherv', 'igatherv', this.#gatherv(data, root, counts, 'igatherv'));
  }

  #gatherv<A extends TypedArray>(data: A, root: number, counts: readonly number[] | undefined, operation: string): (call: CollectiveCall) => Steps<Concatenated<A> | undefined> {
    this.#checkTyped(data, operation);
    this.#checkMember(root, operation);
    return (call) => gatherv(call, data, root, counts);
  }

  /** Rank r gets `values[r]` of the root (other ranks pass undefined). */
  scatter<T>(values: readonly T[] | undefined, root = 0): Promise<T> {
    this.#checkMember(root, 'scatter');
    return runSteps(scatter(this.#call('scatter'), values, root));
  }

  /** Starts a {@link scatter}. */
  iscatter<T>(values: readonly T[] | undefined, root = 0): Request<T> {
    this.#checkMember(root, 'iscatter');
    return this.#start('scatter', 'iscatter', (call) => scatter(call, values, root));
  }

  /** Rank r gets `counts[r]` elements of the root's typed array (others pass undefined). */
  scatterv<A extends TypedArray>(data: A | undefined, counts: readonly number[] | undefined, root = 0): Promise<A> {
    this.#checkMember(root, 'scatterv');
    return runSteps(scatterv(this.#call('scatterv'), data, counts, root));
  }

  /** Starts a {@link scatterv}. */
  iscatterv<A extends TypedArray>(data: A | undefined, counts: readonly number[] | undefined, root = 0): Request<A> {
    this.#checkMember(root, 'iscatterv');
    return this.#start('scatterv', 'iscatterv', (call) => scatterv(call, data, counts, root));
  }

  /** Every rank's value, in rank order, on every rank. */
  allgather<T>(value: T): Promise<T[]> {
    return runSteps(allgather(this.#call('allgather'), value));
  }

  /** Starts an {@link allgather}. */
  iallgather<T>(value: T): Request<T[]> {
    return this.#start('allgather', 'iallgather', (call) => allgather(call, value));
  }

  /** Concatenates every rank's typed array (any lengths) on every rank. */
  allgatherv<A extends TypedArray>(data: A, counts?: readonly number[]): Promise<Concatenated<A>> {
    this.#checkTyped(data, 'allgatherv');
    return runSteps(allgatherv(this.#call('allgatherv'), data, counts));
  }

  /** Starts an {@link allgatherv}. */
  iallgatherv<A extends TypedArray>(data: A, counts?: readonly number[]): Request<Concatenated<A>> {
    this.#checkTyped(data, 'iallgatherv');
    return this.#start('allgatherv', 'iallgatherv', (call) => allgatherv(call, data, counts));
  }

  /** `values[i]` goes to rank i; returns what every rank sent to this one, in rank order. */
  alltoall<T>(values: readonly T[]): Promise<T[]> {
    return runSteps(alltoall(this.#call('alltoall'), values));
  }

  /** Starts an {@link alltoall}. */
  ialltoall<T>(values: readonly T[]): Request<T[]> {
    return this.#start('alltoall', 'ialltoall', (call) => alltoall(call, values));
  }

  /**
   * Rank r sends `sendCounts[i]` elements of `data` (in order) to rank i and gets back the
   * concatenation of what every rank sent it. Pass `recvCounts` when known to skip exchanging them.
   */
  alltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[]): Promise<Concatenated<A>> {
    this.#checkTyped(data, 'alltoallv');
    return runSteps(alltoallv(this.#call('alltoallv'), data, sendCounts, recvCounts));
  }

  /** Starts an {@link alltoallv}. */
  ialltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[]): Request<Concatenated<A>> {
    this.#checkTyped(data, 'ialltoallv');
    return this.#start('alltoallv', 'ialltoallv', (call) => alltoallv(call, data, sendCounts, recvCounts));
  }

  /** A nonblocking collective's request: its first steps run now, the rest as the rank progresses. */
  #start<T>(operation: CollectiveOperation, name: string, steps: (call: CollectiveCall) => Steps<T>): Request<T> {
    const endpoint = this.#endpoint;
    const call = this.#call(operation, name);
    const request = new ScheduleRequest<T>(endpoint, call, steps(call));
    if (!request.advance()) endpoint.background.add(request);
    return request;
  }

  // ---- time ----------------------------------------------------------------------------------

  /**
   * This rank's clock: `now()` in seconds and timers (`schedule`, `cancel`). In a real run it is
   * the wall clock; under `tsmpi sim` the rank's virtual time, and timers fire at virtual times
   * (their callbacks should be short: they run as events, not as the rank's computation).
   */
  get clock(): Clock {
    return this.#endpoint.engine.clock;
  }

  /**
   * Waits `seconds` of this rank's time (virtual under `tsmpi sim`, where the rank counts as
   * blocked meanwhile). `sleep(0)` lets other work run once (I/O, timers; other ranks in the
   * simulator) and returns.
   */
  sleep(seconds: number): Promise<void> {
    if (!(seconds >= 0)) throw this.#error(ErrorCode.Arg, `sleep(${String(seconds)})`, 'sleep', 'pass a number of seconds >= 0');
    return this.#endpoint.engine.sleep(seconds);
  }

  /** The node (host) index of communicator rank `rank` in the job's node map (0 when unknown). */
  nodeOf(rank: number): number {
    this.#checkMember(rank, 'nodeOf');
    return this.#endpoint.nodeOfWorld[this.#group[rank]!] ?? 0;
  }

  /**
   * @internal The rank's point-to-point engine, for what is built beside the communicator's
   * calls (one-sided windows: their target side runs as the engine's background task).
   */
  get endpoint(): Endpoint {
    return this.#endpoint;
  }

  /** @internal The rank's tunables (TSMPI_*), for the layers built on the communicator. */
  get settings(): Settings {
    return this.#settings;
  }

  // ---- computation (simulator) ---------------------------------------------------------------

  /**
   * Declares `seconds` of computation. Under `tsmpi sim` the rank's virtual clock moves on by that
   * much (scaled by nothing: seconds are seconds); in a real run it does nothing (real work takes
   * real time). Use it to model work a program does not perform, or with `--compute declared`.
   */
  compute(seconds: number): Promise<void> {
    if (!(seconds >= 0)) throw this.#error(ErrorCode.Arg, `compute(${String(seconds)})`, 'compute', 'pass a number of seconds >= 0');
    return this.#endpoint.engine.compute?.(seconds) ?? Promise.resolve();
  }

  /** Declares `flops` floating-point operations: their time on this rank's simulated host (see compute). */
  computeFlops(flops: number): Promise<void> {
    if (!(flops >= 0)) throw this.#error(ErrorCode.Arg, `computeFlops(${String(flops)})`, 'computeFlops', 'pass a number of operations >= 0');
    const engine = this.#endpoint.engine;
    return engine.compute?.(engine.flopsSeconds?.(flops) ?? 0) ?? Promise.resolve();
  }

  // ---- communicators --------------------------------------------------------------------------

  /**
   * Splits the communicator: ranks passing the same `color` form a new communicator, ordered by
   * `key` and then by their rank here. A rank passing `undefined` gets no communicator.
   */
  split(color: number | undefined, key = 0): Promise<Communicator | undefined> {
    if (color !== undefined && (!Number.isInteger(color) || color < 0)) {
      throw this.#error(ErrorCode.Arg, `color ${String(color)} is not a non-negative integer`, 'split', 'pass an integer >= 0, or undefined for no communicator');
    }
    if (!Number.isInteger(key)) throw this.#error(ErrorCode.Arg, `key ${String(key)} is not an integer`, 'split', 'pass an integer key');
    return this.#split(color, key, `split of ${this.name} (color ${String(color)})`);
  }

  async #split(color: number | undefined, key: number, name: string): Promise<Communicator | undefined> {
    const endpoint = this.#endpoint;
    const entries = await runSteps(allgather(this.#call('split'), [color ?? -1, key, endpoint.nextContext] as [number, number, number]));
    let context = 0;
    for (const entry of entries) context = Math.max(context, entry[2]);
    endpoint.nextContext = context + 2;
    if (color === undefined) return undefined;
    const members: number[] = [];
    for (let r = 0; r < entries.length; r++) if (entries[r]![0] === color) members.push(r);
    members.sort((a, b) => entries[a]![1] - entries[b]![1] || a - b);
    const group = Int32Array.from(members, (r) => this.#group[r]!);
    return new Communicator({
      endpoint,
      context,
      group,
      rank: members.indexOf(this.rank),
      settings: this.#settings,
      selfContext: this.#selfContext,
      name,
    });
  }

  /** A new communicator with the same ranks and a context of its own (messages never cross). */
  async dup(): Promise<Communicator> {
    return (await this.#split(0, this.rank, `dup of ${this.name}`))!;
  }

  // ---- topologies -----------------------------------------------------------------------------
  // The topology classes extend Communicator, so this module cannot import them (they would be
  // evaluated before the class they extend exists; a dynamic import would split the one-file
  // runtime bundle): their modules install their constructors here when they load, as the
  // public API (src/index.ts) does, and this module names their types only.

  /** @internal The topology constructors, installed by src/comm/topology/ as it loads. */
  static readonly topologies: {
    createCart?: typeof import('./topology/cart-communicator.js').createCart;
    createDistGraphAdjacent?: typeof import('./topology/dist-graph-communicator.js').createDistGraphAdjacent;
    createDistGraph?: typeof import('./topology/dist-graph-communicator.js').createDistGraph;
  } = {};

  /**
   * Collective: a Cartesian communicator laying the first `prod(dims)` ranks out on a grid in
   * row-major order (MPI_Cart_create); the other ranks get undefined. `periods` says which
   * dimensions wrap around (one boolean for all, default none); `reorder` is a hint, ignored.
   * @throws {TsmpiError} ERR_ARG when the grid needs more ranks than the communicator has
   * @example
   * ```ts
   * const cart = await comm.createCart(computeDims(comm.size, 2), [true, false]);
   * const { source, dest } = cart!.shift(0, 1);
   * ```
   */
  createCart(
    dims: readonly number[],
    periods: boolean | readonly boolean[] = false,
    reorder = false,
  ): Promise<import('./topology/cart-communicator.js').CartCommunicator | undefined> {
    return this.#topology('createCart', Communicator.topologies.createCart)(this, dims, periods, reorder);
  }

  /**
   * Collective: a distributed graph communicator (MPI_Dist_graph_create_adjacent): this rank
   * receives from `sources` and sends to `destinations` in the neighbour collectives. An edge
   * a -> b must be in a's destinations and b's sources alike (checked: ERR_ARG on every rank).
   * @example
   * ```ts
   * const right = (comm.rank + 1) % comm.size, left = (comm.rank - 1 + comm.size) % comm.size;
   * const ring = await comm.createDistGraphAdjacent([left], [right]);
   * const [fromLeft] = await ring.neighborAllgather(comm.rank);
   * ```
   */
  createDistGraphAdjacent(
    sources: readonly number[],
    destinations: readonly number[],
    options?: import('./topology/dist-graph-communicator.js').DistGraphOptions,
  ): Promise<import('./topology/dist-graph-communicator.js').DistGraphCommunicator> {
    return this.#topology('createDistGraphAdjacent', Communicator.topologies.createDistGraphAdjacent)(this, sources, destinations, options);
  }

  /**
   * Collective: a distributed graph communicator from edges any rank may declare
   * (MPI_Dist_graph_create): `sources[i]` has edges to the next `degrees[i]` entries of
   * `destinations`. Each rank's neighbours come in the order of the declaring rank, then of the
   * declaration. `weights` (one per edge) must be passed by every rank or by none.
   * @example
   * ```ts
   * // Rank 0 declares a whole ring; the others declare no edges.
   * const all = comm.rank === 0 ? [...Array(comm.size).keys()] : [];
   * const ring = await comm.createDistGraph(all, all.map(() => 1), all.map((r) => (r + 1) % comm.size));
   * ```
   */
  createDistGraph(
    sources: readonly number[],
    degrees: readonly number[],
    destinations: readonly number[],
    options?: import('./topology/dist-graph-communicator.js').DistGraphEdgeOptions,
  ): Promise<import('./topology/dist-graph-communicator.js').DistGraphCommunicator> {
    return this.#topology('createDistGraph', Communicator.topologies.createDistGraph)(this, sources, degrees, destinations, options);
  }

  /**
   * @internal Collective, like split(): what a communicator of this rank's colour is built from,
   * for the topology classes to construct (undefined where `color` is undefined).
   */
  async splitInit(color: number | undefined, key: number, name: string): Promise<CommunicatorInit | undefined> {
    const comm = await this.#split(color, key, name);
    if (comm === undefined) return undefined;
    return { endpoint: comm.#endpointOrUndefined, context: comm.#context, group: comm.#group, rank: comm.rank, settings: comm.#settings, selfContext: comm.#selfContext, name };
  }

  #topology<F>(operation: string, create: F | undefined): F {
    if (create !== undefined) return create;
    throw this.#error(ErrorCode.Internal, 'the topology classes were not loaded', operation, "import tsmpi's public API (from 'tsmpi' or src/index.ts), which loads them");
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * @internal One collective call's point-to-point view (its own context and tag), for layers
   * that schedule a collective's messages themselves (the simulator's SimGrid collectives). Every
   * rank must make the same calls in the same order, as for any collective.
   */
  collectiveCall(operation: CollectiveOperation): CollectiveCall {
    return this.#call(operation);
  }

  /**
   * The next call of the communicator's collective sequence. `name` is what reports call it
   * (`iallreduce`); a nonblocking call shares its blocking twin's tag slot.
   */
  #call(operation: CollectiveOperation, name: string = operation): CollectiveCall {
    // The tag holds the call's sequence number and operation, so concurrent calls never match
    // each other's messages and mismatched calls (rank A in bcast, rank B in reduce) wait visibly
    // in the hang report instead of delivering one operation's data to the other.
    const tag = (((this.#collectiveSeq++ & 0x1ffffff) << 5) | collectiveOperations.indexOf(operation)) & TAG_UB;
    return new CollectiveCall(this.#endpoint, this.#context + 1, this.#group, this.rank, tag, name, this.#settings, this.#label);
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, message, { rank: this.#endpointOrUndefined?.rank ?? -1, operation, hint });
  }

  #worldOf(rank: number): number {
    return rank === ANY_SOURCE ? -1 : this.#group[rank]!;
  }

  /** A point-to-point rank: 0 .. size-1 or PROC_NULL, and ANY_SOURCE where `allowAny`. */
  #checkRank(rank: number, allowAny: boolean, operation: string): void {
    if (Number.isInteger(rank) && rank >= 0 && rank < this.size) return;
    if (rank === PROC_NULL || (allowAny && rank === ANY_SOURCE)) return;
    throw this.#rankError(rank, operation, `pass a rank from 0 to ${this.size - 1}, PROC_NULL${allowAny ? ' or ANY_SOURCE' : ''}`);
  }

  /** A rank that must be a member: a root, a rank to translate. */
  #checkMember(rank: number, operation: string): void {
    if (Number.isInteger(rank) && rank >= 0 && rank < this.size) return;
    throw this.#rankError(rank, operation, `pass a rank from 0 to ${this.size - 1}`);
  }

  #rankError(rank: number, operation: string, hint: string): TsmpiError {
    const what = rank === PROC_NULL ? 'PROC_NULL is not a rank here' : rank === ANY_SOURCE ? 'ANY_SOURCE is not a rank here' : `rank ${String(rank)} is out of range for a communicator of size ${this.size}`;
    return this.#error(ErrorCode.Rank, what, operation, hint);
  }

  /**
   * A request with the null peer, complete at once (MPI_PROC_NULL): a receive reports source
   * PROC_NULL, ANY_TAG and 0 bytes, with the value undefined (a buffer receive: its status).
   */
  #nullRequest(operation: string, tag: number, statusResult = false): Request<unknown> {
    const request = new Request<unknown>(this.#endpoint, operation, PROC_NULL, tag, this.#context);
    const status = operation === 'send' ? undefined : nullStatus();
    request.complete(statusResult ? status : undefined, status);
    return request;
  }

  #checkTag(tag: number, allowAny: boolean, operation: string): void {
    if (Number.isInteger(tag) && tag >= 0 && tag <= TAG_UB) return;
    if (allowAny && tag === ANY_TAG) return;
    throw this.#error(ErrorCode.Tag, `tag ${String(tag)} is not valid`, operation, `use an integer tag from 0 to ${TAG_UB}${allowAny ? ', or ANY_TAG' : ''}`);
  }

  #checkBuffer(buffer: unknown, operation: string): void {
    if (rawKindOf(buffer) < 0) {
      throw this.#error(ErrorCode.Type, 'the buffer is not a typed array, Buffer or DataView', operation, 'pass a typed array (e.g. new Float64Array(n)); use recv() to receive any value');
    }
  }

  #checkTyped(data: unknown, operation: string): void {
    if (!ArrayBuffer.isView(data) || data instanceof DataView) {
      throw this.#error(ErrorCode.Type, 'the data is not a typed array', operation, 'pass a typed array (e.g. Float64Array); use the non-v collective for other values');
    }
  }
}
