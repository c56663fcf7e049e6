/**
 * One collective call's view of its communicator: point-to-point on the communicator's
 * collective context with the call's own tag, so that collectives never match user messages and
 * two calls in flight never match each other's messages. Ranks are communicator ranks.
 */
import type { Settings } from '../../config/tunables.js';
import type { Encoded } from '../codec.js';
import type { Endpoint } from '../endpoint.js';
import type { Request, Status } from '../request.js';

export class CollectiveCall {
  readonly rank: number;
  readonly size: number;
  readonly operation: string;
  readonly settings: Settings;
  private readonly endpoint: Endpoint;
  private readonly context: number;
  private readonly group: Int32Array;
  private readonly tag: number;

  constructor(endpoint: Endpoint, context: number, group: Int32Array, rank: number, tag: number, operation: string, settings: Settings) {
    this.endpoint = endpoint;
    this.context = context;
    this.group = group;
    this.rank = rank;
    this.size = group.length;
    this.tag = tag;
    this.operation = operation;
    this.settings = settings;
  }

  send(value: unknown, dest: number): Request<void> {
    return this.endpoint.isend(this.context, this.group[dest]!, this.rank, this.tag, value, this.operation, dest);
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

  /** Sends to `dest` and receives from `source` at the same time. */
  async sendrecv<T>(value: unknown, dest: number, source: number): Promise<T> {
    const receive = this.recv<T>(source);
    const send = this.send(value, dest);
    const result = await receive.wait();
    await send.wait();
    return result;
  }

  /** Sends bytes to `dest` while receiving bytes from `source` into `into`. */
  async sendrecvBytes(bytes: Uint8Array, dest: number, into: Uint8Array, source: number): Promise<void> {
    const receive = this.recvInto(into, source);
    const send = this.send(bytes, dest);
    await receive.wait();
    await send.wait();
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
