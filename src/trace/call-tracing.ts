/**
 * Call slices for the timeline, interposed as MPI's profiling interface (PMPI) interposes its
 * wrappers: when a rank traces, the communicator's and requests' public calls are wrapped once
 * per thread, so a run without `--trace` runs the unwrapped methods and pays nothing. A wrapped
 * call opens a slice named after it (with its communicator, peer and tag) and closes it when it
 * returns (a nonblocking post) or its promise settles (a blocking call); what it calls itself
 * during its synchronous part is not traced again (a blocking send's isend and wait).
 */
import { Communicator } from '../comm/communicator.js';
import { Request } from '../comm/request.js';
import { CartCommunicator } from '../comm/topology/cart-communicator.js';
import { DistGraphCommunicator } from '../comm/topology/dist-graph-communicator.js';
import { fileURLToPath } from 'node:url';
import type { RankTrace } from './rank-trace.js';

/** How a traced method is read: where its peer and tag are among the arguments (-1: none). */
interface CallShape {
  readonly peer: number;
  readonly tag: number;
  /** The tag when the program leaves it out (sends: 0). */
  readonly defaultTag?: number;
}

const p2p = (peer: number, tag: number): CallShape => ({ peer, tag });
const sendShape = (peer: number, tag: number): CallShape => ({ peer, tag, defaultTag: 0 });
const none: CallShape = { peer: -1, tag: -1 };
const rooted = (root: number): CallShape => ({ peer: root, tag: -1 });

/** Calls that return a promise: their slice lasts until it settles. */
const BLOCKING: Record<string, CallShape> = {
  send: sendShape(1, 2),
  ssend: sendShape(1, 2),
  rsend: sendShape(1, 2),
  bsend: sendShape(1, 2),
  recv: p2p(0, 1),
  recvInto: p2p(1, 2),
  sendrecv: sendShape(1, 3),
  sendrecvReplace: sendShape(1, 3),
  sendrecvInto: sendShape(1, 4),
  probe: p2p(0, 1),
  mprobe: p2p(0, 1),
  barrier: none,
  bcast: rooted(1),
  bcastInto: rooted(1),
  reduce: rooted(2),
  allreduce: none,
  scan: none,
  exscan: none,
  gather: rooted(1),
  gatherv: rooted(1),
  scatter: rooted(1),
  scatterv: rooted(2),
  allgather: none,
  allgatherv: none,
  alltoall: none,
  alltoallv: none,
  reduceScatter: none,
  reduceScatterBlock: none,
  split: none,
  dup: none,
  create: none,
  createGroup: none,
  splitType: none,
  createCart: none,
  createDistGraph: none,
  createDistGraphAdjacent: none,
  sleep: none,
  compute: none,
  computeFlops: none,
  detachBuffer: none,
  flushBuffer: none,
};

/** Calls of the topology communicators (their own methods, not inherited). */
const TOPOLOGY: Record<string, CallShape> = {
  sub: none,
  dup: none,
  neighborAllgather: none,
  neighborAlltoall: none,
  neighborAllgatherv: none,
  neighborAlltoallv: none,
};

/** Calls that return a request at once: a slice of their own (short) duration. */
const POSTS: Record<string, CallShape> = {
  isend: sendShape(1, 2),
  issend: sendShape(1, 2),
  irsend: sendShape(1, 2),
  ibsend: sendShape(1, 2),
  irecv: p2p(0, 1),
  irecvInto: p2p(1, 2),
  ibarrier: none,
  ibcast: rooted(1),
  ibcastInto: rooted(1),
  ireduce: rooted(2),
  iallreduce: none,
  iscan: none,
  iexscan: none,
  igather: rooted(1),
  igatherv: rooted(1),
  iscatter: rooted(1),
  iscatterv: rooted(2),
  iallgather: none,
  iallgatherv: none,
  ialltoall: none,
  ialltoallv: none,
  ireduceScatter: none,
  ireduceScatterBlock: none,
  idup: none,
};

/**
 * The public calls of the communicators and requests, by kind: blocking (return a promise),
 * posts (return a request at once) and the topology communicators' own blocking calls. The
 * simulator's call meter wraps the same calls.
 */
export function communicationCalls(): { blocking: readonly string[]; posts: readonly string[]; topology: readonly string[] } {
  return { blocking: Object.keys(BLOCKING), posts: Object.keys(POSTS), topology: Object.keys(TOPOLOGY) };
}

type Method = (this: unknown, a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown, f?: unknown) => unknown;

let installed = false;

