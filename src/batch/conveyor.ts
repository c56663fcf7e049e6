/**
 * A conveyor (after Bale's conveyors and Charm++ TRAM): for irregular codes that send millions of
 * tiny items to arbitrary ranks. `push(dest, item)` copies the item into a buffer per destination;
 * a buffer goes as one message when it is full, when `flushInterval` passes, on `flush()`, or at
 * `close()`. Items arrive through `onItem(source, bytes)`, in the order each source pushed them.
 *
 * Flow control: `push` returns false once `maxInFlight` bytes of buffers are travelling; then
 * `await advance()` (which also lets arrivals be delivered) before pushing more. Termination:
 * `close()` is collective: each rank flushes, tells every rank how many buffers it sent it, and
 * returns once it has received and delivered every buffer announced to it, so no item is lost at
 * a flush boundary and no rank waits for a flush that never comes. Buffers carry a sequence
 * number, so items from a source are delivered in push order even when receives complete out of
 * order.
 */
import type { TimerHandle } from '../clock.js';
import type { Communicator } from '../comm/communicator.js';
import type { Request } from '../comm/request.js';
import { ErrorCode, TsmpiError } from '../errors.js';

export interface ConveyorOptions {
  /**
   * Called for each item that arrives. The array is valid only during the call: small items
   * arrive in an array the conveyor reuses, so copy what must outlive the call.
   */
  onItem: (source: number, item: Uint8Array) => void;
  /** Bytes buffered per destination before the buffer goes. @default 16 KiB */
  bufferBytes?: number;
  /** Seconds a partial buffer may wait before it goes. @default 0.002 */
  flushInterval?: number;
  /** Bytes of buffers travelling before `push` returns false. @default 8 MiB */
  maxInFlight?: number;
  /** Receives kept posted. @default 4 */
  receives?: number;
}

const DATA = 0;
const END = 1;
/** Each buffer starts with its sequence number from its source (u32 LE). */
const HEADER = 4;
/** Largest item (a 2-byte length prefix). */
export const MAX_ITEM_BYTES = 0xffff;
/**
 * Items up to this size reach onItem in a reused array of their length, copied by hand: a view
 * per item (subarray) is an allocation of tens of nanoseconds plus its garbage, several times the
 * cost of the item itself for the common 2- to 16-byte items.
 */
const REUSED_ITEM_BYTES = 32;

export class Conveyor {
  private readonly comm: Communicator;
  private readonly onItem: (source: number, item: Uint8Array) => void;
  private readonly bufferBytes: number;
  private readonly maxInFlight: number;
  private readonly buffers: (Uint8Array | undefined)[];
  private readonly used: Int32Array;
  private readonly sentTo: Int32Array;
  private readonly receivedFrom: Int32Array;
  private readonly announced: Int32Array;
  /** Buffers that arrived ahead of an earlier one from the same source, by source then sequence. */
  private readonly early = new Map<number, Map<number, Uint8Array>>();
  private endsSeen = 0;
  private inFlight = 0;
  private readonly sends: { request: Request<void>; bytes: number }[] = [];
  private readonly posted = new Set<Request<unknown>>();
  private timer: TimerHandle | undefined;
  private readonly flushInterval: number;
  private closing = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  /** The arrays small items are delivered in, by length (an item is valid only during onItem). */
  private readonly itemViews: Uint8Array[] = Array.from({ length: REUSED_ITEM_BYTES + 1 }, (_, n) => new Uint8Array(n));
  /** Items pushed and delivered by this rank (diagnostics). */
  pushed = 0;
  delivered = 0;

  /**
   * Collective: a conveyor on a private duplicate of `comm` (every rank of `comm` calls it).
   * Also `comm.conveyor(options)`.
   */
  static async open(comm: Communicator, options: ConveyorOptions): Promise<Conveyor> {
    return new Conveyor(await comm.dup(), options);
  }

  /** @internal Made by {@link Conveyor.open} on a private duplicate of the communicator. */
  constructor(comm: Communicator, options: ConveyorOptions) {
    this.comm = comm;
    this.onItem = options.onItem;
    this.bufferBytes = Math.max(64, options.bufferBytes ?? 16 * 1024);
    this.maxInFlight = options.maxInFlight ?? 8 * 1024 * 1024;
    this.buffers = new Array(comm.size).fill(undefined);
    this.used = new Int32Array(comm.size);
    this.sentTo = new Int32Array(comm.size);
    this.receivedFrom = new Int32Array(comm.size);
    this.announced = new Int32Array(comm.size).fill(-1);
    for (let i = 0; i < (options.receives ?? 4); i++) this.post();
    // Partial buffers go every flushInterval seconds of the rank's clock (virtual under the simulator).
    this.flushInterval = options.flushInterval ?? 0.002;
    if (this.flushInterval > 0) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.timer = this.comm.clock.schedule(this.flushInterval, () => {
      this.timer = undefined;
      if (this.closing) return;
      this.flush();
      this.scheduleFlush();
    });
  }

