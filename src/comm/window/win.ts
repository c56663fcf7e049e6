/**
 * One-sided communication (MPI-3 RMA): every rank of a communicator exposes a window of bytes
 * that the others put into, get from and accumulate into, synchronised by fence (active target)
 * or lock/unlock and flush (passive target).
 *
 * Operations travel as active messages on the window's own context (a dup of the communicator),
 * over whatever links the ranks have (shared memory, TCP, the simulator). Each rank's target side
 * is a background task of its progress engine: it applies what arrives, in arrival order, while
 * the rank polls or waits in any call (MPI's progress rule; a rank computing without calling
 * tsmpi serves its window when it next does). Every operation is acknowledged, so "complete at
 * the target" is a count per target reaching zero: fence waits for all, flush and unlock for one.
 *
 * `Win.allocateShared` puts the windows of ranks in one process in one SharedArrayBuffer: put
 * and get between them are plain copies, and `sharedQuery` maps a peer's segment (zero-copy).
 *
 * Generalized active target (post/start/complete/wait) rides the same messages: a target's post
 * tells each origin of its group; an origin's complete goes behind its operations and returns
 * once the target has acknowledged it.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { ErrorCode, TsmpiError, type ErrorCodeValue } from '../../errors.js';
import type { BackgroundTask } from '../background.js';
import { bytesOf, PayloadKind, rawKindOf, refuseToEncode, type BufferLike, type TypedArray } from '../codec.js';
import type { Communicator } from '../communicator.js';
import { AttributeStore, createKeyval, freeKeyval, type AttributeCopy, type AttributeDelete } from '../attributes.js';
import { Group } from '../group.js';
import { ErrhandlerSlot, type Errhandler, type ErrhandlerBody } from '../errhandler.js';
import type { Info } from '../info.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL } from '../matching.js';
import type { AnyOp } from '../ops.js';
import { processPlace } from '../placement.js';
import { Request } from '../request.js';
import { UNDEFINED } from '../status.js';
import { copyBytes } from '../../transport/copy-bytes.js';
import { applyOp, payloadOf, readHeader, RmaKind, rmaMessage, windowOpCode } from './rma-wire.js';

export type LockType = 'exclusive' | 'shared';

/**
 * Assertions a program may pass to fence, post and start (MPI_MODE_*): hints that let an MPI skip
 * work. tsmpi takes them and needs none of them (its epochs cost one barrier or a message per
 * peer either way); an assertion never changes what a call does.
 */
export const MODE_NOCHECK = 1;
export const MODE_NOSTORE = 2;
export const MODE_NOPUT = 4;
export const MODE_NOPRECEDE = 8;
export const MODE_NOSUCCEED = 16;
/** How a window was made (MPI_WIN_CREATE_FLAVOR). */
export type WindowFlavor = 'create' | 'allocate' | 'shared' | 'dynamic';

/** Where a target's bytes for an operation lie: `bytes` from `at`; a string says why there are none. */
type Resolved = { bytes: Uint8Array; at: number } | string;

/** Operations go to the target on this tag, replies come back on the other. */
const TO_TARGET = 1;
const TO_ORIGIN = 2;
/** Segments of a shared window start on this boundary, so any typed array can view them. */
const SEGMENT_ALIGN = 8;
const MAX_WINDOW_BYTES = 0xffffffff;
/** A dynamic window's first displacement: 0 is never one, so a displacement left at 0 is caught. */
const DYNAMIC_FIRST_BASE = 8;
const EMPTY: Uint8Array = new Uint8Array(0);

/** Shared windows' buffers by key, for ranks that share a realm (the simulator's). */
const sharedBuffers = new Map<string, SharedArrayBuffer>();

/** Methods a window's error handler does not govern: its own. */
const WIN_UNGOVERNED = new Set(['getErrhandler', 'setErrhandler', 'callErrhandler']);

export class Win {
  /** The window's communicator (its own context; same ranks as the one it was made on). */
  readonly comm: Communicator;
  /** This rank's window: what the others put into and get from. */
  readonly memory: Uint8Array;
  readonly #sizes: readonly number[];
  /** Every rank's segment, for a shared window. */
  readonly #segments: readonly Uint8Array[] | undefined;
  readonly #target: WindowTarget;
  /** Operations sent to each rank and not yet acknowledged. */
  readonly #outstanding: Int32Array;
  #outstandingTotal = 0;
  readonly #replies = new Map<number, (payload: Uint8Array, refused?: TsmpiError) => void>();
  #nextId = 1;
  #freed = false;
  /** Made by allocateShared (a size-1 communicator's window counts as shared too). */
  readonly #queryable: boolean;
  readonly flavor: WindowFlavor;
  readonly #attributes = new AttributeStore<Win>('window');
  /** A dynamic window's attached memory, by displacement (in attach order). */
  readonly #attached: { base: number; bytes: Uint8Array }[] = [];
  #nextBase = DYNAMIC_FIRST_BASE;
  /** The first refusal a target sent since the last completion call (dynamic windows). */
  #refused: TsmpiError | undefined;
  /** Posts received from each target and not yet taken by a start; completes from each origin not yet taken by a wait. */
  readonly #posts: Int32Array;
  readonly #completes: Int32Array;
  /** The targets of the access epoch start() opened, and the origins of the exposure epoch post() opened. */
  #startGroup: readonly number[] | undefined;
  #postGroup: readonly number[] | undefined;
  readonly #errhandler = new ErrhandlerSlot();

