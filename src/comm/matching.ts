/**
 * Matching of one communication context: the posted-receive queue and the unexpected-message
 * queue. MPI's non-overtaking rule holds because frames from one peer arrive in order on its link
 * and both queues are searched front to back: a receive takes the earliest arrived message that
 * matches it, and an arriving message takes the earliest posted receive that matches it.
 */
import type { Link } from '../transport/link.js';
import { IndexQueue } from './index-queue.js';
import { Request, type RequestDriver } from './request.js';

import { ANY_SOURCE, ANY_TAG, PROC_NULL } from './wildcards.js';

export { ANY_SOURCE, ANY_TAG, PROC_NULL };

/**
 * A posted receive: the request the caller holds is the matching entry itself (one object per
 * receive). `peer` and `tag` are what it wants (ANY_SOURCE / ANY_TAG allowed).
 */
export class ReceiveRequest extends Request<unknown> {
  /** The caller's buffer for buffer receives; null for value receives. */
  readonly into: Uint8Array | null;
  /** Value receives only: yield the payload undecoded (kind and bytes). */
  readonly encoded: boolean;
  /** World rank this receive depends on: the wanted source, then the matched sender; -1 for any. */
  peerWorld: number;
  /** Order of posting in its context (which of two matching receives is earlier). */
  postSeq = 0;

  constructor(driver: RequestDriver, operation: string, source: number, tag: number, context: number, into: Uint8Array | null, encoded: boolean, sourceWorld = -1) {
    super(driver, operation, source, tag, context);
    this.into = into;
    this.encoded = encoded;
    this.peerWorld = sourceWorld;
  }
}

/**
 * A receive that matched a rendezvous announcement, while its bytes arrive (kept apart from the
 * request: most receives never need it, and every field on a request is allocated per receive).
 */
export interface RendezvousReceive {
  readonly request: ReceiveRequest;
  readonly source: number;
  readonly tag: number;
  readonly kind: number;
  readonly total: number;
  received: number;
  /** The request's own buffer, or one of ours for a value receive. */
  readonly dest: Uint8Array;
}

/** A pipelined eager message still arriving (its frames after the first are on their way). */
export interface IncomingMessage {
  readonly key: number;
  readonly source: number;
  readonly tag: number;
  readonly kind: number;
  readonly total: number;
  readonly peer: number;
  received: number;
  /** Where the bytes land: the matched receive's own buffer, or a buffer of ours. */
  dest: Uint8Array | null;
  /** True when `dest` is the matched receive's buffer (nothing left to copy at the end). */
  direct: boolean;
  /** The receive that takes it, once one matched. */
  receiver: ReceiveRequest | null;
  /** Its entry in the unexpected queue while no receive matched. */
  entry: UnexpectedMessage | null;
}

/** A message that arrived before its receive. */
export interface UnexpectedMessage {
  readonly source: number;
  readonly tag: number;
  readonly kind: number;
  /** Message bytes. */
  readonly bytes: number;
  /** The payload of an eager message; null for a rendezvous announcement. */
  data: Uint8Array | null;
  /** `data` lies in a buffer of the rank's scratch pool, given back once the message is delivered. */
  pooled?: boolean;
  /** `data` still lies in this link's frame, which the link keeps until the message is copied. */
  keptBy?: Link | undefined;
  /** World rank of the sender (where a CTS goes) and its request id. */
  readonly peer: number;
  readonly senderRequest: number;
  /** The sender's sequence number of the message to this rank (timelines pair sends and receives by it). */
  readonly sequence: number;
  /** Set while a pipelined eager message is still arriving into `data`. */
  incoming?: IncomingMessage | undefined;
  /** An announcement naming the sender's shared memory: the allocation's key and the message's offset in it. */
  pullKey?: number;
  pullOffset?: number;
}

function matches(wantSource: number, wantTag: number, source: number, tag: number): boolean {
  return (wantSource === ANY_SOURCE || wantSource === source) && (wantTag === ANY_TAG || wantTag === tag);
}

