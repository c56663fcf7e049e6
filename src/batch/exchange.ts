/**
 * `exchange(comm, sends)` (also `comm.exchange(sends)`): a superstep's point-to-point messages,
 * planned together (batch scheduling, docs/techniques.md section 2). Built on the communicator,
 * as the task pool is: nothing below knows of it.
 * Every rank of the communicator calls it with the messages it sends (destination, tag, payload)
 * and gets back every message sent to it, as if each had been sent and received one by one:
 * grouped by source in rank order, and in the sender's order within a source.
 *
 * The steps, on a private duplicate of the communicator (so no user message can match):
 * 1. planners that need them gather each rank's incoming bytes and degree (one allreduce);
 * 2. the planner (src/policy/batch/) cuts the batch into transfers;
 * 3. every rank learns how many transfers it will receive (one allreduce of a count vector, not
 *    an alltoall: P messages per rank per superstep);
 * 4. receives are posted, transfers are started in plan order (packing transfer k+1 while
 *    transfer k travels), and each packed transfer is unpacked as it lands.
 * Receives take any source, so consecutive calls alternate between two private communicators: a
 * fast rank's next superstep can never be taken for this one (two calls apart cannot overlap,
 * since a rank only starts call k + 2 after every rank has finished call k).
 * After each exchange the time it took on the rank's clock (virtual under the simulator) updates
 * the per-message cost and bandwidth the adaptive planner uses (policy/batch/transfer-costs.ts).
 *
 * Node pairs (`pipelined`, `adaptive`, when some node holds several ranks): the paper aggregates
 * the messages of a whole node pair, which takes two hops through forwarders, as Bale's 2-hop
 * conveyors do. Each rank bundles its messages per remote node and hands each bundle to the rank
 * of its own node that forwards to that node (local index B mod ranks on the node); that
 * forwarder merges the bundles of its node for node B, orders node pairs by the paper's rule and
 * sends them in windows that grow by alpha_AB (pipelined) or of the adaptive size, to the rank of
 * node B that receives from node A, which hands each message to its destination. Messages within
 * a node go straight in the first hop. One allreduce gives every rank the first-hop counts and
 * the node-pair volumes, degrees and window counts; every message carries its source and its
 * index in its source's batch, so the result keeps the order of sending one by one.
 */
import { decodeValue, encodeValue, type Encoded } from '../comm/codec.js';
import type { Communicator } from '../comm/communicator.js';
import { ANY_SOURCE } from '../comm/matching.js';
import { Op } from '../comm/ops.js';
import { waitAll, type Request } from '../comm/request.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { planBatch, reorderDestinations } from '../policy/batch/planners.js';
import { TransferCosts } from '../policy/batch/transfer-costs.js';
import type { PlannerName, PlannerOptions } from '../policy/batch/types.js';
import { pack, packRecords, RECORD_OVERHEAD, unpack, unpackRecords, type MessageRecord, type PackItem } from './pack.js';

/** One message of a batch. */
export interface Outgoing<T = unknown> {
  dest: number;
  tag: number;
  payload: T;
}

/** One message received by an exchange. */
export interface Incoming<T = unknown> {
  source: number;
  tag: number;
  payload: T;
}

export interface ExchangeOptions extends PlannerOptions {
  /** @default TSMPI_BATCH_PLANNER (pipelined) */
  planner?: PlannerName;
}

/** What a packed transfer travels with: the largest tag (user tags stay below it). */
export const PACK_TAG = 0x3fffffff;

/** A pair of private communicators, used by alternate calls. */
export interface ExchangeComms {
  /** A duplicate of the user's communicator. */
  comm: Communicator;
  /** The ranks of this rank's node, from `comm` (for node-pair aggregation). */
  nodeComm: Communicator;
}

export interface ExchangeHost {
  comms: readonly [ExchangeComms, ExchangeComms];
  /** Calls so far (which pair the next one uses). */
  calls: number;
  /** Node of each communicator rank. */
  nodeOf: ArrayLike<number>;
  costs: TransferCosts;
  defaultPlanner: PlannerName;
}

