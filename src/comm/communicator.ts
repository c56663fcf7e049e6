/**
 * A communicator: a group of ranks with an isolated context, point-to-point messages and
 * collectives. The name of a call says its cost, as in mpi4py: `send`/`recv`/`bcast`/`gather`...
 * take and return any value (typed arrays move as raw bytes, other values are encoded);
 * `recvInto`/`bcastInto` fill a buffer you own; `gatherv`/`scatterv`/`allgatherv`/`alltoallv`
 * move typed arrays cut by counts.
 *
 * Every rank of the group must call a collective, in the same order as the others.
 */
import type { RankTrace } from '../trace/rank-trace.js';
import type { Clock } from '../clock.js';
import type { Settings } from '../config/tunables.js';
import { encodeValue, rawKindOf, refuseToEncode, type BufferLike, type TypedArray } from './codec.js';
import { allgather, allgatherv, allgathervPair } from './collectives/allgather.js';
import { allreduce, allreducePair } from './collectives/allreduce.js';
import { alltoall, alltoallv, alltoallvPair } from './collectives/alltoall.js';
import { barrier, barrierStep } from './collectives/barrier.js';
import { bcast, bcastBytes, bcastBytesStep } from './collectives/bcast.js';
import { CollectiveCall } from './collectives/call.js';
import { checked, type CollectiveArgs } from './collectives/check.js';
import { runStepFor, runSteps, runStepsFor, ScheduleRequest, withResult, type Steps } from './collectives/steps.js';
import { checkCounts, gather, gatherv, type Concatenated } from './collectives/gather.js';
import { reduce } from './collectives/reduce.js';
import { scan, exscan } from './collectives/scan.js';
import { scatter, scatterv } from './collectives/scatter.js';
import { reduceScatter, reduceScatterPair } from './collectives/reduce-scatter.js';
import type { Endpoint } from './endpoint.js';
import { ErrorCode, TsmpiError, type ErrorCodeValue } from '../errors.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL, type UnexpectedMessage } from './matching.js';
import { agreeAmongGroup, agreeContext, proposeContext } from './context-agreement.js';
import type { CommunicatorLabel } from './context-names.js';
import { CONGRUENT, Group, IDENT, SIMILAR, UNEQUAL, type Comparison } from './group.js';
import { ATTR_APPNUM, ATTR_HOST, ATTR_IO, ATTR_TAG_UB, ATTR_UNIVERSE_SIZE, ATTR_WTIME_IS_GLOBAL, AttributeStore, createKeyval, freeKeyval, type AttributeCopy, type AttributeDelete } from './attributes.js';
import { Info } from './info.js';
import { ErrhandlerSlot, wrapForErrhandlers, type Errhandler, type ErrhandlerBody } from './errhandler.js';
import { Intercommunicator } from './intercommunicator.js';
import { Message, MESSAGE_NO_PROC } from './message.js';
import { checkOp, describeOperand, Op, type AnyOp, type ReduceOp } from './ops.js';
import { hardwareLevels, SPLIT_TYPES, type SplitType } from './placement.js';
import { checkPartitions, PartitionedRecv, PartitionedSend, partitionedTag, type PartitionedChannel } from './partitioned.js';
import { PersistentRequest } from './persistent-request.js';
import { completedRequest, receivedWhenSent, Request } from './request.js';
import { rankSendBuffer, SendBuffer, type AttachedBuffer } from './send-buffer.js';
import { Status, UNDEFINED } from './status.js';

export { ANY_SOURCE, ANY_TAG, PROC_NULL };
/** What a receive from or a probe of PROC_NULL reports. */
/** What an operation on PROC_NULL reports (a fresh one each time: a program may set its fields). */
const nullStatus = (): Status => new Status(PROC_NULL, ANY_TAG, 0);
/** What a blocking send that left at once returns (a settled promise may be awaited any number of times). */
const SENT: Promise<void> = Promise.resolve();

/** The largest tag a user may use (MPI_TAG_UB). */
export const TAG_UB = 0x3fffffff;

export type { Concatenated };
/** What may receive a collective's result in place of a new value: an array of the value's own type (typed arrays only). */
export type ReceiveArray<T> = T extends ArrayBufferView ? T : never;

const collectiveOperations = [
  'barrier', 'bcast', 'bcastInto', 'reduce', 'allreduce', 'scan', 'exscan', 'gather', 'gatherv', 'scatter',
  'scatterv', 'allgather', 'allgatherv', 'alltoall', 'alltoallv', 'split', 'reducescatter',
  'neighborAllgather', 'neighborAllgatherv', 'neighborAlltoall', 'neighborAlltoallv', 'check',
] as const;
/** @internal The collectives whose calls get their own tags. */
export type CollectiveOperation = (typeof collectiveOperations)[number];
/** Operations that may go through the world's staging regions (staged-request.ts). */
const STAGED_OPERATIONS: ReadonlySet<CollectiveOperation> = new Set<CollectiveOperation>(['allreduce', 'reducescatter', 'allgatherv', 'alltoallv']);
/** Each operation's number in a collective tag (a lookup per call, not a search of the list). */
const operationCode = new Map<string, number>(collectiveOperations.map((operation, index) => [operation, index]));

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
  /** The hints it was made with. */
  info?: Info;
  /** World and self: they cannot be freed. */
  predefined?: boolean;
  /** Its error handler: a new communicator takes its parent's (MPI). @default ERRORS_RETURN */
  errhandler?: ErrhandlerBody;
}