/**
 * Posted receives, one queue per wanted source plus one for ANY_SOURCE (as Open MPI's ob1 keeps
 * them): an arriving message looks at its source's queue and the wildcard queue only, and takes
 * whichever matching receive was posted first. One flat queue made every message scan the
 * receives of every other source: quadratic for a superstep with thousands of receives posted.
 */
export class PostedReceives {
  /** Indexed by comm rank (a Map's lookup was a tenth of a small receive's time, three per message). */
  private readonly bySource: (IndexQueue<ReceiveRequest> | undefined)[] = [];
  private readonly wildcard = new IndexQueue<ReceiveRequest>();
  private seq = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** True when a posted receive could take messages from comm rank `source` (ANY_SOURCE: from anyone). */
  pendingFrom(source: number): boolean {
    if (this.count === 0) return false;
    if (source === ANY_SOURCE || this.wildcard.length > 0) return true;
    return (this.bySource[source]?.length ?? 0) > 0;
  }

  push(request: ReceiveRequest): void {
    request.postSeq = ++this.seq;
    this.count++;
    if (request.peer === ANY_SOURCE) {
      this.wildcard.push(request);
      return;
    }
    let queue = this.bySource[request.peer];
    if (queue === undefined) this.bySource[request.peer] = queue = new IndexQueue();
    queue.push(request);
  }

  /** Removes and returns the earliest posted receive matching an arrived (source, tag). */
  take(source: number, tag: number): ReceiveRequest | undefined {
    const own = this.bySource[source];
    const a = own === undefined ? -1 : firstMatch(own, source, tag);
    const b = this.wildcard.length === 0 ? -1 : firstMatch(this.wildcard, source, tag);
    if (a < 0 && b < 0) return undefined;
    this.count--;
    if (b < 0 || (a >= 0 && own!.at(a).postSeq < this.wildcard.at(b).postSeq)) return own!.removeAt(a);
    return this.wildcard.removeAt(b);
  }

  /** Removes and returns every posted receive `test` accepts, in posting order. */
  removeWhere(test: (request: ReceiveRequest) => boolean): ReceiveRequest[] {
    const out: ReceiveRequest[] = [];
    for (const queue of [this.wildcard, ...this.bySource]) {
      if (queue === undefined) continue;
      for (let i = 0; i < queue.length; ) {
        if (test(queue.at(i))) out.push(queue.removeAt(i));
        else i++;
      }
    }
    this.count -= out.length;
    return out.sort((a, b) => a.postSeq - b.postSeq);
  }

  /** Removes a posted receive (cancellation); true when it was still posted. */
  remove(request: ReceiveRequest): boolean {
    const queue = request.peer === ANY_SOURCE ? this.wildcard : this.bySource[request.peer];
    const i = queue?.indexOf(request) ?? -1;
    if (i < 0) return false;
    queue!.removeAt(i);
    this.count--;
    return true;
  }
}

function firstMatch(queue: IndexQueue<ReceiveRequest>, source: number, tag: number): number {
  const n = queue.length;
  for (let i = 0; i < n; i++) {
    const p = queue.at(i);
    if (matches(p.peer, p.tag, source, tag)) return i;
  }
  return -1;
}

export class MatchQueues {
  readonly posted = new PostedReceives();
  readonly unexpected = new IndexQueue<UnexpectedMessage>();

  /** Removes and returns the earliest posted receive matching an arrived (source, tag). */
  takePosted(source: number, tag: number): ReceiveRequest | undefined {
    return this.posted.take(source, tag);
  }

  /** Index of the earliest unexpected message a receive for (source, tag) would take, or -1. */
  findUnexpected(source: number, tag: number): number {
    const unexpected = this.unexpected;
    const n = unexpected.length;
    for (let i = 0; i < n; i++) {
      const m = unexpected.at(i);
      if (matches(source, tag, m.source, m.tag)) return i;
    }
    return -1;
  }

  /** Removes and returns the unexpected message at `index`. */
  takeUnexpectedAt(index: number): UnexpectedMessage {
    return this.unexpected.removeAt(index);
  }

  /** Removes a posted receive (cancellation); true when it was still posted. */
  removePosted(request: Request<unknown>): boolean {
    return this.posted.remove(request as ReceiveRequest);
  }
}