  private constructor(comm: Communicator, memory: Uint8Array, sizes: readonly number[], segments: readonly Uint8Array[] | undefined, queryable: boolean, flavor: WindowFlavor) {
    this.comm = comm;
    this.flavor = flavor;
    this.#queryable = queryable;
    this.memory = memory;
    this.#sizes = sizes;
    this.#segments = segments;
    this.#outstanding = new Int32Array(comm.size);
    this.#posts = new Int32Array(comm.size);
    this.#completes = new Int32Array(comm.size);
    this.#target = new WindowTarget(
      comm,
      flavor === 'dynamic' ? (offset, length) => this.#resolveAttached(offset, length) : (offset) => ({ bytes: memory, at: offset }),
      (source, message) => this.#onReply(source, message),
      (kind, origin) => void (kind === RmaKind.Post ? this.#posts[origin]!++ : this.#completes[origin]!++),
    );
    comm.endpoint.background.add(this.#target);
  }

  /**
   * Allocates `bytes` (zeroed) on every rank as its window (MPI_Win_allocate; collective). When
   * every rank is in this process (thread ranks), the windows share one buffer, as with
   * allocateShared: put and get are then plain copies, as Open MPI's shared-memory windows are.
   */
  static async allocate(comm: Communicator, bytes: number): Promise<Win> {
    checkSize(comm, bytes, 'Win.allocate');
    return Win.#allocate(comm, bytes, false);
  }

  /** Exposes `buffer` (any typed array or DataView) as this rank's window (MPI_Win_create; collective). */
  static async create(comm: Communicator, buffer: BufferLike): Promise<Win> {
    if (rawKindOf(buffer) < 0) {
      throw windowError(comm, ErrorCode.Type, 'the window buffer is not a typed array, Buffer or DataView', 'Win.create', 'pass a typed array, e.g. new Float64Array(n)');
    }
    checkSize(comm, buffer.byteLength, 'Win.create');
    const sizes = await comm.allgather(buffer.byteLength);
    const own = await windowComm(comm, 'window');
    const win = new Win(own, bytesOf(buffer), sizes, undefined, false, 'create');
    await own.barrier();
    return win;
  }

  /**
   * A window with no memory yet (MPI_Win_create_dynamic; collective): each rank attaches memory
   * with `attach(buffer)`, which returns the displacement at which the others reach it (tell
   * them, as a program sends MPI_Get_address's result). An operation outside every attached
   * buffer is refused by the target, and the origin's next completion call (flush, unlock,
   * fence, or the operation's request) throws ERR_ARG naming it.
   */
  static async createDynamic(comm: Communicator): Promise<Win> {
    const own = await windowComm(comm, 'dynamic window');
    const win = new Win(own, new Uint8Array(0), new Array<number>(own.size).fill(-1), undefined, false, 'dynamic');
    await own.barrier();
    return win;
  }

  /**
   * Attaches `buffer` (a typed array, Buffer or DataView) to this rank's dynamic window
   * (MPI_Win_attach); returns its displacement. Local: no other rank takes part.
   */
  attach(buffer: BufferLike): number {
    this.#checkDynamic('attach');
    const bytes = this.#checkData(buffer, 'attach');
    if (this.#attached.some((region) => region.bytes.buffer === bytes.buffer && region.bytes.byteOffset < bytes.byteOffset + bytes.byteLength && bytes.byteOffset < region.bytes.byteOffset + region.bytes.byteLength)) {
      throw this.#error(ErrorCode.Arg, 'the buffer overlaps memory already attached', 'attach', 'detach the other buffer first, or attach one that does not overlap it');
    }
    const base = this.#nextBase;
    this.#nextBase = base + Math.ceil(Math.max(bytes.byteLength, 1) / SEGMENT_ALIGN) * SEGMENT_ALIGN + SEGMENT_ALIGN;
    if (this.#nextBase > MAX_WINDOW_BYTES) throw this.#error(ErrorCode.Arg, 'the dynamic window has no displacements left', 'attach', 'free the window and make a new one');
    this.#attached.push({ base, bytes });
    return base;
  }

  /** Detaches a buffer attached before (MPI_Win_detach): by the buffer, or by the displacement attach returned. */
  detach(buffer: BufferLike | number): void {
    this.#checkDynamic('detach');
    const at = this.#attached.findIndex((region) => (typeof buffer === 'number' ? region.base === buffer : region.bytes.buffer === (buffer as ArrayBufferView).buffer && region.bytes.byteOffset === (buffer as ArrayBufferView).byteOffset && region.bytes.byteLength === (buffer as ArrayBufferView).byteLength));
    if (at < 0) throw this.#error(ErrorCode.Arg, typeof buffer === 'number' ? `nothing is attached at displacement ${buffer}` : 'the buffer is not attached', 'detach', 'pass a buffer attach took, or the displacement it returned');
    this.#attached.splice(at, 1);
  }

  #checkDynamic(operation: string): void {
    this.#checkLive(operation);
    if (this.flavor !== 'dynamic') throw this.#error(ErrorCode.Arg, `the window was made by ${this.flavor}, not createDynamic`, operation, 'attach memory to windows made by Win.createDynamic');
  }

  /** The attached buffer holding [offset, offset + length) of this rank's dynamic window. */
  #resolveAttached(offset: number, length: number): Resolved {
    for (const region of this.#attached) {
      if (offset >= region.base && offset + length <= region.base + region.bytes.byteLength) return { bytes: region.bytes, at: offset - region.base };
    }
    return `nothing attached holds ${length} bytes at displacement ${offset} (attached: ${this.#attached.map((r) => `${r.base}+${r.bytes.byteLength}`).join(', ') || 'none'})`;
  }

