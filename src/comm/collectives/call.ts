/**
 * One collective call's view of its communicator: point-to-point on the communicator's
 * collective context with the call's own tag, so that collectives never match user messages and
 * two calls in flight never match each other's messages. Ranks are communicator ranks.
 */
import type { Settings } from '../../config/tunables.js';
import type { Encoded, TypedArray } from '../codec.js';
import type { CommunicatorLabel } from '../context-names.js';
import type { Endpoint } from '../endpoint.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { describeOperand, type ReduceOp } from '../ops.js';
import type { Request, Status } from '../request.js';
import { runSteps, settledWith, type Steps } from './steps.js';
import type { StagedBlocks, StagedOp } from '../staged-reduction.js';
import type { StagedTicket } from '../staged-request.js';
import type { Concatenated } from './gather.js';

export class CollectiveCall {
  readonly rank: number;
  readonly size: number;
  operation: string;
  readonly settings: Settings;
  private readonly endpoint: Endpoint;
  readonly context: number;
  private readonly group: Int32Array;
  tag: number;
  private lastRange: { array: TypedArray; begin: number; end: number; view: TypedArray } | undefined;
  /** The last 2-rank concatenation's result into a caller's array (gather.ts pairResult). */
  lastPairResult: Concatenated<TypedArray> | undefined;
  private readonly label: CommunicatorLabel;
  /** The place among staged collectives this call holds (reserveStaged), until it stages or gives it up. */
  private ticket: StagedTicket | undefined;

  constructor(endpoint: Endpoint, context: number, group: Int32Array, rank: number, tag: number, operation: string, settings: Settings, label: CommunicatorLabel) {
    this.label = label;
    this.endpoint = endpoint;
    this.context = context;
    this.group = group;
    this.rank = rank;
    this.size = group.length;
    this.tag = tag;
    this.operation = operation;
    this.settings = settings;
  }

  /**
   * A call of its own with this one's fields: a blocking collective tries its one-step schedule
   * on a call object its communicator reuses (tag and operation set anew each time), and one
   * that needs its steps keeps a call for them.
   */
  own(): CollectiveCall {
    return new CollectiveCall(this.endpoint, this.context, this.group, this.rank, this.tag, this.operation, this.settings, this.label);
  }

  /** What reports call the communicator (`world`, `rows` ...). */
  get communicatorName(): string {
    return this.label.name;
  }

  /** True when the rank records a timeline (its collectives then run as steps, round by round). */
  get traced(): boolean {
    return this.endpoint.tracer !== undefined;
  }

  /** This rank's world rank (errors name it). */
  get worldRank(): number {
    return this.endpoint.rank;
  }

  send(value: unknown, dest: number): Request<void> {
    return this.endpoint.isend(this.context, this.group[dest]!, this.rank, this.tag, value, this.operation, dest);
  }

  /**
   * A one-step schedule's send of `value` (a typed array) to `dest`: undefined when its link took
   * it at once (Endpoint.sendNow: nothing to wait for), else its request ({@link send}).
   */
  /** True when `value` (a typed array) left for `dest` at once, without a request (Endpoint.sendNow). */
  sendNow(value: ArrayBufferView, dest: number): boolean {
    return this.endpoint.sendNow(this.context, this.group[dest]!, this.rank, this.tag, value);
  }

  sendStep(value: ArrayBufferView, dest: number): Request<void> | undefined {
    return this.endpoint.sendNow(this.context, this.group[dest]!, this.rank, this.tag, value) ? undefined : this.send(value, dest);
  }

  /**
   * The exchange of a pair as one step's requests: `value` (a typed array) to `peer`, its message
   * into `bytes` (none where undefined). A send its link takes at once goes before the receive is
   * posted: the peer's wait for it is the whole cost of a small exchange, and posting first (a
   * request and a poll) put that ahead of the send on both ranks (a 2-rank barrier 0.9 -> 0.6 us).
   * A send that must wait (a large one) follows the posted receive, as before.
   */
  exchangeStep(value: ArrayBufferView | undefined, bytes: Uint8Array | undefined, peer: number): [receive: Request<Status> | undefined, send: Request<void> | undefined] {
    if (value !== undefined && this.endpoint.sendNow(this.context, this.group[peer]!, this.rank, this.tag, value)) {
      return [bytes === undefined ? undefined : this.recvIntoStep(bytes, peer), undefined];
    }
    const receive = bytes === undefined ? undefined : this.recvIntoStep(bytes, peer);
    return [receive, value === undefined ? undefined : this.send(value, peer)];
  }

