/**
 * Partitioned communication (MPI-4's MPI_Psend_init / MPI_Precv_init): a persistent send and
 * receive of one typed array cut into equal partitions. After each start the sending threads or
 * tasks mark partitions ready (`pready`) in any order; the receiver may ask whether a partition
 * has arrived (`parrived`) before the whole receive completes.
 *
 * The data travels as one message once every partition is ready (the order of pready calls is
 * free, and one message keeps the receive one copy into the caller's array): MPI allows a
 * partition to arrive no earlier than that, so `parrived` turns true for all partitions together.
 * The messages use a band of tags no other traffic uses, on the communicator's collective
 * context, so they never match the program's own receives.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { TypedArray } from './codec.js';
import { PersistentRequest } from './persistent-request.js';
import { Request, type RequestDriver } from './request.js';
import { Status } from './status.js';

/** What a partitioned request sends and receives on: the communicator's private channel to its peer. */
export interface PartitionedChannel {
  readonly driver: RequestDriver;
  readonly context: number;
  /** The rank whose errors these are (world rank). */
  readonly rank: number;
  send(data: TypedArray): Request<void>;
  recvInto(data: TypedArray): Request<Status>;
}

/** The tag of partitioned traffic for user tag `tag` (0 .. TAG_UB - 1): below every tag anything else sends. */
export function partitionedTag(tag: number): number {
  return -0x40000002 - tag;
}

/** Throws unless `data` splits into `partitions` equal parts. */
export function checkPartitions(data: unknown, partitions: number, rank: number, operation: string): void {
  if (!ArrayBuffer.isView(data) || data instanceof DataView) {
    throw new TsmpiError(ErrorCode.Type, `${operation} takes a typed array`, { rank, operation, hint: 'pass e.g. a Float64Array holding every partition' });
  }
  const length = (data as TypedArray).length;
  if (!Number.isInteger(partitions) || partitions < 1 || length % partitions !== 0) {
    throw new TsmpiError(ErrorCode.Count, `${length} elements do not split into ${String(partitions)} equal partitions`, { rank, operation, hint: 'pass a partition count >= 1 that divides the array length' });
  }
}

/** The sending side: start, then `pready(i)` for every partition; the data leaves with the last. */
export class PartitionedSend extends PersistentRequest<void> {
  readonly partitions: number;
  readonly #channel: PartitionedChannel;
  readonly #data: TypedArray;
  readonly #ready: Uint8Array;
  #readyCount = 0;
  /** The current start's request, completed by the send that leaves with the last partition. */
  #round: Request<void> | undefined;

  /** @internal Made by Communicator.psendInit. */
  constructor(channel: PartitionedChannel, data: TypedArray, partitions: number, dest: number, tag: number) {
    super(channel.driver, 'psend', dest, tag, channel.context, channel.rank, () => this.#begin());
    this.#channel = channel;
    this.#data = data;
    this.partitions = partitions;
    this.#ready = new Uint8Array(partitions);
  }

  #begin(): Request<void> {
    this.#ready.fill(0);
    this.#readyCount = 0;
    this.#round = new Request<void>(this.#channel.driver, 'psend', this.peer, this.tag, this.context);
    return this.#round;
  }

  /** Partition `partition` may be sent (MPI_Pready); each partition once per start. */
  pready(partition: number): void {
    this.#mark(partition, 'pready');
    if (this.#readyCount === this.partitions) this.#round!.follow(this.#channel.send(this.#data));
  }

  /** Partitions `low` to `high`, both included (MPI_Pready_range). */
  preadyRange(low: number, high: number): void {
    for (let partition = low; partition <= high; partition++) this.pready(partition);
  }

  /** The listed partitions (MPI_Pready_list). */
  preadyList(partitions: readonly number[]): void {
    for (const partition of partitions) this.pready(partition);
  }

  #mark(partition: number, operation: string): void {
    const round = this.#round;
    if (round === undefined || this.reported) throw this.#error(operation, 'the partitioned send is not started', 'call start() first, once per round');
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitions) {
      throw this.#error(operation, `partition ${String(partition)} is not one of 0..${this.partitions - 1}`, 'pass a partition index of this request');
    }
    if (this.#ready[partition] === 1) throw this.#error(operation, `partition ${partition} is ready already in this round`, 'mark each partition ready once per start');
    this.#ready[partition] = 1;
    this.#readyCount++;
  }

  #error(operation: string, message: string, hint: string): TsmpiError {
    return new TsmpiError(ErrorCode.Request, message, { rank: this.#channel.rank, operation, hint });
  }
}

/** The receiving side: start, then `parrived(i)` says whether partition i is in; wait for all. */
export class PartitionedRecv extends PersistentRequest<Status> {
  readonly partitions: number;
  readonly #channel: PartitionedChannel;
  #round: Request<Status> | undefined;

  /** @internal Made by Communicator.precvInit. */
  constructor(channel: PartitionedChannel, data: TypedArray, partitions: number, source: number, tag: number) {
    super(channel.driver, 'precv', source, tag, channel.context, channel.rank, () => (this.#round = channel.recvInto(data)));
    this.#channel = channel;
    this.partitions = partitions;
  }

  /**
   * True once partition `partition` of the current start has arrived (MPI_Parrived); polls once,
   * so a loop over it makes progress (yield to the event loop between calls over TCP).
   */
  parrived(partition: number): boolean {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitions) {
      throw new TsmpiError(ErrorCode.Request, `partition ${String(partition)} is not one of 0..${this.partitions - 1}`, { rank: this.#channel.rank, operation: 'parrived', hint: 'pass a partition index of this request' });
    }
    const round = this.#round;
    // Inactive (never started, or its completion reported): everything is in, as MPI says.
    if (round === undefined || this.reported) return true;
    return this.#channel.driver.testPoll(() => round.done);
  }
}