  /**
   * Allocates `bytes` on every rank in one shared buffer (MPI_Win_allocate_shared; collective).
   * Every rank of `comm` must be in this process (thread ranks of one `tsmpi run` process, or
   * ranks on one simulated host); `sharedQuery(rank)` then gives any rank's segment to read and
   * write directly.
   */
  static async allocateShared(comm: Communicator, bytes: number): Promise<Win> {
    checkSize(comm, bytes, 'Win.allocateShared');
    return Win.#allocate(comm, bytes, true);
  }

  static async #allocate(comm: Communicator, bytes: number, sharedRequired: boolean): Promise<Win> {
    const operation = sharedRequired ? 'Win.allocateShared' : 'Win.allocate';
    const place = processPlace(comm);
    const [places, sizes] = await Promise.all([comm.allgather(place), comm.allgather(bytes)]);
    const elsewhere = places.flatMap((p, r) => (p === place ? [] : [r]));
    if (elsewhere.length > 0 && sharedRequired) {
      throw windowError(comm, ErrorCode.Arg, `ranks ${elsewhere.join(', ')} of ${comm.name} are in another process or on another host, so they cannot share memory with rank ${comm.rank}`, operation, "make the window on the ranks of one process (comm.splitType(COMM_TYPE_HW_GUIDED, 0, new Info([['mpi_hw_resource_type', 'tsmpi_process']]))), or use Win.allocate");
    }
    if (elsewhere.length > 0 || comm.size === 1) {
      const own = await windowComm(comm, 'window');
      const win = new Win(own, new Uint8Array(bytes), sizes, undefined, sharedRequired, sharedRequired ? 'shared' : 'allocate');
      await own.barrier();
      return win;
    }
    const starts: number[] = [];
    let total = 0;
    for (const size of sizes) {
      starts.push(total);
      total += Math.ceil(size / SEGMENT_ALIGN) * SEGMENT_ALIGN;
    }
    const own = await windowComm(comm, 'shared window');
    const buffer = await shareBuffer(own, Math.max(total, SEGMENT_ALIGN));
    const segments = sizes.map((size, r) => new Uint8Array(buffer, starts[r]!, size));
    const win = new Win(own, segments[own.rank]!, sizes, segments, sharedRequired, sharedRequired ? 'shared' : 'allocate');
    await own.barrier();
    return win;
  }

  /** This rank's window size in bytes (MPI_WIN_SIZE). */
  get size(): number {
    return this.memory.byteLength;
  }

  /** The group of the window's ranks (MPI_Win_get_group). */
  get group(): Group {
    return this.comm.group;
  }

  /** A new handle to the window's error handler (MPI_Win_get_errhandler): ERRORS_RETURN unless set. */
  getErrhandler(): Errhandler {
    return this.#errhandler.handle();
  }

  /** Sets what the window does when one of its calls fails (MPI_Win_set_errhandler; see Errhandler). */
  setErrhandler(handler: Errhandler): void {
    this.#errhandler.set(this, handler, 'Win.setErrhandler', this.comm.rank, WIN_UNGOVERNED);
  }

  /** Runs the window's error handler as an error of `code` would (MPI_Win_call_errhandler); ERRORS_RETURN does nothing. */
  callErrhandler(code: ErrorCodeValue): void {
    this.#errhandler.call(this, code);
  }

  /** @internal The error handler where it is not ERRORS_RETURN. */
  get errhandlerInEffect(): ErrhandlerBody | undefined {
    return this.#errhandler.inEffect;
  }

  /** What reports and errors call the window (MPI_Win_get_name / MPI_Win_set_name). */
  get name(): string {
    return this.comm.name;
  }

  set name(name: string) {
    this.comm.name = name;
  }

  /** The window's hints (a copy: MPI_Win_get_info); set it to replace them (MPI_Win_set_info). */
  get info(): Info {
    return this.comm.info;
  }

  set info(info: Info) {
    this.comm.info = info;
  }

  /**
   * The memory model (MPI_WIN_MODEL): 'unified', one copy of each window that both the program and
   * the one-sided operations see.
   */
  get model(): 'unified' {
    return 'unified';
  }

  /** The unit of target displacements (MPI_WIN_DISP_UNIT): 1, offsets are in bytes. */
  get dispUnit(): number {
    return 1;
  }

  /** Rank `rank`'s segment of a shared window, to read and write directly (MPI_Win_shared_query). */
  sharedQuery(rank: number): Uint8Array {
    if (!this.#queryable) {
      throw this.#error(ErrorCode.Arg, 'the window is not shared', 'sharedQuery', 'make it with Win.allocateShared');
    }
    this.#checkRank(rank, 'sharedQuery');
    return this.#segments?.[rank] ?? this.memory;
  }

  // ---- communication ---------------------------------------------------------------------------

  /** Writes `data` into rank `targetRank`'s window at `targetOffset` bytes; complete at the next fence, flush or unlock. */
  put(data: BufferLike, targetRank: number, targetOffset = 0): void {
    const bytes = this.#checkData(data, 'put');
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, 'put')) return;
    const segments = this.#segments;
    if (segments !== undefined) {
      copyBytes(segments[targetRank]!, targetOffset, bytes, 0, bytes.byteLength);
      return;
    }
    this.#send(targetRank, rmaMessage(RmaKind.Put, targetOffset, 0, 0, bytes));
  }

  /** Reads rank `targetRank`'s window at `targetOffset` into `into`; filled by the next fence, flush or unlock. */
  get(into: BufferLike, targetRank: number, targetOffset = 0): void {
    const bytes = this.#checkData(into, 'get');
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, 'get')) return;
    const segments = this.#segments;
    if (segments !== undefined) {
      copyBytes(bytes, 0, segments[targetRank]!, targetOffset, bytes.byteLength);
      return;
    }
    const id = this.#expectReply((payload, refused) => void (refused === undefined && copyBytes(bytes, 0, payload, 0, payload.byteLength)));
    this.#send(targetRank, rmaMessage(RmaKind.Get, targetOffset, id, bytes.byteLength));
  }

  /**
   * Combines `data` element-wise into rank `targetRank`'s window at `targetOffset` with `op`
   * (Op.sum, Op.max, ..., Op.replace). Accumulates to one place are atomic per element and
   * applied in the order each origin issued them.
   */
  accumulate<T>(data: TypedArray, targetRank: number, targetOffset: number, op: AnyOp<T>): void {
    const { bytes, kind, code } = this.#checkTyped(data, op as AnyOp<unknown>, 'accumulate');
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, 'accumulate')) return;
    this.#send(targetRank, rmaMessage(RmaKind.Accumulate, targetOffset, 0, 0, bytes, code, kind));
  }

  /**
   * Combines `data` into the target like accumulate and returns what the target held before
   * (same kind and length; MPI_Get_accumulate / MPI_Fetch_and_op). Op.noOp reads atomically.
   */
  fetchAndOp<A extends TypedArray, T>(data: A, targetRank: number, targetOffset: number, op: AnyOp<T>): Request<A> {
    const { bytes, kind, code } = this.#checkTyped(data, op as AnyOp<unknown>, 'fetchAndOp');
    return this.#fetch(targetRank, targetOffset, data, RmaKind.FetchAndOp, bytes, code, kind, 'fetchAndOp');
  }

  /**
   * Atomically replaces the target's element at `targetOffset` with `value[0]` if it equals
   * `compare[0]`; returns what it held before (MPI_Compare_and_swap).
   */
  compareAndSwap<A extends TypedArray>(value: A, compare: A, targetRank: number, targetOffset: number): Request<A> {
    if (value?.length !== 1 || compare?.length !== 1 || value.constructor !== compare.constructor) {
      throw this.#error(ErrorCode.Count, 'compareAndSwap takes one element in value and in compare, of the same kind', 'compareAndSwap', 'pass e.g. Int32Array.of(new), Int32Array.of(expected)');
    }
    const { kind } = this.#checkTyped(value, undefined, 'compareAndSwap');
    const both = new Uint8Array(value.byteLength * 2);
    both.set(bytesOf(value));
    both.set(bytesOf(compare), value.byteLength);
    return this.#fetch(targetRank, targetOffset, value, RmaKind.CompareAndSwap, both, 0, kind, 'compareAndSwap', value.byteLength);
  }

  /**
   * Combines `data` into the target like accumulate, and puts what the target held before into
   * `result` (same kind, at least as long), filled by the next fence, flush or unlock
   * (MPI_Get_accumulate). Op.noOp only reads, atomically; Op.replace swaps.
   */
  getAccumulate<A extends TypedArray, T>(data: A, result: A, targetRank: number, targetOffset: number, op: AnyOp<T>): void {
    this.#getAccumulate(data, result, targetRank, targetOffset, op, 'getAccumulate');
  }

  // ---- request-based operations (MPI_Rput ...): a request per operation ------------------------

  /** put, with a request that completes once the target has the data (MPI_Rput). */
  rput(data: BufferLike, targetRank: number, targetOffset = 0): Request<void> {
    const bytes = this.#checkData(data, 'rput');
    const request = this.#request<void>('rput', targetRank);
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, 'rput') || this.#segments !== undefined) {
      if (this.#segments !== undefined) this.put(data, targetRank, targetOffset);
      request.complete(undefined);
      return request;
    }
    this.#send(targetRank, rmaMessage(RmaKind.Put, targetOffset, this.#expectReply(this.#settles(request, undefined)), 0, bytes));
    return request;
  }

  /** get, with a request that completes with `into` once it is filled (MPI_Rget). */
  rget<B extends BufferLike>(into: B, targetRank: number, targetOffset = 0): Request<B> {
    const bytes = this.#checkData(into, 'rget');
    const request = this.#request<B>('rget', targetRank);
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, 'rget') || this.#segments !== undefined) {
      if (this.#segments !== undefined) this.get(into, targetRank, targetOffset);
      request.complete(into);
      return request;
    }
    const id = this.#expectReply(this.#settles(request, into, (payload) => copyBytes(bytes, 0, payload, 0, payload.byteLength)));
    this.#send(targetRank, rmaMessage(RmaKind.Get, targetOffset, id, bytes.byteLength));
    return request;
  }

  /** accumulate, with a request that completes once the target has combined it (MPI_Raccumulate). */
  raccumulate<T>(data: TypedArray, targetRank: number, targetOffset: number, op: AnyOp<T>): Request<void> {
    const { bytes, kind, code } = this.#checkTyped(data, op as AnyOp<unknown>, 'raccumulate');
    const request = this.#request<void>('raccumulate', targetRank);
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, 'raccumulate')) {
      request.complete(undefined);
      return request;
    }
    this.#send(targetRank, rmaMessage(RmaKind.Accumulate, targetOffset, this.#expectReply(this.#settles(request, undefined)), 0, bytes, code, kind));
    return request;
  }

  /** getAccumulate, with a request that completes with `result` once it is filled (MPI_Rget_accumulate). */
  rgetAccumulate<A extends TypedArray, T>(data: A, result: A, targetRank: number, targetOffset: number, op: AnyOp<T>): Request<A> {
    return this.#getAccumulate(data, result, targetRank, targetOffset, op, 'rgetAccumulate');
  }

  #getAccumulate<A extends TypedArray, T>(data: A, result: A, targetRank: number, targetOffset: number, op: AnyOp<T>, operation: string): Request<A> {
    const { bytes, kind, code } = this.#checkTyped(data, op as AnyOp<unknown>, operation);
    if (!ArrayBuffer.isView(result) || result.constructor !== data.constructor || result.length < data.length) {
      throw this.#error(ErrorCode.Count, `the result array must be a ${data.constructor.name} of at least ${data.length} elements`, operation, 'pass a result array of the same kind and length as the data');
    }
    const request = this.#request<A>(operation, targetRank);
    if (!this.#checkAccess(targetRank, targetOffset, bytes.byteLength, operation)) {
      request.complete(result);
      return request;
    }
    const id = this.#expectReply(this.#settles(request, result, (old) => bytesOf(result).set(old)));
    this.#send(targetRank, rmaMessage(RmaKind.FetchAndOp, targetOffset, id, 0, bytes, code, kind));
    return request;
  }

  /** A reply handler: `take` the payload and complete `request` with `result`, or fail it with the target's refusal. */
  #settles<T>(request: Request<T>, result: T, take?: (payload: Uint8Array) => void): (payload: Uint8Array, refused?: TsmpiError) => void {
    return (payload, refused) => {
      if (refused !== undefined) {
        // The request reports it; the next flush or fence need not.
        if (this.#refused === refused) this.#refused = undefined;
        request.fail(refused);
        return;
      }
      take?.(payload);
      request.complete(result);
    };
  }

  #request<T>(operation: string, targetRank: number): Request<T> {
    return new Request<T>(this.comm.endpoint, operation, targetRank, TO_TARGET, this.comm.context);
  }

  #fetch<A extends TypedArray>(targetRank: number, targetOffset: number, like: A, kind: number, payload: Uint8Array, code: number, elementKind: number, operation: string, length = payload.byteLength): Request<A> {
    const request = this.#request<A>(operation, targetRank);
    const result = like.slice() as A;
    if (!this.#checkAccess(targetRank, targetOffset, length, operation)) {
      request.complete(result);
      return request;
    }
    const id = this.#expectReply(this.#settles(request, result, (old) => bytesOf(result).set(old)));
    this.#send(targetRank, rmaMessage(kind, targetOffset, id, 0, payload, code, elementKind));
    return request;
  }

  // ---- synchronisation -------------------------------------------------------------------------

  /**
   * Ends one access epoch and starts the next (MPI_Win_fence; collective): every operation any
   * rank issued before it is complete at its target when it returns, on every rank.
   */
  async fence(assert = 0): Promise<void> {
    this.#checkLive('fence');
    this.#checkAssert(assert, 'fence');
    await this.#drain(-1, 'fence');
    await this.comm.barrier();
  }

  /** Locks rank `rank`'s window: one exclusive holder, or any number of shared ones (MPI_Win_lock). */
  async lock(rank: number, type: LockType = 'exclusive'): Promise<void> {
    this.#checkLive('lock');
    this.#checkRank(rank, 'lock');
    if (type !== 'exclusive' && type !== 'shared') throw this.#error(ErrorCode.Arg, `lock type ${String(type)}`, 'lock', "pass 'exclusive' or 'shared'");
    let granted = false;
    const id = this.#expectReply(() => (granted = true));
    this.comm.isend(rmaMessage(RmaKind.Lock, 0, id, type === 'exclusive' ? 1 : 0), rank, TO_TARGET);
    await this.comm.endpoint.waitUntil(() => granted, { operation: 'lock', peer: rank, tag: TO_TARGET, context: this.comm.context });
  }

  /** Completes this rank's operations on `rank` and releases its lock (MPI_Win_unlock). */
  async unlock(rank: number): Promise<void> {
    this.#checkLive('unlock');
    this.#checkRank(rank, 'unlock');
    this.#send(rank, rmaMessage(RmaKind.Unlock, 0, 0, 0));
    await this.#drain(rank, 'unlock');
  }

  /** A shared lock on every rank's window (MPI_Win_lock_all). */
  async lockAll(): Promise<void> {
    for (let r = 0; r < this.comm.size; r++) await this.lock(r, 'shared');
  }

  async unlockAll(): Promise<void> {
    for (let r = 0; r < this.comm.size; r++) await this.unlock(r);
  }

  /** Completes this rank's operations on `rank` at the target, keeping the lock (MPI_Win_flush). */
  flush(rank: number): Promise<void> {
    this.#checkRank(rank, 'flush');
    return this.#drain(rank, 'flush');
  }

  /** Completes this rank's operations on every target (MPI_Win_flush_all). */
  flushAll(): Promise<void> {
    return this.#drain(-1, 'flushAll');
  }

  /** flush: local and remote completion are one here (MPI_Win_flush_local). */
  flushLocal(rank: number): Promise<void> {
    this.#checkRank(rank, 'flushLocal');
    return this.#drain(rank, 'flushLocal');
  }

  /** flushAll (MPI_Win_flush_local_all). */
  flushLocalAll(): Promise<void> {
    return this.#drain(-1, 'flushLocalAll');
  }

  /**
   * Orders this rank's direct reads and writes of a shared window's memory with the other ranks'
   * (MPI_Win_sync). A JavaScript rank's plain accesses to shared memory are ordered by the
   * synchronisation that tells the other rank to look (a message, a barrier, a lock): nothing to
   * do beyond checking the window.
   */
  sync(): void {
    this.#checkLive('sync');
  }

  // ---- generalized active target (post/start/complete/wait) ------------------------------------

  /**
   * Opens an exposure epoch for the origins in `group` (a Group of the window's ranks, or their
   * ranks): they may access this rank's window between their start and complete (MPI_Win_post).
   */
  post(group: Group | readonly number[], assert = 0): void {
    this.#checkLive('post');
    this.#checkAssert(assert, 'post');
    if (this.#postGroup !== undefined) throw this.#error(ErrorCode.Arg, 'an exposure epoch is already open', 'post', 'call wait() (or test() until true) before posting again');
    const origins = this.#ranksOf(group, 'post');
    this.#postGroup = origins;
    for (const origin of origins) this.comm.isend(rmaMessage(RmaKind.Post, 0, 0, 0), origin, TO_TARGET);
  }

  /**
   * Opens an access epoch on the targets in `group`: resolves once each of them has posted
   * (MPI_Win_start). Operations on them follow until complete().
   */
  async start(group: Group | readonly number[], assert = 0): Promise<void> {
    this.#checkLive('start');
    this.#checkAssert(assert, 'start');
    if (this.#startGroup !== undefined) throw this.#error(ErrorCode.Arg, 'an access epoch is already open', 'start', 'call complete() before starting again');
    const targets = this.#ranksOf(group, 'start');
    this.#startGroup = targets;
    const posted = (): boolean => targets.every((t) => this.#posts[t]! > 0);
    if (!posted()) await this.comm.endpoint.waitUntil(posted, { operation: 'win.start', peer: targets.find((t) => this.#posts[t] === 0) ?? -1, tag: TO_TARGET, context: this.comm.context });
    for (const t of targets) this.#posts[t]!--;
  }

  /**
   * Ends the access epoch (MPI_Win_complete): every operation on its targets is complete there,
   * and each target has recorded the end, so a target's test() after any later synchronisation
   * with this rank (a barrier, say, whose messages may take another path) sees it.
   */
  async complete(): Promise<void> {
    this.#checkLive('complete');
    const targets = this.#startGroup;
    if (targets === undefined) throw this.#error(ErrorCode.Arg, 'no access epoch is open', 'complete', 'call start(group) first');
    this.#startGroup = undefined;
    // Behind each target's operations on the same link, acknowledged once the target counted it.
    for (const t of targets) this.#send(t, rmaMessage(RmaKind.Complete, 0, 0, 0));
    for (const t of targets) await this.#drain(t, 'complete');
  }

  /** Ends the exposure epoch once every origin of the post has completed (MPI_Win_wait). */
  async wait(): Promise<void> {
    this.#checkLive('wait');
    const origins = this.#postGroup;
    if (origins === undefined) throw this.#error(ErrorCode.Arg, 'no exposure epoch is open', 'wait', 'call post(group) first');
    const completed = (): boolean => origins.every((o) => this.#completes[o]! > 0);
    if (!completed()) await this.comm.endpoint.waitUntil(completed, { operation: 'win.wait', peer: origins.find((o) => this.#completes[o] === 0) ?? -1, tag: TO_TARGET, context: this.comm.context });
    this.#endExposure(origins);
  }

  /** wait() without waiting: true (and the epoch ended) once every origin has completed (MPI_Win_test). */
  test(): boolean {
    this.#checkLive('test');
    const origins = this.#postGroup;
    if (origins === undefined) throw this.#error(ErrorCode.Arg, 'no exposure epoch is open', 'test', 'call post(group) first');
    if (!this.comm.endpoint.testPoll(() => origins.every((o) => this.#completes[o]! > 0))) return false;
    this.#endExposure(origins);
    return true;
  }

  #endExposure(origins: readonly number[]): void {
    for (const o of origins) this.#completes[o]!--;
    this.#postGroup = undefined;
  }

  /** The window's ranks that `group` names (a Group of world ranks, or ranks of the window's communicator). */
  #ranksOf(group: Group | readonly number[], operation: string): number[] {
    if (group instanceof Group) {
      const ranks = group.translateRanks(Array.from({ length: group.size }, (_, i) => i), this.comm.group);
      const outside = ranks.findIndex((r) => r === UNDEFINED);
      if (outside >= 0) throw this.#error(ErrorCode.Group, `rank ${outside} of the group is not in the window's communicator`, operation, 'pass a group of the window\'s ranks, e.g. comm.group.incl([1])');
      return ranks;
    }
    if (!Array.isArray(group)) throw this.#error(ErrorCode.Arg, 'needs a Group or an array of ranks', operation, 'pass e.g. comm.group.incl([1]) or [1]');
    for (const r of group) this.#checkRank(r, operation);
    return [...group];
  }

  // ---- attributes (MPI_Win_create_keyval, MPI_Win_set_attr ...) --------------------------------

  /** A key for attributes of windows (MPI_Win_create_keyval); windows have no dup, so `copy` is never asked. */
  static createKeyval(copy?: AttributeCopy<Win>, remove?: AttributeDelete<Win>): number {
    return createKeyval('window', copy, remove);
  }

  /** Frees a key (MPI_Win_free_keyval); returns KEYVAL_INVALID. */
  static freeKeyval(keyval: number): number {
    return freeKeyval('window', keyval);
  }

  /** Hangs `value` on this window under `keyval` (MPI_Win_set_attr); a value already there goes first. */
  setAttr(keyval: number, value: unknown): void {
    this.#checkLive('setAttr');
    this.#attributes.set(this, keyval, value);
  }

  /** The value under `keyval`, or undefined (MPI_Win_get_attr). */
  getAttr(keyval: number): unknown {
    this.#checkLive('getAttr');
    return this.#attributes.get(keyval);
  }

  /** Removes the attribute under `keyval`, running its delete callback (MPI_Win_delete_attr). */
  deleteAttr(keyval: number): void {
    this.#checkLive('deleteAttr');
    this.#attributes.delete(this, keyval);
  }

  /** Completes everything and releases the window (MPI_Win_free; collective). */
  async free(): Promise<void> {
    this.#checkLive('free');
    this.#attributes.clear(this);
    await this.#drain(-1, 'free');
    await this.comm.barrier();
    this.#freed = true;
    this.comm.endpoint.background.remove(this.#target);
    this.#target.close();
    this.comm.free();
  }

  // ---- internals -------------------------------------------------------------------------------

  #send(target: number, message: Uint8Array): void {
    this.#outstanding[target]!++;
    this.#outstandingTotal++;
    this.comm.isend(message, target, TO_TARGET);
  }

  #expectReply(handler: (payload: Uint8Array, refused?: TsmpiError) => void): number {
    const id = this.#nextId++;
    if (this.#nextId > 0xfffffff0) this.#nextId = 1;
    this.#replies.set(id, handler);
    return id;
  }

  #onReply(source: number, message: Uint8Array): void {
    const header = readHeader(message);
    if (header.kind !== RmaKind.Granted) {
      this.#outstanding[source]!--;
      this.#outstandingTotal--;
    }
    const handler = this.#replies.get(header.id);
    this.#replies.delete(header.id);
    if (header.kind === RmaKind.Refused) {
      const refusal = this.#error(ErrorCode.Arg, `rank ${source} refused an operation on its dynamic window: ${new TextDecoder().decode(payloadOf(message))}`, 'dynamic window', 'pass a displacement that attach returned on that rank, within the buffer attached there');
      this.#refused ??= refusal;
      handler?.(payloadOf(message), refusal);
      return;
    }
    // An acknowledgement with an id answers a request-based operation (rput, raccumulate).
    if (header.kind === RmaKind.Ack && header.id === 0) return;
    handler?.(payloadOf(message));
  }

  async #drain(rank: number, operation: string): Promise<void> {
    const done = rank < 0 ? () => this.#outstandingTotal === 0 : () => this.#outstanding[rank] === 0;
    if (!done()) await this.comm.endpoint.waitUntil(done, { operation, peer: rank, tag: TO_ORIGIN, context: this.comm.context });
    const refused = this.#refused;
    if (refused !== undefined) {
      this.#refused = undefined;
      throw refused;
    }
  }

  #checkLive(operation: string): void {
    if (this.#freed) throw this.#error(ErrorCode.Arg, 'the window was freed', operation, 'make a new window');
  }

  #checkAssert(assert: number, operation: string): void {
    if (Number.isInteger(assert) && assert >= 0 && assert < 32) return;
    throw this.#error(ErrorCode.Arg, `assertion ${String(assert)} is not a combination of MODE_* flags`, operation, 'pass 0, or MODE_NOPRECEDE | MODE_NOSTORE ... (hints tsmpi does not need)');
  }

  #checkRank(rank: number, operation: string): void {
    if (Number.isInteger(rank) && rank >= 0 && rank < this.comm.size) return;
    throw this.#error(ErrorCode.Rank, `rank ${String(rank)} is not in the window's communicator of size ${this.comm.size}`, operation, `pass a rank from 0 to ${this.comm.size - 1}`);
  }

  /** False for PROC_NULL (the operation does nothing, as MPI says); throws on a bad access. */
  #checkAccess(rank: number, offset: number, length: number, operation: string): boolean {
    this.#checkLive(operation);
    if (rank === PROC_NULL) return false;
    this.#checkRank(rank, operation);
    const size = this.#sizes[rank]!;
    // A dynamic window's target checks the displacement against what it has attached.
    if (!Number.isInteger(offset) || offset < 0 || (size >= 0 && offset + length > size)) {
      throw this.#error(
        ErrorCode.Arg,
        `${operation} of ${length} bytes at offset ${String(offset)} falls outside rank ${rank}'s window of ${size} bytes`,
        operation,
        'offsets are in bytes from the start of the target\'s window (for a Float64Array window, element i is at 8 * i)',
      );
    }
    return true;
  }

  #checkData(data: BufferLike, operation: string): Uint8Array {
    if (rawKindOf(data) < 0) throw this.#error(ErrorCode.Type, 'the data is not a typed array, Buffer or DataView', operation, 'pass a typed array');
    return bytesOf(data);
  }

  #checkTyped(data: TypedArray, op: AnyOp<unknown> | undefined, operation: string): { bytes: Uint8Array; kind: number; code: number } {
    let kind = rawKindOf(data);
    if (kind === PayloadKind.NodeBuffer) kind = PayloadKind.Uint8;
    if (kind < 0 || kind === PayloadKind.DataView) throw this.#error(ErrorCode.Type, `${operation} needs a typed array (its kind says how to combine)`, operation, 'pass e.g. a Float64Array');
    const code = op === undefined ? 0 : windowOpCode(op, operation, this.comm.endpoint.rank);
    return { bytes: bytesOf(data), kind, code };
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return windowError(this.comm, code, message, `win.${operation}`, hint);
  }
}

/**
 * The target side of one rank's window: one posted receive for whatever comes, applied in
 * arrival order (so one origin's operations apply in the order it issued them), and the lock.
 */
class WindowTarget implements BackgroundTask {
  readonly #comm: Communicator;
  readonly #resolve: (offset: number, length: number) => Resolved;
  readonly #onReply: (source: number, message: Uint8Array) => void;
  readonly #onEpoch: (kind: number, origin: number) => void;
  #receive: Request<Uint8Array>;
  /** 0 free, -1 held exclusively, n > 0 held by n sharers. */
  #lockState = 0;
  readonly #waiting: { origin: number; id: number; exclusive: boolean }[] = [];
  #closed = false;

  constructor(comm: Communicator, resolve: (offset: number, length: number) => Resolved, onReply: (source: number, message: Uint8Array) => void, onEpoch: (kind: number, origin: number) => void) {
    this.#comm = comm;
    this.#resolve = resolve;
    this.#onReply = onReply;
    this.#onEpoch = onEpoch;
    this.#receive = comm.irecv<Uint8Array>(ANY_SOURCE, ANY_TAG);
  }

  advance(): boolean {
    while (!this.#closed && this.#receive.done) {
      const receive = this.#receive;
      this.#receive = this.#comm.irecv<Uint8Array>(ANY_SOURCE, ANY_TAG);
      const status = receive.status!;
      const message = receive.result!;
      if (status.tag === TO_ORIGIN) this.#onReply(status.source, message);
      else this.#apply(status.source, message);
    }
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
    this.#receive.cancel();
  }

  #apply(origin: number, message: Uint8Array): void {
    const { kind, op, elementKind, offset, id, extra } = readHeader(message);
    const payload = payloadOf(message);
    const length = kind === RmaKind.Get ? extra : kind === RmaKind.CompareAndSwap ? payload.byteLength / 2 : payload.byteLength;
    let memory = EMPTY;
    let at = 0;
    if (kind <= RmaKind.CompareAndSwap) {
      const where = this.#resolve(offset, length);
      if (typeof where === 'string') return this.#reply(origin, RmaKind.Refused, id, new TextEncoder().encode(where));
      memory = where.bytes;
      at = where.at;
    }
    switch (kind) {
      case RmaKind.Put:
        copyBytes(memory, at, payload, 0, payload.byteLength);
        return this.#reply(origin, RmaKind.Ack, id);
      case RmaKind.Get:
        return this.#reply(origin, RmaKind.Data, id, memory.subarray(at, at + extra));
      case RmaKind.Accumulate:
        applyOp(op, elementKind, memory.subarray(at, at + payload.byteLength), payload);
        return this.#reply(origin, RmaKind.Ack, id);
      case RmaKind.FetchAndOp: {
        const target = memory.subarray(at, at + payload.byteLength);
        const old = target.slice();
        applyOp(op, elementKind, target, payload);
        return this.#reply(origin, RmaKind.Data, id, old);
      }
      case RmaKind.CompareAndSwap: {
        const width = payload.byteLength / 2;
        const target = memory.subarray(at, at + width);
        const old = target.slice();
        if (sameBytes(old, payload.subarray(width))) target.set(payload.subarray(0, width));
        return this.#reply(origin, RmaKind.Data, id, old);
      }
      case RmaKind.Lock:
        this.#waiting.push({ origin, id, exclusive: extra === 1 });
        return this.#grant();
      case RmaKind.Post:
        return this.#onEpoch(kind, origin);
      case RmaKind.Complete:
        this.#onEpoch(kind, origin);
        return this.#reply(origin, RmaKind.Ack, id);
      case RmaKind.Unlock:
        this.#lockState = this.#lockState < 0 ? 0 : Math.max(0, this.#lockState - 1);
        this.#reply(origin, RmaKind.Ack, id);
        return this.#grant();
      default:
        throw new TsmpiError(ErrorCode.Internal, `unknown window message kind ${kind} from rank ${origin}`, { rank: this.#comm.endpoint.rank, operation: 'window' });
    }
  }

  /** Grants waiting locks in arrival order: an exclusive one alone, shared ones together. */
  #grant(): void {
    const waiting = this.#waiting;
    while (waiting.length > 0) {
      const next = waiting[0]!;
      if (next.exclusive ? this.#lockState !== 0 : this.#lockState < 0) return;
      waiting.shift();
      this.#lockState = next.exclusive ? -1 : this.#lockState + 1;
      this.#reply(next.origin, RmaKind.Granted, next.id);
    }
  }

  #reply(origin: number, kind: number, id: number, payload?: Uint8Array): void {
    this.#comm.isend(rmaMessage(kind, 0, id, 0, payload), origin, TO_ORIGIN);
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The window's own communicator: a dup, so its messages never meet the program's. */
async function windowComm(comm: Communicator, what: string): Promise<Communicator> {
  const own = await comm.dup();
  own.name = `${what} of ${comm.name}`;
  return own;
}

function checkSize(comm: Communicator, bytes: number, operation: string): void {
  if (!Number.isInteger(bytes) || bytes < 0 || bytes > MAX_WINDOW_BYTES) {
    throw windowError(comm, ErrorCode.Arg, `window size ${String(bytes)} is not a byte count from 0 to ${MAX_WINDOW_BYTES}`, operation, 'pass the window size in bytes');
  }
}

function windowError(comm: Communicator, code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
  return new TsmpiError(code, message, { rank: comm.member ? comm.worldRankOf(comm.rank) : -1, operation, hint });
}

/**
 * One SharedArrayBuffer for the window's ranks: rank 0 makes it; ranks in its realm (the
 * simulator) find it by key, thread ranks get it over a BroadcastChannel (which passes shared
 * memory between the worker threads of a process).
 */
async function shareBuffer(comm: Communicator, bytes: number): Promise<SharedArrayBuffer> {
  const key = `tsmpi-window:${process.pid}:${comm.worldRankOf(0)}:${comm.context}`;
  const channel = new BroadcastChannel(key);
  const arrived = new Promise<SharedArrayBuffer>((resolve) => {
    channel.onmessage = (event: unknown) => resolve((event as { data: SharedArrayBuffer }).data);
  });
  try {
    await comm.barrier();
    if (comm.rank === 0) {
      const buffer = new SharedArrayBuffer(bytes);
      sharedBuffers.set(key, buffer);
      channel.postMessage(buffer);
    }
    await comm.barrier();
    const buffer = sharedBuffers.get(key) ?? (await arrived);
    await comm.barrier();
    if (comm.rank === 0) sharedBuffers.delete(key);
    return buffer;
  } finally {
    channel.close();
  }
}

refuseToEncode(Win, 'a window');