  /** Queues `item` for `dest`; false when too much is travelling (then `await advance()`). */
  push(dest: number, item: Uint8Array): boolean {
    if (this.closing) throw this.error('push after close()', 'push every item before close()');
    if (this.failure) throw this.failure;
    const length = item.length;
    if (length > MAX_ITEM_BYTES) throw this.error(`an item of ${length} bytes`, `items are at most ${MAX_ITEM_BYTES} bytes; send larger data with isend`);
    let buffer = this.buffers[dest];
    if (buffer === undefined) {
      if (!(dest >= 0 && dest < this.comm.size && Number.isInteger(dest))) throw this.error(`rank ${String(dest)} is out of range`, `push to a rank from 0 to ${this.comm.size - 1}`);
      buffer = this.buffers[dest] = new Uint8Array(HEADER + this.bufferBytes + MAX_ITEM_BYTES + 2);
      this.used[dest] = HEADER;
    }
    let at = this.used[dest]!;
    buffer[at] = length & 0xff;
    buffer[at + 1] = length >>> 8;
    // Tiny items (the common case) copy faster by hand than through TypedArray.set.
    if (length <= 32) for (let i = 0; i < length; i++) buffer[at + 2 + i] = item[i]!;
    else buffer.set(item, at + 2);
    at += length + 2;
    this.used[dest] = at;
    this.pushed++;
    if (at - HEADER >= this.bufferBytes) this.send(dest);
    return this.inFlight < this.maxInFlight;
  }

  /** Sends every partial buffer now. */
  flush(): void {
    for (let d = 0; d < this.buffers.length; d++) if (this.used[d]! > HEADER) this.send(d);
  }

  /** Waits until travelling bytes fall under the limit (arrivals are delivered meanwhile). */
  async advance(): Promise<void> {
    while (this.inFlight >= this.maxInFlight && this.sends.length > 0) await this.settleOldest();
    await this.comm.sleep(0);
    if (this.failure) throw this.failure;
  }

  /** Collective: flushes, then returns when every item sent to this rank has been delivered. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.flush();
    this.closing = true;
    if (this.timer !== undefined) this.comm.clock.cancel(this.timer);
    const ends: Request<void>[] = [];
    for (let d = 0; d < this.comm.size; d++) ends.push(this.comm.isend(this.sentTo[d]!, d, END));
    while (!this.complete()) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    for (const r of this.posted) r.cancel();
    this.posted.clear();
    while (this.sends.length > 0) await this.settleOldest();
    for (const r of ends) await r.wait();
    this.comm.free();
  }

  private complete(): boolean {
    if (this.endsSeen < this.comm.size) return false;
    for (let s = 0; s < this.comm.size; s++) if (this.receivedFrom[s] !== this.announced[s]) return false;
    return true;
  }

  private send(dest: number): void {
    const bytes = this.used[dest]!;
    const buffer = this.buffers[dest]!.subarray(0, bytes);
    new DataView(buffer.buffer, buffer.byteOffset, HEADER).setUint32(0, this.sentTo[dest]!, true);
    // The travelling buffer belongs to its send until it completes: the next items get a new one.
    this.buffers[dest] = undefined;
    this.used[dest] = 0;
    this.sentTo[dest]!++;
    this.inFlight += bytes;
    this.sends.push({ request: this.comm.isend(buffer, dest, DATA), bytes });
    if (this.sends.length > 64) this.reap();
  }

  /** Retires the sends that have completed, oldest first. */
  private reap(): void {
    while (this.sends.length > 0 && this.sends[0]!.request.test()) this.retire();
  }

  private retire(): void {
    const done = this.sends.shift()!;
    this.inFlight -= done.bytes;
  }

  /** Waits for the oldest send; the flush timer may retire it (reap) while this waits. */
  private async settleOldest(): Promise<void> {
    const oldest = this.sends[0]!;
    await oldest.request.wait();
    if (this.sends[0] === oldest) this.retire();
  }

  private post(): void {
    const request = this.comm.irecv<unknown>();
    this.posted.add(request);
    request.wait().then(
      (value) => {
        this.posted.delete(request);
        const status = request.status!;
        if (status.tag === END) {
          this.announced[status.source] = value as number;
          this.endsSeen++;
        } else {
          this.arrive(status.source, value as Uint8Array);
        }
        if (!this.complete()) this.post();
        this.wake?.();
      },
      (error: unknown) => {
        this.posted.delete(request);
        if (this.closing && this.complete()) return; // cancelled at the end
        this.failure = error instanceof Error ? error : new Error(String(error));
        this.wake?.();
      },
    );
  }

  /**
   * Buffers from one source are delivered in the order sent (their sequence numbers), whatever
   * the order in which their receives complete.
   */
  private arrive(source: number, buffer: Uint8Array): void {
    const seq = new DataView(buffer.buffer, buffer.byteOffset, HEADER).getUint32(0, true);
    if (seq !== this.receivedFrom[source]) {
      let stash = this.early.get(source);
      if (stash === undefined) this.early.set(source, (stash = new Map()));
      stash.set(seq, buffer);
      return;
    }
    this.deliver(source, buffer);
    this.receivedFrom[source]!++;
    const stash = this.early.get(source);
    let next: Uint8Array | undefined;
    while (stash !== undefined && (next = stash.get(this.receivedFrom[source]!)) !== undefined) {
      stash.delete(this.receivedFrom[source]!);
      this.deliver(source, next);
      this.receivedFrom[source]!++;
    }
  }

  private deliver(source: number, buffer: Uint8Array): void {
    let at = HEADER;
    const end = buffer.length;
    while (at < end) {
      const length = buffer[at]! | (buffer[at + 1]! << 8);
      const from = at + 2;
      if (length <= REUSED_ITEM_BYTES) {
        const item = this.itemViews[length]!;
        for (let i = 0; i < length; i++) item[i] = buffer[from + i]!;
        this.onItem(source, item);
      } else {
        this.onItem(source, buffer.subarray(from, from + length));
      }
      this.delivered++;
      at = from + length;
    }
  }

  private error(message: string, hint: string): TsmpiError {
    return new TsmpiError(ErrorCode.Arg, message, { rank: this.comm.rank, operation: 'conveyor', hint });
  }
}