/** tsmpi's own code (the bundle and the sources): frames there are not the program's call site. */
const HERE = fileURLToPath(import.meta.url);
const TSMPI_ROOT = HERE.slice(0, Math.max(HERE.lastIndexOf('/dist/'), HERE.lastIndexOf('/src/')));
const OWN_CODE = [`${TSMPI_ROOT}/dist/`, `${TSMPI_ROOT}/src/`];
const FRAME = /\(?((?:file:\/\/)?\/[^()\s]+):(\d+):(\d+)\)?$/;

/**
 * The frames that may be the program's call into tsmpi (`file:line:column` of the compiled code,
 * innermost first, one per line): a compiled program may carry tsmpi inside it, so which frame is
 * the program's own is only known once they are mapped to sources (mapProfileSites).
 */
export function captureSite(): string {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder);
  const lines = (holder.stack ?? '').split('\n');
  const out: string[] = [];
  for (let i = 1; i < lines.length && out.length < 6; i++) {
    const m = FRAME.exec(lines[i]!.trim());
    if (m === null) continue;
    const path = m[1]!.replace(/^file:\/\//, '');
    if (OWN_CODE.some((own) => path.startsWith(own))) continue;
    out.push(`${m[1]}:${m[2]}:${m[3]}`);
  }
  return out.join('\n');
}

/** True for a source path of tsmpi itself (not the program's). */
export function isOwnSource(path: string): boolean {
  const plain = path.replace(/^file:\/\//, '');
  return OWN_CODE.some((own) => plain.startsWith(own));
}

function argument(index: number, absent: number, a: unknown, b: unknown, c: unknown, d: unknown): number {
  const value = index === 0 ? a : index === 1 ? b : index === 2 ? c : index === 3 ? d : undefined;
  return typeof value === 'number' ? value : absent;
}

/** Ends a slice when a call's promise settles (one closure, no promise of its own kept). */
function endWhenSettled(trace: RankTrace, id: number, promise: Promise<unknown>): void {
  const end = (): void => trace.end(id);
  promise.then(end, end);
}


/**
 * Wraps the calls of `shapes` that `proto` has as its own methods: a blocking call's slice lasts
 * until its promise settles, a post's (it returns a request at once) until it returns.
 */
function wrap(proto: Record<string, Method>, shapes: Record<string, CallShape>, blocking: boolean): void {
  for (const [name, shape] of Object.entries(shapes)) {
    if (!Object.prototype.hasOwnProperty.call(proto, name)) continue;
    const original = proto[name];
    if (typeof original !== 'function') continue;
    const absentTag = shape.defaultTag ?? -1;
    // Fixed arity (no rest array): every traced method takes at most six arguments, and an
    // absent one passed as undefined takes its default as before.
    proto[name] = function (this: unknown, a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown, f?: unknown): unknown {
      const comm = this as Communicator;
      const trace = comm.tracer;
      if (trace === undefined || trace.mute > 0) return original.call(this, a, b, c, d, e, f);
      const id = trace.begin(name, comm.name, argument(shape.peer, -1, a, b, c, d), argument(shape.tag, absentTag, a, b, c, d), trace.profile !== undefined ? captureSite() : '');
      trace.mute++;
      let result: unknown;
      try {
        result = original.call(this, a, b, c, d, e, f);
      } catch (error) {
        trace.end(id);
        throw error;
      } finally {
        trace.mute--;
      }
      if (blocking) endWhenSettled(trace, id, result as Promise<unknown>);
      else trace.end(id);
      return result;
    };
  }
}

/** Wraps the traced calls of Communicator and Request (once per thread; idempotent). */
export function installCallTracing(): void {
  if (installed) return;
  installed = true;
  const proto = Communicator.prototype as unknown as Record<string, Method>;
  wrap(proto, BLOCKING, true);
  wrap(proto, POSTS, false);
  for (const topology of [CartCommunicator.prototype, DistGraphCommunicator.prototype]) wrap(topology as unknown as Record<string, Method>, TOPOLOGY, true);
  const requestProto = Request.prototype as unknown as Record<string, Method>;
  const wait = requestProto.wait!;
  requestProto.wait = function (this: unknown): unknown {
    const request = this as Request<unknown>;
    const trace = request.driver.tracer;
    if (trace === undefined || trace.mute > 0) return wait.call(this);
    const id = trace.begin(`wait ${request.operation}`, '', request.peer, request.tag, trace.profile !== undefined ? captureSite() : '');
    const promise = wait.call(this) as Promise<unknown>;
    endWhenSettled(trace, id, promise);
    return promise;
  };
}