function argError(rank: number, message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { rank, operation: 'exchange', hint });
}

/** Each communicator's private pair of duplicates and learnt costs, made on its first exchange. */
const hosts = new WeakMap<Communicator, Promise<ExchangeHost>>();

function hostOf(comm: Communicator): Promise<ExchangeHost> {
  let host = hosts.get(comm);
  if (host === undefined) {
    host = (async () => {
      const nodeOf = Int32Array.from({ length: comm.size }, (_, r) => comm.nodeOf(r));
      const pair = async (): Promise<ExchangeComms> => {
        const dup = await comm.dup();
        return { comm: dup, nodeComm: (await dup.split(nodeOf[comm.rank]!, comm.rank))! };
      };
      const comms = [await pair(), await pair()] as const;
      return { comms, calls: 0, nodeOf, costs: new TransferCosts(), defaultPlanner: comm.settings.batchPlanner };
    })();
    hosts.set(comm, host);
  }
  return host;
}

/**
 * Collective: a superstep's point-to-point messages, planned together. Each rank passes the
 * messages it sends and gets back every message sent to it (grouped by source in rank order, in
 * the sender's order within a source), exactly as if each had been sent alone. The planner
 * (option `planner`, default TSMPI_BATCH_PLANNER) reorders and aggregates them: `direct`,
 * `reorder`, `aggregate`, `pipelined` (the paper's growing windows) or `adaptive`.
 * @example
 * ```ts
 * const got = await exchange(comm, [{ dest: (comm.rank + 1) % comm.size, tag: 0, payload: halo }]);
 * ```
 */
export async function exchange<T = unknown>(comm: Communicator, sends: readonly Outgoing[], options: ExchangeOptions = {}): Promise<Incoming<T>[]> {
  if (!Array.isArray(sends)) {
    throw new TsmpiError(ErrorCode.Type, 'exchange() takes an array of { dest, tag, payload }', { rank: comm.worldRankOf(comm.rank), operation: 'exchange', hint: 'pass an array (empty when this rank sends nothing)' });
  }
  return run<T>(await hostOf(comm), sends, options);
}

async function run<T>(host: ExchangeHost, sends: readonly Outgoing[], options: ExchangeOptions): Promise<Incoming<T>[]> {
  const comms = host.comms[host.calls++ & 1]!;
  const { rank, size } = comms.comm;
  const planner = options.planner ?? host.defaultPlanner;
  const encoded = sends.map((m, i) => {
    if (!Number.isInteger(m.dest) || m.dest < 0 || m.dest >= size) throw argError(rank, `message ${i} goes to rank ${String(m.dest)}, outside a communicator of ${size}`, `use a destination from 0 to ${size - 1}`);
    if (!Number.isInteger(m.tag) || m.tag < 0 || m.tag >= PACK_TAG) throw argError(rank, `message ${i} has tag ${String(m.tag)}`, `use a tag from 0 to ${PACK_TAG - 1}`);
    return encodeValue(m.payload, rank, 'exchange');
  });
  const nodes = new Set(Array.from(host.nodeOf));
  if ((planner === 'pipelined' || planner === 'adaptive') && nodes.size > 1 && nodes.size < size) return nodePairExchange<T>(host, comms, sends, encoded, planner);
  return peerExchange<T>(host, comms.comm, sends, encoded, planner, options);
}