/** Methods an error handler does not govern: its own, and how a communicator of a kind is made. */
const UNGOVERNED = new Set(['getErrhandler', 'setErrhandler', 'callErrhandler', 'copyWith']);

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
  readonly #predefined: boolean;
  readonly #errhandler: ErrhandlerSlot;
  #collectiveSeq = 0;
  /** The call object {@link #oneStepCall} lends. */
  #reusedCall: CollectiveCall | undefined;
  /** reduceScatterBlock's counts for the length it was last given. */
  #lastEqualBlocks: { length: number; counts: readonly number[] } | undefined;
  #self: Communicator | undefined;
  #info: Info;
  readonly #attributes = new AttributeStore<Communicator>('communicator');
  #freed = false;
  /** The buffer of this communicator's buffered sends, once one is attached (MPI-4.1). */
  #sendBuffer: SendBuffer | undefined;

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
    this.#info = init.info ?? new Info();
    this.#predefined = init.predefined ?? false;
    this.#errhandler = new ErrhandlerSlot(init.errhandler);
    if (this.#errhandler.inEffect !== undefined) wrapForErrhandlers(this, UNGOVERNED);
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

  /** The endpoint, or ERR_NOT_MEMBER on a rank outside the communicating group (ERR_CLOSED once freed). */
  get #endpoint(): Endpoint {
    if (this.#freed || this.#endpointOrUndefined?.finalized === true) this.#live('communicate');
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
        predefined: true,
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
    // A typed array its link takes now leaves without a request (Endpoint.sendNow).
    if (ArrayBuffer.isView(value) && this.#sentNow(value, dest, tag)) return SENT;
    return this.#isend(value, dest, tag, 'send', false).wait();
  }

  /** True when a blocking send of `value` left at once, its arguments checked as {@link #isend} does. */
  #sentNow(value: ArrayBufferView, dest: number, tag: number): boolean {
    this.#live('send');
    this.#checkRank(dest, false, 'send');
    this.#checkTag(tag, false, 'send');
    return dest !== PROC_NULL && this.#endpoint.sendNow(this.#context, this.#group[dest]!, this.rank, tag, value);
  }

  /** Starts a send; see {@link send}. */
  isend(value: unknown, dest: number, tag = 0): Request<void> {
    return this.#isend(value, dest, tag, 'send', false, true);
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

  /** `burst`: a program's nonblocking send, which more sends may follow at once (FRAME_BURST). */
  #isend(value: unknown, dest: number, tag: number, operation: string, synchronous: boolean, burst = false): Request<void> {
    this.#live(operation);
    this.#checkRank(dest, false, operation);
    this.#checkTag(tag, false, operation);
    if (dest === PROC_NULL) return this.#nullRequest(operation, tag) as Request<void>;
    return this.#endpoint.isend(this.#context, this.#group[dest]!, this.rank, tag, value, operation, dest, synchronous, burst);
  }

  /**
   * A ready send (MPI_Rsend): the program promises the receive is posted already. tsmpi sends it
   * as a standard send, which MPI allows, so it is correct whether or not the promise holds.
   */
  rsend(value: unknown, dest: number, tag = 0): Promise<void> {
    return this.irsend(value, dest, tag).wait();
  }

  /** Starts a ready send; see {@link rsend}. */
  irsend(value: unknown, dest: number, tag = 0): Request<void> {
    return this.#isend(value, dest, tag, 'rsend', false);
  }

  /**
   * A buffered send (MPI_Bsend): completes at once, its message kept in the attached send buffer
   * until delivered. The buffer is this communicator's if one is attached
   * ({@link attachBuffer}), else the rank's (the top-level `attachBuffer`).
   * @throws {TsmpiError} ERR_BUFFER when no buffer is attached or the message does not fit it
   * @example
   * ```ts
   * attachBuffer(1 << 20);
   * await comm.bsend(results, 0);       // returns once copied, whatever the receiver does
   * await detachBuffer();               // waits until every buffered message is delivered
   * ```
   */
  bsend(value: unknown, dest: number, tag = 0): Promise<void> {
    return this.ibsend(value, dest, tag).wait();
  }

  /** Starts a buffered send; the request is complete when it returns (MPI_Ibsend); see {@link bsend}. */
  ibsend(value: unknown, dest: number, tag = 0): Request<void> {
    this.#live('bsend');
    this.#checkRank(dest, false, 'bsend');
    this.#checkTag(tag, false, 'bsend');
    if (dest === PROC_NULL) return this.#nullRequest('bsend', tag) as Request<void>;
    const endpoint = this.#endpoint;
    const buffer = this.#sendBuffer?.attached === true ? this.#sendBuffer : rankSendBuffer(endpoint);
    const encoded = encodeValue(value, endpoint.rank, 'bsend');
    const bytes = encoded.bytes.length;
    if (!buffer.drained) endpoint.poll();
    buffer.reserve(bytes, endpoint.rank, 'bsend');
    // The program may change its typed array as soon as bsend returns: send a copy (encoded
    // values are fresh bytes already).
    let delivered: (() => void) | undefined;
    if (rawKindOf(value) >= 0) {
      const memory = endpoint.scratch.take(bytes);
      const copy = new Uint8Array(memory, 0, bytes);
      copy.set(encoded.bytes);
      encoded.bytes = copy;
      delivered = () => endpoint.scratch.give(memory);
    }
    buffer.track(endpoint.isendEncoded(this.#context, this.#group[dest]!, this.rank, tag, encoded, 'bsend', dest), bytes, delivered);
    return completedRequest<void>('bsend', dest, tag, undefined);
  }

  /**
   * Attaches a send buffer to this communicator for its buffered sends (MPI-4.1's
   * MPI_Comm_attach_buffer): a byte count, a buffer (its byte length), or BUFFER_AUTOMATIC.
   */
  attachBuffer(buffer: AttachedBuffer): void {
    this.#live('attachBuffer');
    (this.#sendBuffer ??= new SendBuffer(`${this.name}'s`)).attach(buffer, this.#errorRank, 'attachBuffer');
  }

  /** Waits until this communicator's buffered messages are delivered, then detaches its buffer and returns it. */
  detachBuffer(): Promise<AttachedBuffer> {
    this.#live('detachBuffer');
    return (this.#sendBuffer ??= new SendBuffer(`${this.name}'s`)).detach(this.#endpoint, this.#errorRank, 'detachBuffer');
  }

  /** Waits until every message buffered in this communicator's buffer is delivered (MPI_Comm_flush_buffer). */
  flushBuffer(): Promise<void> {
    this.#live('flushBuffer');
    return this.#sendBuffer?.flush(this.#endpoint, 'flushBuffer') ?? Promise.resolve();
  }

  /** Starts a {@link flushBuffer} (MPI_Comm_iflush_buffer). */
  iflushBuffer(): Request<void> {
    this.#live('iflushBuffer');
    const endpoint = this.#endpoint;
    return this.#sendBuffer?.iflush(endpoint, endpoint.background, 'iflushBuffer') ?? completedRequest<void>('iflushBuffer', -1, -1, undefined);
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
    this.#live('recv');
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
    if (source < 0 || tag < 0) return this.irecvInto(buffer, source, tag).wait();
    this.#checkRecvInto(buffer, source, tag);
    // A small message from one source taken as it lands (Endpoint.receiveSoon), else posted.
    const endpoint = this.#endpoint;
    const bytes = endpoint.byteViews.of(buffer);
    const world = this.#group[source]!;
    const length = endpoint.receiveSoon(this.#context, source, world, tag, bytes);
    if (length >= 0) return Promise.resolve(new Status(source, tag, length));
    return endpoint.irecv(this.#context, source, world, tag, bytes, 'recvInto').wait() as Promise<Status>;
  }

  /** Starts a receive into `buffer`; see {@link recvInto}. */
  irecvInto(buffer: BufferLike, source: number = ANY_SOURCE, tag: number = ANY_TAG): Request<Status> {
    this.#checkRecvInto(buffer, source, tag);
    if (source === PROC_NULL) return this.#nullRequest('recvInto', tag, true) as Request<Status>;
    return this.#endpoint.irecv(this.#context, source, this.#worldOf(source), tag, this.#endpoint.byteViews.of(buffer), 'recvInto') as Request<Status>;
  }

  /**
   * A persistent send (MPI_Send_init): made once, then started with `start()` (or `startAll`) as
   * often as needed, each start an {@link isend} of `value` as it is then (a typed array's
   * current contents). Inactive until started; wait or test each start before the next.
   * @example
   * ```ts
   * const toRight = comm.sendInit(edge, right, 1);
   * const fromLeft = comm.recvInitInto(halo, left, 1);
   * for (let step = 0; step < steps; step++) {
   *   startAll([toRight, fromLeft]);
   *   await waitAll([toRight, fromLeft]);
   * }
   * ```
   */
  sendInit(value: unknown, dest: number, tag = 0): PersistentRequest<void> {
    return this.#persistentSend(dest, tag, 'send', () => this.isend(value, dest, tag));
  }

  /** A persistent synchronous send (MPI_Ssend_init): each start an {@link issend}. */
  ssendInit(value: unknown, dest: number, tag = 0): PersistentRequest<void> {
    return this.#persistentSend(dest, tag, 'ssend', () => this.issend(value, dest, tag));
  }

  /** A persistent buffered send (MPI_Bsend_init): each start an {@link ibsend}. */
  bsendInit(value: unknown, dest: number, tag = 0): PersistentRequest<void> {
    return this.#persistentSend(dest, tag, 'bsend', () => this.ibsend(value, dest, tag));
  }

  /** A persistent ready send (MPI_Rsend_init): each start an {@link irsend}. */
  rsendInit(value: unknown, dest: number, tag = 0): PersistentRequest<void> {
    return this.#persistentSend(dest, tag, 'rsend', () => this.irsend(value, dest, tag));
  }

  #persistentSend(dest: number, tag: number, kind: string, begin: () => Request<void>): PersistentRequest<void> {
    const operation = `${kind}Init`;
    this.#live(operation);
    this.#checkRank(dest, false, operation);
    this.#checkTag(tag, false, operation);
    return new PersistentRequest<void>(this.#endpoint, kind, dest, tag, this.#context, this.#errorRank, begin);
  }

  /** A persistent receive of a value (MPI_Recv_init): each start an {@link irecv}; a start's wait gives the value. */
  recvInit<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): PersistentRequest<T> {
    this.#live('recvInit');
    this.#checkRank(source, true, 'recvInit');
    this.#checkTag(tag, true, 'recvInit');
    return new PersistentRequest<T>(this.#endpoint, 'recv', source, tag, this.#context, this.#errorRank, () => this.irecv<T>(source, tag));
  }

  /** A persistent receive into `buffer` (MPI_Recv_init with a buffer): each start an {@link irecvInto}; a start's wait gives its status. */
  recvInitInto(buffer: BufferLike, source: number = ANY_SOURCE, tag: number = ANY_TAG): PersistentRequest<Status> {
    this.#checkRecvInto(buffer, source, tag);
    return new PersistentRequest<Status>(this.#endpoint, 'recvInto', source, tag, this.#context, this.#errorRank, () => this.irecvInto(buffer, source, tag));
  }

  #checkRecvInto(buffer: BufferLike, source: number, tag: number): void {
    this.#live('recvInto');
    this.#checkBuffer(buffer, 'recvInto');
    this.#checkRank(source, true, 'recvInto');
    this.#checkTag(tag, true, 'recvInto');
  }

  /**
   * A partitioned send (MPI-4's MPI_Psend_init): `data` cut into `partitions` equal parts; after
   * each `start()`, `pready(i)` marks part i ready (any order, once per start), and the data
   * leaves once all are. It matches the receiver's precvInit with the same tag (partitioned
   * traffic never meets other messages). A PersistentRequest: start, wait, test, free.
   */
  psendInit(data: TypedArray, partitions: number, dest: number, tag = 0): PartitionedSend {
    const channel = this.#partitionedChannel(data, partitions, dest, tag, 'psendInit');
    return new PartitionedSend(channel, data, partitions, dest, tag);
  }

  /**
   * The receiving side of a partitioned send (MPI_Precv_init): after each `start()`,
   * `parrived(i)` says whether part i has arrived; a wait gives the status once all have.
   * Needs a specific source and tag (no wildcards, as MPI).
   */
  precvInit(data: TypedArray, partitions: number, source: number, tag = 0): PartitionedRecv {
    const channel = this.#partitionedChannel(data, partitions, source, tag, 'precvInit');
    return new PartitionedRecv(channel, data, partitions, source, tag);
  }

  #partitionedChannel(data: TypedArray, partitions: number, peer: number, tag: number, operation: string): PartitionedChannel {
    this.#live(operation);
    checkPartitions(data, partitions, this.#errorRank, operation);
    this.#checkRank(peer, false, operation);
    this.#checkTag(tag, false, operation);
    if (tag === TAG_UB) throw this.#error(ErrorCode.Tag, `tag ${tag} (TAG_UB) is not a partitioned tag`, operation, `partitioned tags go from 0 to ${TAG_UB - 1}`);
    const endpoint = this.#endpoint;
    const context = this.#context + 1;
    const wire = partitionedTag(tag);
    const nullRound = (result: unknown): Request<never> => completedRequest(operation, PROC_NULL, tag, result as never, nullStatus());
    return {
      driver: endpoint,
      context,
      rank: this.#errorRank,
      send: (value) => (peer === PROC_NULL ? nullRound(undefined) : endpoint.isend(context, this.#worldOf(peer), this.rank, wire, value, 'psend', peer)),
      recvInto: (into) => (peer === PROC_NULL ? nullRound(nullStatus()) : (endpoint.irecv(context, peer, this.#worldOf(peer), wire, endpoint.byteViews.of(into), 'precv') as Request<Status>)),
    };
  }

  /** Sends `value` to `dest` and receives from `source` at once (no deadlock in exchanges). */
  async sendrecv<T = unknown>(value: unknown, dest: number, source: number = ANY_SOURCE, sendTag = 0, recvTag: number = ANY_TAG): Promise<T> {
    return receivedWhenSent(this.irecv<T>(source, recvTag), this.isend(value, dest, sendTag));
  }

  /**
   * Sends `value` to `dest` and receives from `source` into `into` at once (MPI_Sendrecv with a
   * receive buffer); returns the receive's status. The message received must fit `into`.
   */
  async sendrecvInto(value: unknown, dest: number, into: BufferLike, source: number = ANY_SOURCE, sendTag = 0, recvTag: number = ANY_TAG): Promise<Status> {
    return receivedWhenSent(this.irecvInto(into, source, recvTag), this.isend(value, dest, sendTag));
  }

  /**
   * Sends `buffer`'s bytes to `dest` and receives from `source` into the same buffer
   * (MPI_Sendrecv_replace); returns the receive's status. The message received must fit it.
   */
  async sendrecvReplace(buffer: BufferLike, dest: number, source: number = ANY_SOURCE, sendTag = 0, recvTag: number = ANY_TAG): Promise<Status> {
    this.#checkBuffer(buffer, 'sendrecvReplace');
    const send = this.isend(dest === PROC_NULL ? buffer : copyOfBuffer(buffer), dest, sendTag);
    const status = await this.irecvInto(buffer, source, recvTag).wait();
    await send.wait();
    return status;
  }

  /** Waits for a matching message without receiving it and returns its status. */
  async probe(source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<Status> {
    this.#live('probe');
    this.#checkRank(source, true, 'probe');
    this.#checkTag(tag, true, 'probe');
    if (source === PROC_NULL) return nullStatus();
    let status: Status | undefined;
    const endpoint = this.#endpoint;
    const description = { operation: 'probe', peer: source, tag, context: this.#context };
    // A probe of a rank that ended, with nothing of it left to find, would wait for ever.
    await endpoint.waitUntil(() => (status = endpoint.iprobe(this.#context, source, tag)) !== undefined || this.#sourceEnded(source), description);
    if (status === undefined) throw endpoint.endedProbe(description, this.#worldOf(source));
    return status;
  }

  /** The status of a matching message if one has arrived, else undefined (never waits). */
  iprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG): Status | undefined {
    this.#live('iprobe');
    this.#checkRank(source, true, 'iprobe');
    this.#checkTag(tag, true, 'iprobe');
    if (source === PROC_NULL) return nullStatus();
    return this.#endpoint.pollProbe(this.#context, source, tag);
  }

  /**
   * A matched probe (MPI_Mprobe): waits for a matching message and takes it, so that no other
   * receive can; receive it with the Message's `recv`, `irecv`, `recvInto` or `irecvInto`.
   * PROC_NULL gives MESSAGE_NO_PROC.
   * @example
   * ```ts
   * const message = await comm.mprobe(ANY_SOURCE, 5);
   * const value = await message.recv();   // exactly the message the probe saw
   * ```
   */
  async mprobe<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): Promise<Message<T>> {
    this.#live('mprobe');
    this.#checkRank(source, true, 'mprobe');
    this.#checkTag(tag, true, 'mprobe');
    if (source === PROC_NULL) return MESSAGE_NO_PROC as Message<T>;
    const endpoint = this.#endpoint;
    let taken: UnexpectedMessage | undefined;
    const description = { operation: 'mprobe', peer: source, tag, context: this.#context };
    // The condition may be checked again after it held: take a message once only.
    await endpoint.waitUntil(() => (taken ??= endpoint.takeProbed(this.#context, source, tag)) !== undefined || this.#sourceEnded(source), description);
    if (taken === undefined) throw endpoint.endedProbe(description, this.#worldOf(source));
    return this.#message<T>(taken);
  }

  /** True once `source` has ended, so nothing more comes from it (never for ANY_SOURCE: this rank may send itself). */
  #sourceEnded(source: number): boolean {
    return source !== ANY_SOURCE && this.#endpointOrUndefined!.hasEnded(this.#group[source]!);
  }

  /** A matched probe that never waits (MPI_Improbe): the Message if one has arrived, else undefined. */
  improbe<T = unknown>(source: number = ANY_SOURCE, tag: number = ANY_TAG): Message<T> | undefined {
    this.#live('improbe');
    this.#checkRank(source, true, 'improbe');
    this.#checkTag(tag, true, 'improbe');
    if (source === PROC_NULL) return MESSAGE_NO_PROC as Message<T>;
    const taken = this.#endpoint.pollTakeProbed(this.#context, source, tag);
    return taken === undefined ? undefined : this.#message<T>(taken);
  }

  #message<T>(taken: UnexpectedMessage): Message<T> {
    const endpoint = this.#endpoint;
    const context = this.#context;
    return new Message<T>(new Status(taken.source, taken.tag, taken.bytes), endpoint.rank, (into, operation) => endpoint.receiveProbed(taken, context, into, operation));
  }

  // ---- collectives ----------------------------------------------------------------------------
  // Each collective is one generator of steps (src/comm/collectives/steps.ts): the blocking call
  // awaits its steps, the nonblocking one (`i` + name, MPI-3) returns a Request that the rank's
  // progress advances at every poll and wait. Calls of either kind take their place in the
  // communicator's sequence when made, so several may be in flight, completing in any order.

  /** Waits until every rank of the communicator has called barrier. */
  barrier(): Promise<void> {
    const call = this.#oneStepCall('barrier');
    if (call !== undefined) {
      const step = barrierStep(call);
      return step !== undefined ? runStepFor(step, undefined) : runSteps(barrier(call.own()));
    }
    return runSteps(this.#steps('barrier', 'barrier', {}, (checkedCall) => barrier(checkedCall)));
  }

  /** Starts a barrier; the request completes once every rank has started its barrier (MPI_Ibarrier). */
  ibarrier(): Request<void> {
    return this.#start('barrier', 'ibarrier', (call) => barrier(call));
  }

  // Persistent collectives (MPI-4's MPI_Barrier_init, MPI_Allreduce_init, ...): the arguments
  // checked once; each start is the nonblocking collective with them, taking its place in the
  // communicator's sequence of collectives when started, as every rank must start them in the
  // same order. For a typed array and `into`, each start combines the contents as they are then.

  /** A persistent barrier (MPI_Barrier_init): each start an {@link ibarrier}. */
  barrierInit(): PersistentRequest<void> {
    return this.#persistentCollective('barrierInit', 'barrier', () => this.ibarrier());
  }

  /** A persistent bcast (MPI_Bcast_init): each start an {@link ibcast} of `value` as the root then has it. */
  bcastInit<T>(value: T, root = 0): PersistentRequest<T> {
    this.#checkMember(root, 'bcastInit');
    return this.#persistentCollective('bcastInit', 'bcast', () => this.ibcast(value, root));
  }

  /** A persistent bcast into `buffer` (MPI_Bcast_init with a buffer): each start an {@link ibcastInto}. */
  bcastIntoInit<B extends BufferLike>(buffer: B, root = 0): PersistentRequest<B> {
    this.#checkBuffer(buffer, 'bcastIntoInit');
    this.#checkMember(root, 'bcastIntoInit');
    return this.#persistentCollective('bcastIntoInit', 'bcastInto', () => this.ibcastInto(buffer, root));
  }

  /** A persistent reduce (MPI_Reduce_init): each start an {@link ireduce}. */
  reduceInit<T>(value: T, op: AnyOp<T> = Op.sum, root = 0): PersistentRequest<T | undefined> {
    checkOp(op, 'reduceInit', this.#errorRank);
    this.#checkMember(root, 'reduceInit');
    return this.#persistentCollective('reduceInit', 'reduce', () => this.ireduce(value, op, root));
  }

  /** A persistent allreduce (MPI_Allreduce_init): each start an {@link iallreduce}, into `into` when given. */
  allreduceInit<T>(value: T, op: AnyOp<T> = Op.sum, into?: ReceiveArray<T>): PersistentRequest<T> {
    checkOp(op, 'allreduceInit', this.#errorRank);
    if (into !== undefined) this.#checkInto(value, into, 'allreduceInit', true);
    return this.#persistentCollective('allreduceInit', 'allreduce', () => this.iallreduce(value, op, into));
  }

  /** A persistent scan (MPI_Scan_init): each start an {@link iscan}. */
  scanInit<T>(value: T, op: AnyOp<T> = Op.sum): PersistentRequest<T> {
    checkOp(op, 'scanInit', this.#errorRank);
    return this.#persistentCollective('scanInit', 'scan', () => this.iscan(value, op));
  }

  /** A persistent exscan (MPI_Exscan_init): each start an {@link iexscan}. */
  exscanInit<T>(value: T, op: AnyOp<T> = Op.sum): PersistentRequest<T | undefined> {
    checkOp(op, 'exscanInit', this.#errorRank);
    return this.#persistentCollective('exscanInit', 'exscan', () => this.iexscan(value, op));
  }

  /** A persistent reduce-scatter of equal blocks (MPI_Reduce_scatter_block_init): each start an {@link ireduceScatterBlock}. */
  reduceScatterBlockInit<A extends TypedArray>(data: A, op: AnyOp<A> = Op.sum, into?: A): PersistentRequest<A> {
    checkOp(op, 'reduceScatterBlockInit', this.#errorRank);
    this.#checkTyped(data, 'reduceScatterBlockInit');
    return this.#persistentCollective('reduceScatterBlockInit', 'reduceScatterBlock', () => this.ireduceScatterBlock(data, op, into));
  }

  /** A persistent gather (MPI_Gather_init): each start an {@link igather}. */
  gatherInit<T>(value: T, root = 0): PersistentRequest<T[] | undefined> {
    this.#checkMember(root, 'gatherInit');
    return this.#persistentCollective('gatherInit', 'gather', () => this.igather(value, root));
  }

  /** A persistent scatter (MPI_Scatter_init): each start an {@link iscatter} of the root's `values` as they are then. */
  scatterInit<T>(values: readonly T[] | undefined, root = 0): PersistentRequest<T> {
    this.#checkMember(root, 'scatterInit');
    return this.#persistentCollective('scatterInit', 'scatter', () => this.iscatter(values, root));
  }

  /** A persistent allgather (MPI_Allgather_init): each start an {@link iallgather}. */
  allgatherInit<T>(value: T): PersistentRequest<T[]> {
    return this.#persistentCollective('allgatherInit', 'allgather', () => this.iallgather(value));
  }

  /** A persistent allgatherv (MPI_Allgatherv_init): each start an {@link iallgatherv}. */
  allgathervInit<A extends TypedArray>(data: A, counts?: readonly number[], into?: A): PersistentRequest<Concatenated<A>> {
    this.#checkTyped(data, 'allgathervInit');
    if (into !== undefined) this.#checkInto(data, into, 'allgathervInit', false);
    return this.#persistentCollective('allgathervInit', 'allgatherv', () => this.iallgatherv(data, counts, into));
  }

  /** A persistent alltoall (MPI_Alltoall_init): each start an {@link ialltoall} of `values` as they are then. */
  alltoallInit<T>(values: readonly T[]): PersistentRequest<T[]> {
    return this.#persistentCollective('alltoallInit', 'alltoall', () => this.ialltoall(values));
  }

  /** A persistent alltoallv (MPI_Alltoallv_init): each start an {@link ialltoallv}. */
  alltoallvInit<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[], into?: A): PersistentRequest<Concatenated<A>> {
    this.#checkTyped(data, 'alltoallvInit');
    return this.#persistentCollective('alltoallvInit', 'alltoallv', () => this.ialltoallv(data, sendCounts, recvCounts, into));
  }

  #persistentCollective<T>(operation: string, collective: string, begin: () => Request<T>): PersistentRequest<T> {
    this.#live(operation);
    return new PersistentRequest<T>(this.#endpoint, collective, -1, -1, this.#context, this.#errorRank, begin);
  }

  /** Returns the root's `value` on every rank (the argument is ignored on other ranks). */
  bcast<T>(value: T, root = 0): Promise<T> {
    this.#checkMember(root, 'bcast');
    return runSteps(this.#steps('bcast', 'bcast', { root }, (call) => bcast(call, value, root)));
  }

  /** Starts a {@link bcast}; the request's result is the root's value. */
  ibcast<T>(value: T, root = 0): Request<T> {
    this.#checkMember(root, 'ibcast');
    return this.#start('bcast', 'ibcast', (call) => bcast(call, value, root), { root });
  }

  /** Copies the root's buffer into every rank's `buffer` (same byte length everywhere). */
  bcastInto<B extends BufferLike>(buffer: B, root = 0): Promise<B> {
    if (this.#settings.check) return runStepsFor(this.#steps('bcastInto', 'bcastInto', { root, data: buffer, agree: 'bytes' }, this.#bcastInto(buffer, root, 'bcastInto')), buffer);
    this.#checkBuffer(buffer, 'bcastInto');
    this.#checkMember(root, 'bcastInto');
    const call = this.#oneStepCall('bcastInto')!;
    const bytes = call.bytesOf(buffer);
    const step = bcastBytesStep(call, bytes, root);
    return step !== undefined ? runStepFor(step, buffer) : runStepsFor(bcastBytes(call.own(), bytes, root), buffer);
  }

  /** Starts a {@link bcastInto}; the request's result is `buffer`, filled. */
  ibcastInto<B extends BufferLike>(buffer: B, root = 0): Request<B> {
    const steps = this.#bcastInto(buffer, root, 'ibcastInto');
    return this.#start('bcastInto', 'ibcastInto', (call) => withResult(steps(call), buffer), { root, data: buffer, agree: 'bytes' });
  }

  /** Checks the arguments (before the call takes its place in the sequence) and makes its steps. */
  #bcastInto(buffer: BufferLike, root: number, operation: string): (call: CollectiveCall) => Steps<void> {
    this.#checkBuffer(buffer, operation);
    this.#checkMember(root, operation);
    return (call) => bcastBytes(call, call.bytesOf(buffer), root);
  }

  /** Combines every rank's value with `op` (Op.sum when not given, as mpi4py's) in rank order; the result on `root`, undefined elsewhere. */
  reduce<T>(value: T, op: AnyOp<T> = Op.sum, root = 0): Promise<T | undefined> {
    return runSteps(this.#steps('reduce', 'reduce', { root, op, data: value, agree: 'count' }, this.#reduce(value, op, root, 'reduce')));
  }

  /** Starts a {@link reduce}. */
  ireduce<T>(value: T, op: AnyOp<T> = Op.sum, root = 0): Request<T | undefined> {
    return this.#start('reduce', 'ireduce', this.#reduce(value, op, root, 'ireduce'), { root, op, data: value, agree: 'count' });
  }

  #reduce<T>(value: T, op: AnyOp<T>, root: number, operation: string): (call: CollectiveCall) => Steps<T | undefined> {
    checkOp(op, operation, this.#errorRank);
    this.#checkMember(root, operation);
    return (call) => reduce(call, value, op as ReduceOp, root);
  }

  /**
   * Combines every rank's value with `op` (Op.sum when not given, as mpi4py's); the result on every rank. For a typed array, `into`
   * (MPI's receive buffer: same kind and length, or the value itself to reduce in place) receives
   * the result and is returned; a loop that passes the same `into` allocates nothing per call.
   * @example
   * ```ts
   * const sum = new Float64Array(local.length);
   * for (let step = 0; step < steps; step++) await comm.allreduce(local, Op.sum, sum);
   * ```
   */
  allreduce<T>(value: T, op: AnyOp<T> = Op.sum, into?: ReceiveArray<T>): Promise<T> {
    checkOp(op, 'allreduce', this.#errorRank);
    if (into !== undefined) this.#checkInto(value, into, 'allreduce', true);
    if (this.size === 2 && into !== undefined) {
      const pairCall = this.#oneStepCall('allreduce');
      if (pairCall !== undefined) {
        const pair = allreducePair(pairCall, value, op as ReduceOp, into as unknown as TypedArray);
        return (pair as Promise<T> | undefined) ?? runSteps(allreduce(pairCall.own(), value, op as ReduceOp, into as unknown as TypedArray));
      }
    }
    const call = this.#uncheckedCall('allreduce');
    if (call !== undefined) return runSteps(allreduce(call, value, op as ReduceOp, into as TypedArray | undefined));
    return runSteps(this.#steps('allreduce', 'allreduce', { op, data: value, agree: 'count' }, (checkedCall) => allreduce(checkedCall, value, op as ReduceOp, into as TypedArray | undefined)));
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
  iallreduce<T>(value: T, op: AnyOp<T> = Op.sum, into?: ReceiveArray<T>): Request<T> {
    checkOp(op, 'iallreduce', this.#errorRank);
    if (into !== undefined) this.#checkInto(value, into, 'iallreduce', true);
    return this.#start('allreduce', 'iallreduce', (call) => allreduce(call, value, op as ReduceOp, into as TypedArray | undefined), { op, data: value, agree: 'count' });
  }

  /** Inclusive prefix reduction: rank r gets x0 op ... op xr. */
  scan<T>(value: T, op: AnyOp<T> = Op.sum): Promise<T> {
    checkOp(op, 'scan', this.#errorRank);
    return runSteps(this.#steps('scan', 'scan', { op, data: value, agree: 'count' }, (call) => scan(call, value, op as ReduceOp)));
  }

  /** Starts a {@link scan}. */
  iscan<T>(value: T, op: AnyOp<T> = Op.sum): Request<T> {
    checkOp(op, 'iscan', this.#errorRank);
    return this.#start('scan', 'iscan', (call) => scan(call, value, op as ReduceOp), { op, data: value, agree: 'count' });
  }

  /** Exclusive prefix reduction: rank r gets x0 op ... op x(r-1); undefined on rank 0. */
  exscan<T>(value: T, op: AnyOp<T> = Op.sum): Promise<T | undefined> {
    checkOp(op, 'exscan', this.#errorRank);
    return runSteps(this.#steps('exscan', 'exscan', { op, data: value, agree: 'count' }, (call) => exscan(call, value, op as ReduceOp)));
  }

  /** Starts an {@link exscan}. */
  iexscan<T>(value: T, op: AnyOp<T> = Op.sum): Request<T | undefined> {
    checkOp(op, 'iexscan', this.#errorRank);
    return this.#start('exscan', 'iexscan', (call) => exscan(call, value, op as ReduceOp), { op, data: value, agree: 'count' });
  }

  /**
   * The elementwise reduction of every rank's typed array (the same kind and length on every
   * rank), cut into blocks in rank order: rank r gets block r, `counts[r]` elements (MPI_Reduce_scatter;
   * the counts add up to the array's length and are the same on every rank). `into` (same kind,
   * at least `counts[rank]` long) receives the block; the call returns the block's view of it.
   * @example
   * ```ts
   * // Each rank sums its rows' share of a vector that every rank contributes to.
   * const mine = await comm.reduceScatter(contributions, rowsPerRank, Op.sum);
   * ```
   */
  reduceScatter<A extends TypedArray>(data: A, counts: readonly number[], op: AnyOp<A>, into?: A): Promise<A> {
    const steps = this.#reduceScatter(data, counts, op, into, 'reduceScatter');
    return this.#reduceScatterPair(data, counts, op, into, 'reduceScatter', steps) ?? runSteps(this.#steps('reducescatter', 'reduceScatter', { op, data, agree: 'count' }, steps));
  }

  /** A 2-rank reduceScatter's one exchange without steps (reduceScatterPair), or its steps on the call it took; undefined on more ranks or under TSMPI_CHECK. */
  #reduceScatterPair<A extends TypedArray>(data: A, counts: readonly number[], op: AnyOp<A>, into: A | undefined, name: string, steps: (call: CollectiveCall) => Steps<A>): Promise<A> | undefined {
    if (this.size !== 2) return undefined;
    const call = this.#oneStepCall('reducescatter');
    if (call === undefined) return undefined;
    call.operation = name;
    return reduceScatterPair(call, data, counts, op as ReduceOp, into) ?? runSteps(steps(call.own()));
  }

  /** Starts a {@link reduceScatter}. */
  ireduceScatter<A extends TypedArray>(data: A, counts: readonly number[], op: AnyOp<A>, into?: A): Request<A> {
    return this.#start('reducescatter', 'ireduceScatter', this.#reduceScatter(data, counts, op, into, 'ireduceScatter'), { op, data, agree: 'count' });
  }

  /**
   * {@link reduceScatter} with equal blocks (MPI_Reduce_scatter_block): the array's length is a
   * multiple of the communicator's size, and rank r gets elements [r n, (r + 1) n) of the
   * reduction, n = length / size.
   */
  reduceScatterBlock<A extends TypedArray>(data: A, op: AnyOp<A> = Op.sum, into?: A): Promise<A> {
    const counts = this.#equalBlocks(data, 'reduceScatterBlock');
    const steps = this.#reduceScatter(data, counts, op, into, 'reduceScatterBlock', true);
    return this.#reduceScatterPair(data, counts, op, into, 'reduceScatterBlock', steps) ?? runSteps(this.#steps('reducescatter', 'reduceScatterBlock', { op, data, agree: 'count' }, steps));
  }

  /** Starts a {@link reduceScatterBlock}. */
  ireduceScatterBlock<A extends TypedArray>(data: A, op: AnyOp<A> = Op.sum, into?: A): Request<A> {
    const counts = this.#equalBlocks(data, 'ireduceScatterBlock');
    return this.#start('reducescatter', 'ireduceScatterBlock', this.#reduceScatter(data, counts, op, into, 'ireduceScatterBlock', true), { op, data, agree: 'count' });
  }

  /** The counts of equal blocks of `data`, one per rank (its length must be a multiple of the size). */
  #equalBlocks(data: unknown, operation: string): readonly number[] {
    this.#checkTyped(data, operation);
    const length = (data as TypedArray).length;
    if (length % this.size !== 0) {
      throw this.#error(ErrorCode.Count, `the data has ${length} elements, not a multiple of the ${this.size} ranks`, operation, `pass ${this.size} blocks of equal length (or reduceScatter with the counts of each block)`);
    }
    // The same length as the last call (a loop's): the same counts, never handed to the program.
    if (this.#lastEqualBlocks?.length !== length) this.#lastEqualBlocks = { length, counts: new Array<number>(this.size).fill(length / this.size) };
    return this.#lastEqualBlocks.counts;
  }

  /** Checks the arguments and makes the steps of a reduce-scatter (`equal`: counts #equalBlocks made). */
  #reduceScatter<A extends TypedArray>(data: A, counts: readonly number[], op: AnyOp<A>, into: A | undefined, operation: string, equal = false): (call: CollectiveCall) => Steps<A> {
    checkOp(op, operation, this.#errorRank);
    if (!equal) {
      this.#checkTyped(data, operation);
      checkCounts(counts, this.size, operation, this.#errorRank);
      const total = counts.reduce((sum, count) => sum + count, 0);
      if (total !== data.length) {
        throw this.#error(ErrorCode.Count, `the counts add up to ${total} but the data has ${data.length} elements`, operation, 'pass one count per rank, adding up to the length of the array every rank passes');
      }
    }
    if (into !== undefined) {
      this.#checkInto(data, into, operation, false);
      if (into.length < counts[this.rank]!) {
        throw this.#error(ErrorCode.Count, `\`into\` has ${into.length} elements but this rank's block ${counts[this.rank]}`, operation, `pass an array of at least counts[${this.rank}] elements`);
      }
    }
    // The program's counts are copied: it may change its array while the call runs.
    const own = equal ? counts : [...counts];
    return (call) => reduceScatter(call, data, own, op as ReduceOp, into);
  }

  /** Every rank's value, in rank order, on `root`; undefined elsewhere. */
  gather<T>(value: T, root = 0): Promise<T[] | undefined> {
    this.#checkMember(root, 'gather');
    return runSteps(this.#steps('gather', 'gather', { root }, (call) => gather(call, value, root)));
  }

  /** Starts a {@link gather}. */
  igather<T>(value: T, root = 0): Request<T[] | undefined> {
    this.#checkMember(root, 'igather');
    return this.#start('gather', 'igather', (call) => gather(call, value, root), { root });
  }

  /**
   * Concatenates every rank's typed array (any lengths) on `root`, with the counts and offsets.
   * Pass `counts` when every rank knows them, to skip gathering them.
   */
  gatherv<A extends TypedArray>(data: A, root = 0, counts?: readonly number[]): Promise<Concatenated<A> | undefined> {
    return runSteps(this.#steps('gatherv', 'gatherv', { root, data, agree: 'kind' }, this.#gatherv(data, root, counts, 'gatherv')));
  }

  /** Starts a {@link gatherv}. */
  igatherv<A extends TypedArray>(data: A, root = 0, counts?: readonly number[]): Request<Concatenated<A> | undefined> {
    return this.#start('gatherv', 'igatherv', this.#gatherv(data, root, counts, 'igatherv'), { root, data, agree: 'kind' });
  }

  #gatherv<A extends TypedArray>(data: A, root: number, counts: readonly number[] | undefined, operation: string): (call: CollectiveCall) => Steps<Concatenated<A> | undefined> {
    this.#checkTyped(data, operation);
    this.#checkMember(root, operation);
    return (call) => gatherv(call, data, root, counts);
  }

  /** Rank r gets `values[r]` of the root (other ranks pass undefined). */
  scatter<T>(values: readonly T[] | undefined, root = 0): Promise<T> {
    this.#checkMember(root, 'scatter');
    return runSteps(this.#steps('scatter', 'scatter', { root }, (call) => scatter(call, values, root)));
  }

  /** Starts a {@link scatter}. */
  iscatter<T>(values: readonly T[] | undefined, root = 0): Request<T> {
    this.#checkMember(root, 'iscatter');
    return this.#start('scatter', 'iscatter', (call) => scatter(call, values, root), { root });
  }

  /** Rank r gets `counts[r]` elements of the root's typed array (others pass undefined). */
  scatterv<A extends TypedArray>(data: A | undefined, counts: readonly number[] | undefined, root = 0): Promise<A> {
    this.#checkMember(root, 'scatterv');
    return runSteps(this.#steps('scatterv', 'scatterv', { root }, (call) => scatterv(call, data, counts, root)));
  }

  /** Starts a {@link scatterv}. */
  iscatterv<A extends TypedArray>(data: A | undefined, counts: readonly number[] | undefined, root = 0): Request<A> {
    this.#checkMember(root, 'iscatterv');
    return this.#start('scatterv', 'iscatterv', (call) => scatterv(call, data, counts, root), { root });
  }

  /** Every rank's value, in rank order, on every rank. */
  allgather<T>(value: T): Promise<T[]> {
    return runSteps(this.#steps('allgather', 'allgather', {}, (call) => allgather(call, value)));
  }

  /** Starts an {@link allgather}. */
  iallgather<T>(value: T): Request<T[]> {
    return this.#start('allgather', 'iallgather', (call) => allgather(call, value));
  }

  /**
   * Concatenates every rank's typed array (any lengths) on every rank. `into` (same kind, at least
   * the total length, apart from `data`) receives the concatenation instead of a new array.
   */
  allgatherv<A extends TypedArray>(data: A, counts?: readonly number[], into?: A): Promise<Concatenated<A>> {
    this.#checkTyped(data, 'allgatherv');
    if (into !== undefined) this.#checkInto(data, into, 'allgatherv', false);
    const call = this.#oneStepCall('allgatherv');
    if (call !== undefined) {
      return allgathervPair(call, data, counts, into) ?? runSteps(allgatherv(call.own(), data, counts, into));
    }
    return runSteps(this.#steps('allgatherv', 'allgatherv', { data, agree: 'kind' }, (checkedCall) => allgatherv(checkedCall, data, counts, into)));
  }

  /** Starts an {@link allgatherv}. */
  iallgatherv<A extends TypedArray>(data: A, counts?: readonly number[], into?: A): Request<Concatenated<A>> {
    this.#checkTyped(data, 'iallgatherv');
    if (into !== undefined) this.#checkInto(data, into, 'iallgatherv', false);
    return this.#start('allgatherv', 'iallgatherv', (call) => allgatherv(call, data, counts, into), { data, agree: 'kind' });
  }

  /** `values[i]` goes to rank i; returns what every rank sent to this one, in rank order. */
  alltoall<T>(values: readonly T[]): Promise<T[]> {
    return runSteps(this.#steps('alltoall', 'alltoall', {}, (call) => alltoall(call, values)));
  }

  /** Starts an {@link alltoall}. */
  ialltoall<T>(values: readonly T[]): Request<T[]> {
    return this.#start('alltoall', 'ialltoall', (call) => alltoall(call, values));
  }

  /**
   * Rank r sends `sendCounts[i]` elements of `data` (in order) to rank i and gets back the
   * concatenation of what every rank sent it. Pass `recvCounts` when known to skip exchanging them,
   * and `into` (same kind, at least the received total, apart from `data`) to receive into it
   * instead of a new array.
   */
  alltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[], into?: A): Promise<Concatenated<A>> {
    this.#checkTyped(data, 'alltoallv');
    if (into !== undefined) this.#checkInto(data, into, 'alltoallv', false);
    const call = this.#oneStepCall('alltoallv');
    if (call !== undefined) {
      return alltoallvPair(call, data, sendCounts, recvCounts, into) ?? runSteps(alltoallv(call.own(), data, sendCounts, recvCounts, into));
    }
    return runSteps(this.#steps('alltoallv', 'alltoallv', { data, agree: 'kind' }, (checkedCall) => alltoallv(checkedCall, data, sendCounts, recvCounts, into)));
  }

  /** Starts an {@link alltoallv}. */
  ialltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[], into?: A): Request<Concatenated<A>> {
    this.#checkTyped(data, 'ialltoallv');
    if (into !== undefined) this.#checkInto(data, into, 'ialltoallv', false);
    return this.#start('alltoallv', 'ialltoallv', (call) => alltoallv(call, data, sendCounts, recvCounts, into), { data, agree: 'kind' });
  }

  /** A nonblocking collective's request: its first steps run now, the rest as the rank progresses. */
  #start<T>(operation: CollectiveOperation, name: string, steps: (call: CollectiveCall) => Steps<T>, args: CollectiveArgs = {}): Request<T> {
    const endpoint = this.#endpoint;
    // The check (TSMPI_CHECK) takes its place in the sequence before the call it checks.
    const check = this.#settings.check ? this.#call('check', `${name} (argument check)`) : undefined;
    const call = this.#call(operation, name);
    const request = new ScheduleRequest<T>(endpoint, call, check === undefined ? steps(call) : checked(check, operation, args, steps(call), this.#mayStage(operation, call)));
    if (!request.advance()) endpoint.background.add(request);
    return request;
  }

  /**
   * The call record of a blocking collective when TSMPI_CHECK is off (undefined when on): the
   * caller then runs its steps straight away, without the argument record and the closure that
   * {@link #steps} takes, which were a tenth of a small collective's allocation.
   */
  #uncheckedCall(operation: CollectiveOperation): CollectiveCall | undefined {
    return this.#settings.check ? undefined : this.#call(operation);
  }

  /** A blocking collective's steps, after the check of its arguments when TSMPI_CHECK asks for it. */
  #steps<T>(operation: CollectiveOperation, name: string, args: CollectiveArgs, steps: (call: CollectiveCall) => Steps<T>): Steps<T> {
    if (!this.#settings.check) return steps(this.#call(operation, name));
    const check = this.#call('check', `${name} (argument check)`);
    const call = this.#call(operation, name);
    return checked(check, operation, args, steps(call), this.#mayStage(operation, call));
  }

  /** `call`, when its operation may go through the world's staging regions here (it then holds its place behind its check); else undefined. */
  #mayStage(operation: CollectiveOperation, call: CollectiveCall): CollectiveCall | undefined {
    return STAGED_OPERATIONS.has(operation) && call.stagingAvailable ? call : undefined;
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

  /**
   * @internal The rank's timeline recorder, or undefined (never throws: tracing a call on a freed
   * or finalized communicator must leave its own error to the call).
   */
  get tracer(): RankTrace | undefined {
    return this.#endpointOrUndefined?.tracer;
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

  #split(color: number | undefined, key: number, name: string): Promise<Communicator | undefined> {
    return runSteps(this.#splitSteps(this.#call('split'), color, key, name, this.#info));
  }

  /**
   * The steps of a split: one allgather of (colour, key, context proposal), then each colour's
   * members in key order. `signature` (create) must be the same on the ranks of one colour.
   */
  *#splitSteps(call: CollectiveCall, color: number | undefined, key: number, name: string, info: Info, signature?: string): Steps<Communicator | undefined> {
    const endpoint = this.#endpoint;
    const turn = endpoint.creations.take(call.operation);
    let entries: [number, number, number, string?][];
    let context: number;
    try {
      if (!turn.done) yield turn;
      const proposal = proposeContext(endpoint);
      const mine: [number, number, number, string?] = signature === undefined ? [color ?? -1, key, proposal] : [color ?? -1, key, proposal, signature];
      entries = yield* allgather(call, mine);
      context = agreeContext(endpoint, entries.map((entry) => entry[2]));
    } finally {
      endpoint.creations.release(turn);
    }
    if (color === undefined) return undefined;
    const members: number[] = [];
    for (let r = 0; r < entries.length; r++) if (entries[r]![0] === color) members.push(r);
    if (signature !== undefined) {
      const differ = members.filter((r) => entries[r]![3] !== signature);
      if (differ.length > 0) throw this.#error(ErrorCode.Group, `ranks ${differ.join(', ')} of ${this.name} passed another group than rank ${this.rank}`, call.operation, 'pass the same group on every rank of it (groups of different ranks may only be disjoint)');
    }
    members.sort((a, b) => entries[a]![1] - entries[b]![1] || a - b);
    const group = Int32Array.from(members, (r) => this.#group[r]!);
    return this.copyWith({ endpoint, context, group, rank: members.indexOf(this.rank), settings: this.#settings, selfContext: this.#selfContext, name, info: info.dup(), errhandler: this.#errhandler.body });
  }

  /**
   * @internal A communicator of this one's kind from `init` (a Cartesian communicator's dup is
   * Cartesian): topology classes override it.
   */
  copyWith(init: CommunicatorInit): Communicator {
    return new Communicator(init);
  }

  /**
   * A new communicator with the same ranks and a context of its own (messages never cross). It
   * keeps this one's hints, or takes `info` (MPI_Comm_dup_with_info).
   */
  async dup(info?: Info): Promise<Communicator> {
    const hints = this.#hints(info, 'dup');
    const dup = (await runSteps(this.#splitSteps(this.#call('split', 'dup'), 0, this.rank, `dup of ${this.name}`, hints)))!;
    await this.#withAttributes(dup);
    return dup;
  }

  /**
   * Gives a dup its attributes, as each key's copy callback says (MPI_Comm_dup copies them;
   * split does not); a promise when a callback returned one (dup waits for it; idup's result
   * holds the attribute once it resolves).
   */
  #withAttributes(dup: Communicator): Promise<void> | undefined {
    return this.#attributes.copyInto(this, dup.#attributes);
  }

  // ---- attributes (MPI_Comm_create_keyval, MPI_Comm_set_attr ...) -----------------------------

  /**
   * A key for attributes of communicators (MPI_Comm_create_keyval). `copy` says what a dup gets:
   * `true` the value itself, `false` (the default) nothing, or a function's result (`undefined`:
   * nothing). `remove` runs when an attribute goes: deleted, replaced, or its communicator freed.
   */
  static createKeyval(copy?: AttributeCopy<Communicator>, remove?: AttributeDelete<Communicator>): number {
    return createKeyval('communicator', copy, remove);
  }

  /** Frees a key (MPI_Comm_free_keyval); returns KEYVAL_INVALID. Attributes already set keep their callbacks. */
  static freeKeyval(keyval: number): number {
    return freeKeyval('communicator', keyval);
  }

  /** Hangs `value` on this communicator under `keyval` (MPI_Comm_set_attr); a value already there goes first. */
  setAttr(keyval: number, value: unknown): void {
    this.#live('setAttr');
    this.#attributes.set(this, keyval, value);
  }

  /**
   * The value under `keyval`, or undefined (MPI_Comm_get_attr). The predefined keys answer on
   * every communicator: ATTR_TAG_UB, ATTR_HOST (PROC_NULL: no host rank), ATTR_IO (ANY_SOURCE:
   * every rank can do I/O), ATTR_WTIME_IS_GLOBAL (false), ATTR_APPNUM (0), ATTR_UNIVERSE_SIZE
   * (the world's size).
   */
  getAttr(keyval: number): unknown {
    this.#live('getAttr');
    switch (keyval) {
      case ATTR_TAG_UB:
        return TAG_UB;
      case ATTR_HOST:
        return PROC_NULL;
      case ATTR_IO:
        return ANY_SOURCE;
      case ATTR_WTIME_IS_GLOBAL:
        return false;
      case ATTR_APPNUM:
        return 0;
      case ATTR_UNIVERSE_SIZE:
        return this.#endpoint.size;
      default:
        return this.#attributes.get(keyval);
    }
  }

  /** Removes the attribute under `keyval`, running its delete callback (MPI_Comm_delete_attr). */
  deleteAttr(keyval: number): void {
    this.#live('deleteAttr');
    this.#attributes.delete(this, keyval);
  }

  /**
   * Starts a {@link dup} (MPI_Comm_idup): the request's result is the new communicator. Other
   * collectives may run meanwhile; every rank must start its idups in the same order.
   * @example
   * ```ts
   * const pending = comm.idup();
   * await comm.allreduce(x, Op.sum);    // while the dup agrees on its context
   * const copy = await pending.wait();
   * ```
   */
  idup(info?: Info): Request<Communicator> {
    const hints = this.#hints(info, 'idup');
    const name = `dup of ${this.name}`;
    const withAttributes = function* (this: Communicator, call: CollectiveCall): Steps<Communicator> {
      const dup = (yield* this.#splitSteps(call, 0, this.rank, name, hints))!;
      void this.#withAttributes(dup);
      return dup;
    };
    return this.#start('split', 'idup', (call) => withAttributes.call(this, call));
  }

  /**
   * Collective over this communicator: a communicator of the ranks of `group`, in the group's
   * order (MPI_Comm_create); undefined on the ranks outside it. Every rank passes the same group,
   * or disjoint groups, each getting its own communicator (MPI-2.2).
   * @throws {TsmpiError} ERR_GROUP when the group has ranks outside this communicator, or its
   *   members passed different groups
   */
  create(group: Group): Promise<Communicator | undefined> {
    const { members, ranks, me } = this.#groupPlaces(group, 'create');
    const call = this.#call('split', 'create');
    return runSteps(this.#splitSteps(call, me < 0 ? undefined : ranks[0], me, `create of ${this.name}`, this.#info, members.join(',')));
  }

  /**
   * A communicator of the ranks of `group` (MPI_Comm_create_group), collective over the group's
   * members only: the other ranks of this communicator do not call it. `tag` tells apart
   * creations that may run at once on overlapping groups. Undefined on a rank outside the group.
   */
  async createGroup(group: Group, tag = 0): Promise<Communicator | undefined> {
    this.#checkTag(tag, false, 'createGroup');
    const { members, ranks, me } = this.#groupPlaces(group, 'createGroup');
    if (me < 0) return undefined;
    const endpoint = this.#endpoint;
    // Tags above TAG_UB are never a collective's own: 2^30 + tag cannot meet a collective call.
    const context = await agreeAmongGroup({ endpoint, context: this.#context + 1, tag: 0x40000000 | tag, ranks, worldRanks: Array.from(members), me, operation: 'createGroup' });
    return this.copyWith({ endpoint, context, group: members.slice(), rank: me, settings: this.#settings, selfContext: this.#selfContext, name: `createGroup of ${this.name}`, info: this.#info.dup(), errhandler: this.#errhandler.body });
  }

  /**
   * An intercommunicator between this communicator's ranks and another, disjoint group
   * (MPI_Intercomm_create): collective over this communicator and the other group's, whose
   * leaders (`localLeader` here, `remoteLeader` in `peer`'s ranks) exchange their groups over
   * `peer` with `tag`. Only the local leader needs `peer`; the others may pass undefined.
   * @throws {TsmpiError} ERR_GROUP when the groups overlap
   */
  async createIntercomm(localLeader: number, peer: Communicator | undefined, remoteLeader: number, tag = 0): Promise<Intercommunicator> {
    const operation = 'createIntercomm';
    this.#live(operation);
    this.#checkMember(localLeader, operation);
    this.#checkTag(tag, false, operation);
    const local = Array.from(this.#group);
    let exchanged: number[] | undefined;
    if (this.rank === localLeader) {
      if (!(peer instanceof Communicator)) {
        throw this.#error(ErrorCode.Arg, 'the local leader needs the peer communicator, which holds both leaders', operation, 'pass the communicator both leaders belong to (often the world) as peer');
      }
      peer.#checkMember(remoteLeader, operation);
      exchanged = await peer.sendrecv<number[]>(local, remoteLeader, remoteLeader, tag, tag);
    }
    const remote = (await this.bcast(exchanged, localLeader))!;
    return this.#joinGroups(this.#endpoint, local, remote, `intercomm ${tag}`, `intercomm of ${this.name}`, operation);
  }

  /**
   * @internal Intercommunicator.createFromGroups (MPI_Intercomm_create_from_groups), called on
   * the communicator `localGroup` came from: collective over the ranks of both groups, which
   * pass the same `tag`. The leaders are checked; the groups need no communicator in common.
   */
  async intercommFromGroups(localGroup: Group, localLeader: number, remoteGroup: Group, remoteLeader: number, tag: string): Promise<Intercommunicator> {
    const operation = 'createFromGroups';
    const local = Array.from(localGroup.members(operation));
    const remote = Array.from(remoteGroup.members(operation));
    const endpoint = this.#endpointOrUndefined ?? this.#endpoint;
    if (typeof tag !== 'string') throw this.#error(ErrorCode.Arg, `tag ${String(tag)} is not a string`, operation, "pass a string naming this creation, the same on both groups, e.g. 'coupling'");
    for (const [leader, size, which] of [[localLeader, local.length, 'local'], [remoteLeader, remote.length, 'remote']] as const) {
      if (!Number.isInteger(leader) || leader < 0 || leader >= size) throw this.#error(ErrorCode.Rank, `the ${which} leader ${String(leader)} is not a rank of the ${which} group of ${size}`, operation, `pass a rank from 0 to ${size - 1}`);
    }
    if (!local.includes(endpoint.rank)) throw this.#error(ErrorCode.Group, `world rank ${endpoint.rank} is not in the local group`, operation, 'each rank passes the group it belongs to as the local group');
    return this.#joinGroups(endpoint, local, remote, `intercomm groups ${tag}`, `intercomm '${tag}'`, operation);
  }

  /** The intercommunicator of two disjoint groups (world ranks), collective over both; `key` tells creations apart. */
  async #joinGroups(endpoint: Endpoint, local: number[], remote: number[], key: string, name: string, operation: string): Promise<Intercommunicator> {
    const overlap = remote.filter((world) => local.includes(world));
    if (overlap.length > 0) {
      throw this.#error(ErrorCode.Group, `the groups overlap (world ranks ${overlap.join(', ')} are in both)`, operation, 'the two groups of an intercommunicator are disjoint: leaders of two different splits');
    }
    // One order every member computes alike: the group with the lower world rank first.
    const localFirst = Math.min(...local) < Math.min(...remote);
    const union = localFirst ? [...local, ...remote] : [...remote, ...local];
    const me = union.indexOf(endpoint.rank);
    // On the world's collective context, with tags below ANY_TAG that no collective uses (as createFromGroup).
    const context = await agreeAmongGroup({ endpoint, context: 1, tag: -2 - (stringHash(`${key} ${union.join(',')}`) & 0x3fffffff), ranks: union, worldRanks: union, me, operation });
    const bridge = new Communicator({ endpoint, context, group: Int32Array.from(union), rank: me, settings: this.#settings, selfContext: this.#selfContext, name });
    return Intercommunicator.overUnion(bridge, local.length, remote.length, localFirst, local.indexOf(endpoint.rank), name);
  }

  /**
   * @internal An intercommunicator's collective (`steps`, collectives/inter.ts) on this
   * communicator, which spans both of its groups: blocking.
   */
  runCollective<T>(operation: CollectiveOperation, name: string, steps: (call: CollectiveCall) => Steps<T>): Promise<T> {
    return runSteps(this.#steps(operation, name, {}, steps));
  }

  /** @internal The same, nonblocking: a request the rank's progress advances. */
  startCollective<T>(operation: CollectiveOperation, name: string, steps: (call: CollectiveCall) => Steps<T>): Request<T> {
    return this.#start(operation, name, steps);
  }

  /**
   * A communicator of the ranks of `group`, made without a parent communicator (MPI-4's
   * MPI_Comm_create_from_group): collective over the group's members, which pass the same
   * `tag`, a string naming this creation. The group may come from any communicator.
   * @throws {TsmpiError} ERR_GROUP when the calling rank is not in the group
   */
  static async createFromGroup(group: Group, tag: string, info?: Info): Promise<Communicator> {
    const origin = group.origin;
    const members = group.members('createFromGroup');
    if (!(origin instanceof Communicator) || typeof tag !== 'string') {
      throw new TsmpiError(ErrorCode.Arg, 'needs a group made from a communicator and a string tag', { operation: 'createFromGroup', hint: "pass comm.group (or a group made from it) and a tag such as 'rows'" });
    }
    // The group outlives its communicator: a freed one still lends its rank's endpoint.
    const endpoint = origin.#endpointOrUndefined ?? origin.#endpoint;
    const me = members.indexOf(endpoint.rank);
    if (me < 0) throw origin.#error(ErrorCode.Group, `world rank ${endpoint.rank} is not in the group`, 'createFromGroup', 'only the members of the group call createFromGroup');
    // On the world's collective context, with tags below ANY_TAG that no collective uses.
    const context = await agreeAmongGroup({ endpoint, context: 1, tag: -2 - (stringHash(tag) & 0x3fffffff), ranks: Array.from(members), worldRanks: Array.from(members), me, operation: 'createFromGroup' });
    return new Communicator({ endpoint, context, group: members.slice(), rank: me, settings: origin.#settings, selfContext: origin.#selfContext, name: `from group '${tag}'`, info: new Info(info) });
  }

  /**
   * Splits by where the ranks run (MPI_Comm_split_type), ordered by `key` then rank:
   * - COMM_TYPE_SHARED: the ranks of one host (a simulated host under `tsmpi sim`), as MPI's
   *   shared-memory domain;
   * - COMM_TYPE_HW_GUIDED / COMM_TYPE_RESOURCE_GUIDED: by the level `info` names in
   *   `mpi_hw_resource_type`: `mpi_shared_memory` (a host) or `tsmpi_process` (one operating-system
   *   process: the thread ranks that share JavaScript memory, where Win.allocateShared works);
   *   undefined for another level;
   * - COMM_TYPE_HW_UNGUIDED: the largest of those levels that splits this communicator into
   *   smaller ones (undefined when none does); the level's name is set in `info`.
   * `UNDEFINED` (or undefined) gives no communicator.
   */
  async splitType(type: SplitType | typeof UNDEFINED | undefined, key = 0, info?: Info): Promise<Communicator | undefined> {
    this.#live('splitType');
    if (type !== undefined && type !== UNDEFINED && !SPLIT_TYPES.includes(type)) {
      throw this.#error(ErrorCode.Arg, `split type ${String(type)} is not known`, 'splitType', 'pass COMM_TYPE_SHARED, COMM_TYPE_HW_GUIDED, COMM_TYPE_HW_UNGUIDED, COMM_TYPE_RESOURCE_GUIDED or UNDEFINED');
    }
    if (!Number.isInteger(key)) throw this.#error(ErrorCode.Arg, `key ${String(key)} is not an integer`, 'splitType', 'pass an integer key');
    const levels = hardwareLevels(this);
    const wanted = type === undefined || type === UNDEFINED ? -1 : levels.wanted(type, info);
    const entries = await runSteps(allgather(this.#call('split', 'splitType'), [wanted, ...levels.keys]));
    const level = wanted === levels.unguided ? levels.unguidedLevel(entries, this.size) : wanted;
    let color: number | undefined;
    if (level >= 0) {
      // Colour: the lowest rank that asked for the same level and shares this rank's place there.
      color = entries.findIndex((e) => e[0] === wanted && e[1 + level] === levels.keys[level]);
      if (wanted === levels.unguided) info?.set('mpi_hw_resource_type', levels.names[level]!);
    }
    return this.#split(color, key, `splitType of ${this.name} (${level >= 0 ? levels.names[level] : 'none'})`);
  }

  /**
   * The ranks of this communicator as a group (MPI_Comm_group): their world ranks in order.
   * Groups are local objects; see Group.
   */
  get group(): Group {
    this.#live('group');
    return new Group(this.#group.slice(), this.rank >= 0 ? this.#group[this.rank]! : -1, this);
  }

  /**
   * IDENT (the same communicator), CONGRUENT (the same ranks in the same order, another context:
   * a dup), SIMILAR (the same ranks in another order) or UNEQUAL (MPI_Comm_compare).
   */
  compare(other: Communicator): Comparison {
    return Communicator.compare(this, other);
  }

  /** Compares two communicators; see {@link Communicator.prototype.compare}. */
  static compare(a: Communicator, b: Communicator): Comparison {
    const x = a.#group;
    const y = b.#group;
    if (a === b || (a.#context === b.#context && a.#endpointOrUndefined === b.#endpointOrUndefined && x.length === y.length && x.every((w, i) => w === y[i]))) return IDENT;
    if (x.length !== y.length) return UNEQUAL;
    if (x.every((w, i) => w === y[i])) return CONGRUENT;
    const set = new Set(x);
    return y.every((w) => set.has(w)) ? SIMILAR : UNEQUAL;
  }

  /**
   * A new handle to the communicator's error handler (MPI_Comm_get_errhandler): ERRORS_RETURN
   * unless set. Free it when done; the communicator keeps its handler.
   */
  getErrhandler(): Errhandler {
    return this.#errhandler.handle();
  }

  /**
   * Sets what this communicator does when one of its calls fails (MPI_Comm_set_errhandler; see
   * Errhandler): ERRORS_RETURN (throw, the default), ERRORS_ARE_FATAL or ERRORS_ABORT (end the
   * job), or a handler from Errhandler.create (it runs, then the call throws). Communicators made
   * from this one take its handler.
   */
  setErrhandler(handler: Errhandler): void {
    this.#errhandler.set(this, handler, 'setErrhandler', this.#errorRank, UNGOVERNED);
  }

  /** Runs the communicator's error handler as an error of `code` would (MPI_Comm_call_errhandler); ERRORS_RETURN does nothing. */
  callErrhandler(code: ErrorCodeValue): void {
    this.#errhandler.call(this, code);
  }

  /** @internal The error handler where it is not ERRORS_RETURN (which needs nothing done). */
  get errhandlerInEffect(): ErrhandlerBody | undefined {
    return this.#errhandler.inEffect;
  }

  /** The communicator's hints (a copy: MPI_Comm_get_info); set it to replace them (MPI_Comm_set_info). */
  get info(): Info {
    return this.#info.dup();
  }

  set info(info: Info) {
    this.#info = this.#hints(info, 'info');
  }

  /** False: an intracommunicator (an Intercommunicator's is true). */
  get isInter(): boolean {
    return false;
  }

  /** True: an intracommunicator. */
  get isIntra(): boolean {
    return true;
  }

  /** The process topology: 'cart', 'graph', 'dist-graph', or undefined for none (MPI_Topo_test). */
  get topology(): 'cart' | 'graph' | 'dist-graph' | undefined {
    return undefined;
  }

  /**
   * The communicator to the ranks that spawned this job (MPI_Comm_get_parent): always undefined,
   * as tsmpi jobs are not spawned by other jobs.
   */
  static getParent(): Communicator | undefined {
    return undefined;
  }

  /**
   * Frees the communicator (MPI_Comm_free): requests already started on it complete; any later
   * call on it fails with ERR_CLOSED. World and self cannot be freed.
   */
  free(): void {
    if (this.#predefined) throw this.#error(ErrorCode.Arg, `${this.name} cannot be freed`, 'free', 'free only communicators you made (dup, split, create ...)');
    this.#live('free');
    // Attributes go first, while the communicator still works (a delete callback may use it).
    this.#attributes.clear(this);
    this.#freed = true;
    this.#endpointOrUndefined?.forgetContext(this.#context);
  }

  /** True once {@link free} was called. */
  get freed(): boolean {
    return this.#freed;
  }

  #hints(info: Info | undefined, operation: string): Info {
    if (info === undefined || info === null) return this.#info.dup();
    if (!(info instanceof Map)) throw this.#error(ErrorCode.Arg, 'info is not an Info', operation, 'pass an Info (new Info([[key, value]])) or nothing');
    return new Info(info);
  }

  /** The world ranks of a group, their ranks here, and this rank's place in it (-1: not a member). */
  #groupPlaces(group: Group, operation: string): { members: Int32Array; ranks: number[]; me: number } {
    this.#live(operation);
    if (!(group instanceof Group)) throw this.#error(ErrorCode.Arg, 'the group is not a Group', operation, 'pass comm.group, or a group made from it (incl, excl, union ...)');
    const members = group.members(operation);
    const ranks = Array.from(members, (w) => this.#group.indexOf(w));
    const outside = members.filter((_w, i) => ranks[i]! < 0);
    if (outside.length > 0) {
      throw this.#error(ErrorCode.Group, `world rank(s) ${outside.join(', ')} of the group are not in ${this.name}`, operation, `make the group from ${this.name}'s own group (comm.group)`);
    }
    return { members, ranks, me: this.rank >= 0 ? members.indexOf(this.#group[this.rank]!) : -1 };
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
    createGraph?: typeof import('./topology/graph-communicator.js').createGraph;
  } = {};

  /**
   * Collective: a graph communicator (MPI_Graph_create) from the whole graph, which every rank
   * passes alike: `index[i]` counts the edges of nodes 0..i together (MPI's form) and `edges`
   * lists each node's neighbours in turn. Node i is rank i; ranks past the last node get
   * undefined. `reorder` is a hint, ignored.
   * @example
   * ```ts
   * // A ring: each node's neighbours are its left and right.
   * const n = comm.size;
   * const ring = await comm.createGraph(Array.from({ length: n }, (_, i) => 2 * (i + 1)), Array.from({ length: n }, (_, i) => [(i + n - 1) % n, (i + 1) % n]).flat());
   * ```
   */
  createGraph(index: readonly number[], edges: readonly number[], reorder = false): Promise<import('./topology/graph-communicator.js').GraphCommunicator | undefined> {
    return this.#topology('createGraph', Communicator.topologies.createGraph)(this, index, edges, reorder);
  }

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
    return { endpoint: comm.#endpointOrUndefined, context: comm.#context, group: comm.#group, rank: comm.rank, settings: comm.#settings, selfContext: comm.#selfContext, name, info: comm.#info, errhandler: comm.#errhandler.body };
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
    this.#live(name);
    return new CollectiveCall(this.#endpoint, this.#context + 1, this.#group, this.rank, this.#nextTag(operation), name, this.#settings, this.#label);
  }

  /**
   * The tag of the next call: it holds the call's sequence number and operation, so concurrent
   * calls never match each other's messages and mismatched calls (rank A in bcast, rank B in
   * reduce) wait visibly in the hang report instead of delivering one operation's data to the other.
   */
  #nextTag(operation: CollectiveOperation): number {
    return (((this.#collectiveSeq++ & 0x1ffffff) << 5) | operationCode.get(operation)!) & TAG_UB;
  }

  /**
   * The next call for a blocking collective that tries its one-step schedule first (TSMPI_CHECK
   * off), on a call object reused from call to call: a one-step schedule keeps no call, and a
   * schedule of more steps takes a call of its own (`own()`) for them. An object per call was a
   * share of a small bcast's time in allocation and collection. Undefined with checks on.
   */
  #oneStepCall(operation: CollectiveOperation): CollectiveCall | undefined {
    if (this.#settings.check) return undefined;
    this.#live(operation);
    const tag = this.#nextTag(operation);
    let call = this.#reusedCall;
    if (call === undefined) {
      call = new CollectiveCall(this.#endpoint, this.#context + 1, this.#group, this.rank, tag, operation, this.#settings, this.#label);
      this.#reusedCall = call;
    } else {
      call.tag = tag;
      call.operation = operation;
    }
    return call;
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, message, { rank: this.#errorRank, operation, hint });
  }

  /** The world rank errors name (-1 on a rank outside the communicating group). */
  get #errorRank(): number {
    return this.#endpointOrUndefined?.rank ?? -1;
  }

  /** ERR_CLOSED for any call on a freed communicator, or after this rank's finalize(). */
  #live(operation: string): void {
    if (this.#freed) throw this.#error(ErrorCode.Closed, `${this.name} was freed`, operation, 'call it on a communicator that is not freed; free a communicator only once it is no longer used');
    if (this.#endpointOrUndefined?.finalized === true) {
      throw this.#error(ErrorCode.Closed, `this rank called finalize(): it communicates no more (${operation} on ${this.name})`, operation, 'call finalize() last, once this rank has sent and received everything');
    }
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
    // A buffer passed where a tag goes (a sendrecv argument out of place) printed as "tag 0".
    const what = typeof tag === 'number' ? `tag ${tag} is not valid` : `the tag is ${describeOperand(tag)}, not an integer`;
    throw this.#error(ErrorCode.Tag, what, operation, `use an integer tag from 0 to ${TAG_UB}${allowAny ? ', or ANY_TAG' : ''}`);
  }

  #checkBuffer(buffer: unknown, operation: string): void {
    if (rawKindOf(buffer) < 0) {
      throw this.#error(ErrorCode.Type, 'the buffer is not a typed array, Buffer or DataView', operation, 'pass a typed array (e.g. new Float64Array(n)); use recv() to receive any value');
    }
  }

  /**
   * A receive array (`into`, MPI's receive buffer): a typed array of the data's own kind, the
   * data's length where `sameLength` (an allreduce), and apart from the data, except that an
   * allreduce may reduce in place (`into` the data itself).
   */
  #checkInto(data: unknown, into: unknown, operation: string, sameLength: boolean): void {
    const fix = sameLength ? 'pass a typed array of the same kind and length as the value (or the value itself, to reduce in place)' : 'pass a typed array of the same kind as the data, long enough for the result';
    if (!ArrayBuffer.isView(into) || into instanceof DataView || !ArrayBuffer.isView(data) || data instanceof DataView) {
      throw this.#error(ErrorCode.Type, `\`into\` needs a typed-array ${sameLength ? 'value' : 'data'} and is a typed array itself`, operation, fix);
    }
    const value = data as TypedArray;
    const out = into as TypedArray;
    if (out.constructor !== value.constructor) {
      throw this.#error(ErrorCode.Type, `\`into\` is a ${out.constructor.name} but the data a ${value.constructor.name}`, operation, fix);
    }
    if (sameLength && out.length !== value.length) {
      throw this.#error(ErrorCode.Count, `\`into\` has ${out.length} elements but the value ${value.length}`, operation, fix);
    }
    if (out === value && sameLength) return;
    const overlaps = out.buffer === value.buffer && out.byteOffset < value.byteOffset + value.byteLength && value.byteOffset < out.byteOffset + out.byteLength;
    if (overlaps) throw this.#error(ErrorCode.Arg, '`into` overlaps the data', operation, sameLength ? 'pass a separate array, or the value itself to reduce in place' : 'pass a separate array for the result');
  }

  #checkTyped(data: unknown, operation: string): void {
    if (!ArrayBuffer.isView(data) || data instanceof DataView) {
      throw this.#error(ErrorCode.Type, 'the data is not a typed array', operation, 'pass a typed array (e.g. Float64Array); use the non-v collective for other values');
    }
  }
}

/** A copy of a buffer, of the same kind (a Buffer's `slice` is a view, so it is copied its own way). */
function copyOfBuffer(buffer: BufferLike): BufferLike {
  if (buffer instanceof DataView) return new DataView(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength));
  if (Buffer.isBuffer(buffer)) return Buffer.from(buffer);
  return (buffer as TypedArray).slice();
}

/** A 32-bit FNV-1a hash of a string (createFromGroup's tag becomes a wire tag). */
function stringHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

refuseToEncode(Communicator, 'a communicator');
refuseToEncode(Request, 'a request');
refuseToEncode(Message, 'a matched-probe message');