  /**
   * One exchange with `peer` run without steps (a 2-rank collective's one round): `outgoing` to
   * it, its block into `into`, then `finish(bytes that arrived)`, which may throw. A receive's
   * failure goes through `failure` (which maps it to the collective's own error). The requests
   * are made now; a send its link takes at once goes first, as in {@link exchangeStep}.
   */
  pairExchange<T>(outgoing: Uint8Array, into: Uint8Array, peer: number, failure: (error: unknown) => unknown, finish: (bytes: number) => T): Promise<T> {
    const sentNow = this.sendNow(outgoing, peer);
    // The partner's block is on its way (it sends first too): look for it as it lands.
    const arrived = this.receiveSoon(into, peer);
    const receive = arrived >= 0 ? undefined : this.recvInto(into, peer);
    const send = sentNow ? undefined : this.send(outgoing, peer);
    if ((receive === undefined || receive.settleNow()) && (send === undefined || send.settleNow())) {
      try {
        let bytes = arrived;
        if (receive !== undefined) {
          try {
            bytes = receive.takeNow().bytes;
          } catch (error) {
            throw failure(error);
          }
        }
        send?.takeNow();
        return settledWith(finish(bytes));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return awaitPair(receive, send, arrived, failure, finish);
  }

  sendEncoded(encoded: Encoded, dest: number): Request<void> {
    return this.endpoint.isendEncoded(this.context, this.group[dest]!, this.rank, this.tag, encoded, this.operation, dest);
  }

  recv<T>(source: number): Request<T> {
    return this.endpoint.irecv(this.context, source, this.group[source]!, this.tag, null, this.operation) as Request<T>;
  }

  recvEncoded(source: number): Request<Encoded> {
    return this.endpoint.irecv(this.context, source, this.group[source]!, this.tag, null, this.operation, true) as Request<Encoded>;
  }

  recvInto(bytes: Uint8Array, source: number): Request<Status> {
    return this.endpoint.irecv(this.context, source, this.group[source]!, this.tag, bytes, this.operation) as Request<Status>;
  }

  /**
   * A one-step schedule's receive into `bytes` from `source`: undefined when its message was there
   * already and is in `bytes` (Endpoint.receiveNow: nothing to wait for), else its request
   * ({@link recvInto}).
   */
  recvIntoStep(bytes: Uint8Array, source: number): Request<Status> | undefined {
    return this.endpoint.receiveNow(this.context, source, this.group[source]!, this.tag, bytes) >= 0 ? undefined : this.recvInto(bytes, source);
  }

  /** The bytes of `source`'s message, copied into `bytes`, when it is there or lands soon (Endpoint.receiveSoon); else -1 (nothing is posted). */
  receiveSoon(bytes: Uint8Array, source: number): number {
    return this.endpoint.receiveSoon(this.context, source, this.group[source]!, this.tag, bytes);
  }

  /** True when every rank of this call's communicator is a thread of one process that runs more rank threads than cores. */
  get crowded(): boolean {
    return this.endpoint.crowded;
  }

  /** True when every rank of this call's communicator is a thread of one process (the same on every rank). */
  get inOneProcess(): boolean {
    return this.endpoint.inOneProcess(this.group);
  }

  /** True when this call's communicator can use the shared-memory barrier (the world, every rank in this process). */
  get sharedBarrierAvailable(): boolean {
    return this.endpoint.sharedBarrierAvailable(this.context, this.group);
  }

  /** Enters the shared-memory barrier ({@link sharedBarrierAvailable} must hold). */
  sharedBarrier(): Request<void> {
    return this.endpoint.sharedBarrier(this.context, this.tag, this.operation);
  }

  /** True when a bcast on this call's communicator can go through the world's broadcast slots. */
  get sharedBcastAvailable(): boolean {
    return this.endpoint.sharedBcastAvailable(this.context, this.group);
  }

  /** A bcastInto of one chunk through the slots done now (Endpoint.sharedBcastNow); false: make its request. */
  sharedBcastNow(bytes: Uint8Array, root: number): boolean {
    return this.endpoint.sharedBcastNow(this.group[root]!, bytes);
  }

  /** Broadcasts the root's `bytes` into every rank's `bytes` through the slots ({@link sharedBcastAvailable} must hold); `root` is a rank of the group. */
  sharedBcast(bytes: Uint8Array, root: number): Request<unknown> {
    return this.endpoint.sharedBcast(this.context, this.tag, this.operation, this.group[root]!, bytes, -1);
  }

  /** Broadcasts the root's encoded value through the slots (undefined elsewhere); the readers' request results in the encoded value. */
  sharedBcastEncoded(encoded: Encoded | undefined, root: number): Request<Encoded | undefined> {
    return this.endpoint.sharedBcast(this.context, this.tag, this.operation, this.group[root]!, encoded?.bytes, encoded?.kind ?? -1);
  }

  /** True when a collective on this call's communicator can go through the world's staging regions. */
  get stagingAvailable(): boolean {
    return this.endpoint.stagingAvailable(this.context, this.group);
  }

  /**
   * Reduces `value` through the staging regions ({@link stagingAvailable} must hold): the whole
   * reduction into `result`, or with `blocks` this rank's block of it.
   */
  stagedReduction(value: TypedArray, result: TypedArray, op: StagedOp, blocks: StagedBlocks): Request<TypedArray> {
    return this.endpoint.stagedReduction(this.context, this.tag, this.operation, value, result, op, blocks, `${this.operation} (Op.${op.name}) on ${this.label.name}`, this.takeTicket());
  }

  /**
   * Gathers every rank's `block` into `incoming[r]` through the staging regions
   * ({@link stagingAvailable} must hold, so the group is the world's, in world rank order);
   * `digest` stands for the counts (staged-gather.ts).
   */
  stagedGather(block: Uint8Array, incoming: readonly Uint8Array[], digest: number): Request<void> {
    return this.endpoint.stagedGather(this.context, this.tag, this.operation, block, incoming, digest, `${this.operation} on ${this.label.name}`, this.takeTicket());
  }

  /**
   * Sends `outgoing[d]` to every rank d and receives rank s's block into `incoming[s]` through
   * the staging regions ({@link stagingAvailable} must hold; staged-exchange.ts).
   */
  stagedExchange(outgoing: readonly Uint8Array[], incoming: readonly Uint8Array[]): Request<void> {
    return this.endpoint.stagedExchange(this.context, this.tag, this.operation, outgoing, incoming, `${this.operation} on ${this.label.name}`, this.takeTicket());
  }

  /**
   * Holds this rank's place among its staged collectives from now (Endpoint.reserveStaged), for a
   * call that may stage only after steps that wait; kept until the call stages or
   * {@link releaseStaged}. Once per call: a second reservation keeps the first.
   */
  reserveStaged(): void {
    this.ticket ??= this.endpoint.reserveStaged();
  }

  /** Gives up a place {@link reserveStaged} held and no staged request took. */
  releaseStaged(): void {
    this.ticket?.release();
    this.ticket = undefined;
  }

  private takeTicket(): StagedTicket | undefined {
    const ticket = this.ticket;
    this.ticket = undefined;
    return ticket;
  }

  /** Bytes of each rank's staging region (0 without them). */
  get stagingRegionBytes(): number {
    return this.endpoint.stagingRegionBytes;
  }

  /** The bytes of a typed array the program passed (its view made once: ByteViews). */
  bytesOf(view: ArrayBufferView): Uint8Array {
    return this.endpoint.byteViews.of(view);
  }

  /** `bytes[begin, end)` of an array {@link bytesOf} gave (the same view when asked again). */
  bytesRange(bytes: Uint8Array, begin: number, end: number): Uint8Array {
    return this.endpoint.byteViews.range(bytes, begin, end);
  }

  /** Every rank's block of `bytes`, cut by `displs` and `counts` in elements of `width` bytes (ByteViews.blocks). */
  blockViews(bytes: Uint8Array, displs: readonly number[], counts: readonly number[], width: number): readonly Uint8Array[] {
    return this.endpoint.byteViews.blocks(bytes, displs, counts, width);
  }

  /**
   * `array.subarray(begin, end)`, the same view as the last call's when asked for the same
   * range of the same array (a loop's): a typed-array view costs tens of nanoseconds to make.
   */
  elementsRange<A extends TypedArray>(array: A, begin: number, end: number): A {
    const last = this.lastRange;
    if (last !== undefined && last.array === array && last.begin === begin && last.end === end) return last.view as A;
    const view = array.subarray(begin, end) as A;
    this.lastRange = { array, begin, end, view };
    return view;
  }

  /** A scratch array like `like` (same kind, `length` elements, contents undefined) from this rank's pool. */
  scratch<A extends TypedArray>(like: A, length: number): A {
    const ctor = like.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => A;
    return new ctor(this.endpoint.scratch.take(length * like.BYTES_PER_ELEMENT), 0, length);
  }

  /** Returns a {@link scratch} array to the pool once nothing reads or writes it any more. */
  release(scratch: TypedArray): void {
    this.endpoint.scratch.give(scratch.buffer as ArrayBuffer);
  }

  /**
   * `lower op higher`, where `lower` holds the contributions of rank `lowerRank` (and ranks it
   * combined before) and `higher` those of `higherRank`. Shapes survive every successful combine,
   * so when a built-in op finds two shapes that differ, each is what its rank passed: the error
   * names the collective, the communicator and both ranks.
   */
  combine<T>(op: ReduceOp, lower: unknown, higher: unknown, lowerRank: number, higherRank: number): T {
    try {
      return op.combine(lower, higher) as T;
    } catch (error) {
      if (!(error instanceof TsmpiError) || (error.code !== ErrorCode.Count && error.code !== ErrorCode.Op)) throw error;
      const what = `${this.operation} (Op.${op.name}) on ${this.label.name}`;
      const message =
        error.code === ErrorCode.Count
          ? `${this.rankName(lowerRank)} passed ${describeOperand(lower)} and ${this.rankName(higherRank)} ${describeOperand(higher)} to ${what}`
          : `${what}: ${error.detail} (the operands of ${this.rankName(lowerRank)} and ${this.rankName(higherRank)})`;
      throw new TsmpiError(error.code, message, { rank: this.endpoint.rank, operation: this.operation, hint: error.hint, cause: error });
    }
  }

  /** `rank 1`, or `rank 1 (world rank 3)` on a communicator that numbers ranks otherwise. */
  private rankName(rank: number): string {
    const world = this.group[rank];
    return world === undefined || world === rank ? `rank ${rank}` : `rank ${rank} (world rank ${world})`;
  }

  /**
   * The error of a ring step whose incoming block is not the size this rank expects: the rank
   * on the left passed a typed array of another length.
   */
  blockMismatch(op: ReduceOp, own: unknown, arrived: number | undefined, expected: number, from: number): TsmpiError {
    const block = arrived === undefined ? `a block larger than the ${expected} bytes expected arrived` : `a block of ${arrived} bytes arrived where ${expected} were expected`;
    return new TsmpiError(
      ErrorCode.Count,
      `${this.rankName(this.rank)} passed ${describeOperand(own)} to ${this.operation} (Op.${op.name}) on ${this.label.name}, but ${this.rankName(from)} passed one of another kind or length (${block})`,
      { rank: this.endpoint.rank, operation: this.operation, hint: 'every rank must pass the same kind and length of typed array' },
    );
  }

  /** Sends to `dest` and receives from `source` at the same time (a collective's step). */
  *exchange<T>(value: unknown, dest: number, source: number): Steps<T> {
    const receive = this.recv<T>(source);
    const send = this.send(value, dest);
    const result = (yield receive) as T;
    yield send;
    return result;
  }

  /** Sends bytes to `dest` while receiving bytes from `source` into `into`; the receive's status. */
  *exchangeBytes(bytes: Uint8Array, dest: number, into: Uint8Array, source: number): Steps<Status> {
    const receive = this.recvInto(into, source);
    const send = this.send(bytes, dest);
    const status = (yield receive) as Status;
    yield send;
    return status;
  }

  /** {@link exchangeBytes}, awaited (for callers that are async functions). */
  sendrecvBytes(bytes: Uint8Array, dest: number, into: Uint8Array, source: number): Promise<Status> {
    return runSteps(this.exchangeBytes(bytes, dest, into, source));
  }
}

/** Element offsets of `parts` nearly equal blocks of `length` elements (block i is [o[i], o[i+1])). */
export function blockOffsets(length: number, parts: number): number[] {
  const base = Math.floor(length / parts);
  const extra = length % parts;
  const offsets = new Array<number>(parts + 1);
  offsets[0] = 0;
  for (let i = 0; i < parts; i++) offsets[i + 1] = offsets[i]! + base + (i < extra ? 1 : 0);
  return offsets;
}

/** Largest power of two <= n (n >= 1). */
export function floorPowerOfTwo(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/** The rest of {@link CollectiveCall.pairExchange} once its spin is over; an async function, so that a failure's stack reaches the program's await. */
async function awaitPair<T>(receive: Request<Status> | undefined, send: Request<void> | undefined, arrived: number, failure: (error: unknown) => unknown, finish: (bytes: number) => T): Promise<T> {
  let bytes = arrived;
  if (receive !== undefined) {
    try {
      bytes = (await receive.waitAfterSpin()).bytes;
    } catch (error) {
      throw failure(error);
    }
  }
  if (send !== undefined) await send.wait();
  return finish(bytes);
}