/** Aggregation per process pair (and the unaggregated planners). */
async function peerExchange<T>(host: ExchangeHost, comm: Communicator, sends: readonly Outgoing[], encoded: readonly Encoded[], planner: PlannerName, options: PlannerOptions): Promise<Incoming<T>[]> {
  const { rank, size } = comm;
  const started = comm.clock.now();
  const messages = sends.map((m, i) => ({ dest: m.dest, bytes: encoded[i]!.bytes.length }));

  let inBytes: Float64Array | undefined;
  let inDegree: Float64Array | undefined;
  // `reorder` sends one transfer per message: its receive counts ride on the same allreduce.
  let expected: number | undefined;
  if (planner !== 'direct' && planner !== 'aggregate') {
    const mine = new Float64Array(3 * size);
    for (const m of messages) {
      mine[m.dest] = mine[m.dest]! + m.bytes;
      mine[size + m.dest] = 1;
      mine[2 * size + m.dest]!++;
    }
    const all = await comm.allreduce(mine, Op.sum);
    inBytes = all.subarray(0, size);
    inDegree = all.subarray(size, 2 * size);
    if (planner === 'reorder') expected = all[2 * size + rank]!;
  }
  const plan = planBatch(
    planner,
    {
      rank,
      size,
      messages,
      nodeOf: host.nodeOf,
      ...(inBytes ? { inBytes } : {}),
      ...(inDegree ? { inDegree } : {}),
      costs: { perMessage: host.costs.perMessage, bandwidth: host.costs.bandwidth },
    },
    options,
  );
  if (expected === undefined) {
    const counts = new Float64Array(size);
    for (const t of plan) counts[t.dest]!++;
    expected = (await comm.allreduce(counts, Op.sum))[rank]!;
  }

  // Receives first (from any source: one source's transfers still match in the order sent), then the sends.
  const receives: Request<unknown>[] = [];
  for (let k = 0; k < expected; k++) receives.push(comm.irecv(ANY_SOURCE));
  const sendRequests: Request<void>[] = [];
  let sentBytes = 0;
  for (const t of plan) {
    if (!t.packed) {
      const i = t.items[0]!;
      sendRequests.push(comm.isend(sends[i]!.payload, t.dest, sends[i]!.tag));
      sentBytes += encoded[i]!.bytes.length;
    } else {
      const buffer = pack(t.items.map((i): PackItem => ({ tag: sends[i]!.tag, encoded: encoded[i]! })));
      sentBytes += buffer.length;
      sendRequests.push(comm.isend(buffer, t.dest, PACK_TAG));
    }
  }

  // Unpack each transfer as it lands, in receive order (one waiter at a time: thousands of
  // concurrent waiters would make every progress step scan them all).
  const bySource: Incoming<T>[][] = Array.from({ length: size }, () => []);
  for (let i = 0; i < receives.length; i++) {
    const r = receives[i]!;
    // Completed receives are taken without an await; the first pending one is waited for.
    if (!r.done) await waitAll(receives.slice(i, Math.min(receives.length, i + 256)));
    if (r.error !== undefined) throw r.error;
    const { source, tag } = r.status!;
    const list = bySource[source]!;
    if (tag === PACK_TAG) unpack(r.result as Uint8Array, (t, payload) => list.push({ source, tag: t, payload: payload as T }));
    else list.push({ source, tag, payload: r.result as T });
  }
  for (const request of sendRequests) await request.wait();
  host.costs.observe(plan.length, sentBytes, comm.clock.now() - started);
  return bySource.flat();
}

/**
 * Sends byte bundles on `comm` with `tag` and receives the `expected` bundles with that tag sent
 * to this rank (the hops of node-pair aggregation, each with its own tag so that a fast rank's
 * later hop is never taken for an earlier one), by source and in the order sent.
 */
async function transferAll(comm: Communicator, tag: number, sends: readonly { dest: number; payload: Uint8Array }[], expected: number): Promise<{ source: number; payload: Uint8Array }[]> {
  const receives: Request<unknown>[] = [];
  for (let k = 0; k < expected; k++) receives.push(comm.irecv(ANY_SOURCE, tag));
  const sent = sends.map((m) => comm.isend(m.payload, m.dest, tag));
  const values = await waitAll(receives);
  const out = values.map((payload, i) => ({ source: receives[i]!.status!.source, payload: payload as Uint8Array }));
  await waitAll(sent);
  // Stable: bundles of one source keep their arrival (= sending) order.
  return out.sort((a, b) => a.source - b.source);
}

/** Records per window of a node pair: the same on every rank (receivers count windows from it). */
function recordsPerWindow(planner: PlannerName, records: number, bytes: number, alpha: number, costs: { perMessage: number; bandwidth: number }): (k: number) => number {
  if (planner === 'pipelined') return (k) => Math.max(1, Math.floor(alpha ** k));
  const window = Math.max(1, Math.sqrt(bytes * costs.perMessage * costs.bandwidth));
  const per = Math.max(1, Math.round((records * window) / Math.max(bytes, 1)));
  return () => per;
}

function windowCount(records: number, per: (k: number) => number): number {
  let n = 0;
  for (let at = 0; at < records; n++) at += per(n);
  return n;
}

const HOP1 = 1;
const HOP2 = 2;
const HOP3 = 3;

async function nodePairExchange<T>(host: ExchangeHost, comms: ExchangeComms, sends: readonly Outgoing[], encoded: readonly Encoded[], planner: PlannerName): Promise<Incoming<T>[]> {
  const { comm, nodeComm } = comms;
  const { nodeOf } = host;
  const { rank, size } = comm;
  const started = comm.clock.now();
  const myNode = nodeOf[rank]!;
  const ranksOf = new Map<number, number[]>();
  for (let r = 0; r < size; r++) {
    const list = ranksOf.get(nodeOf[r]!);
    if (list) list.push(r);
    else ranksOf.set(nodeOf[r]!, [r]);
  }
  const localIndex = new Int32Array(size);
  for (const list of ranksOf.values()) list.forEach((r, i) => (localIndex[r] = i));
  const mine = ranksOf.get(myNode)!;
  const senderFor = (b: number): number => mine[b % mine.length]!;
  const receiverOn = (b: number, a: number): number => {
    const list = ranksOf.get(b)!;
    return list[a % list.length]!;
  };
  const nodeCount = Math.max(...ranksOf.keys()) + 1;

  // This rank's messages: one bundle per local destination and per remote node (to its forwarder).
  const bundlesTo = new Map<number, MessageRecord[]>();
  const remote = new Map<number, MessageRecord[]>();
  sends.forEach((m, index) => {
    const record: MessageRecord = { source: rank, index, dest: m.dest, tag: m.tag, kind: encoded[index]!.kind, bytes: encoded[index]!.bytes };
    const node = nodeOf[m.dest]!;
    const via = node === myNode ? m.dest : senderFor(node);
    let list = bundlesTo.get(via);
    if (list === undefined) bundlesTo.set(via, (list = []));
    list.push(record);
    if (node !== myNode) {
      let r = remote.get(node);
      if (r === undefined) remote.set(node, (r = []));
      r.push(record);
    }
  });

  // One allreduce tells every rank all it needs: the first-hop bundles each rank receives, the
  // bytes and messages of every node pair (degrees, the paper's order, window counts), and the
  // mean measured costs (so every rank sizes the adaptive windows alike).
  const n2 = nodeCount * nodeCount;
  const summary = new Float64Array(size + 2 * n2 + 2);
  for (const via of bundlesTo.keys()) summary[via]!++;
  for (const [node, records] of remote) {
    summary[size + myNode * nodeCount + node] += records.reduce((n, r) => n + r.bytes.length + RECORD_OVERHEAD, 0);
    summary[size + n2 + myNode * nodeCount + node] += records.length;
  }
  summary[size + 2 * n2] = host.costs.perMessage;
  summary[size + 2 * n2 + 1] = host.costs.bandwidth;
  const all = await comm.allreduce(summary, Op.sum);
  const bytesOf = (a: number, b: number): number => all[size + a * nodeCount + b]!;
  const recordsOf = (a: number, b: number): number => all[size + n2 + a * nodeCount + b]!;
  const degree = (a: number, out: boolean): number => {
    let n = 0;
    for (let x = 0; x < nodeCount; x++) if ((out ? recordsOf(a, x) : recordsOf(x, a)) > 0) n++;
    return n;
  };
  const alphaOf = (a: number, b: number): number => 1.5 + Math.log2(Math.max(1, degree(a, true), degree(b, false)));
  const agreed = { perMessage: all[size + 2 * n2]! / size, bandwidth: all[size + 2 * n2 + 1]! / size };
  const windowsOf = (a: number, b: number): ((k: number) => number) => recordsPerWindow(planner, recordsOf(a, b), bytesOf(a, b), alphaOf(a, b), agreed);

  // Hop 1, inside the node: messages for this node's ranks arrive; the others wait to be forwarded.
  const finals: MessageRecord[] = [];
  const toForward = new Map<number, MessageRecord[]>();
  const hop1 = [...bundlesTo].map(([via, records]) => ({ dest: localIndex[via]!, payload: packRecords(records) }));
  for (const m of await transferAll(nodeComm, HOP1, hop1, all[rank]!)) {
    const records: MessageRecord[] = [];
    unpackRecords(m.payload, records);
    for (const r of records) {
      const node = nodeOf[r.dest]!;
      if (node === myNode) finals.push(r);
      else {
        let list = toForward.get(node);
        if (list === undefined) toForward.set(node, (list = []));
        list.push(r);
      }
    }
  }

  // Hop 2, between nodes: node pairs in the paper's order, each in growing (or adaptive) windows.
  const groups = new Map<number, number[]>();
  const nodeMessages = [...toForward.keys()].map((node) => ({ dest: node, bytes: bytesOf(myNode, node) }));
  nodeMessages.forEach((m, i) => groups.set(m.dest, [i]));
  const nodeIds = Array.from({ length: nodeCount }, (_, i) => i);
  const inBytes = nodeIds.map((b) => nodeIds.reduce((n, a) => n + bytesOf(a, b), 0));
  const order = reorderDestinations({ rank: myNode, size: nodeCount, messages: nodeMessages, nodeOf: nodeIds, inBytes }, groups);
  const hop2: { dest: number; payload: Uint8Array }[] = [];
  for (const node of order) {
    const records = toForward.get(node)!;
    const per = windowsOf(myNode, node);
    for (let at = 0, k = 0; at < records.length; k++) {
      const end = Math.min(records.length, at + per(k));
      hop2.push({ dest: receiverOn(node, myNode), payload: packRecords(records.slice(at, end)) });
      at = end;
    }
  }
  let expected2 = 0;
  const feeding = new Set<number>();
  for (let a = 0; a < nodeCount; a++) {
    if (a === myNode || recordsOf(a, myNode) === 0) continue;
    if (receiverOn(myNode, a) === rank) expected2 += windowCount(recordsOf(a, myNode), windowsOf(a, myNode));
    feeding.add(receiverOn(myNode, a));
  }
  const arrived: MessageRecord[] = [];
  for (const m of await transferAll(comm, HOP2, hop2, expected2)) unpackRecords(m.payload, arrived);

  // Hop 3, inside the node: every receiving forwarder sends one bundle (maybe empty) to every rank of the node.
  const hop3: { dest: number; payload: Uint8Array }[] = [];
  if (feeding.has(rank)) {
    const byDest = new Map<number, MessageRecord[]>(mine.map((r) => [r, []]));
    for (const r of arrived) byDest.get(r.dest)!.push(r);
    for (const [dest, records] of byDest) hop3.push({ dest: localIndex[dest]!, payload: packRecords(records) });
  }
  for (const m of await transferAll(nodeComm, HOP3, hop3, feeding.size)) unpackRecords(m.payload, finals);

  finals.sort((a, b) => a.source - b.source || a.index - b.index);
  host.costs.observe(hop2.length, hop2.reduce((n, m) => n + m.payload.length, 0), comm.clock.now() - started);
  return finals.map((r) => ({ source: r.source, tag: r.tag, payload: decodeValue(r.kind, r.bytes, 0, r.bytes.length) as T }));
}
