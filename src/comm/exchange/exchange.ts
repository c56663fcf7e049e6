/**
 * `comm.exchange(sends)`: a superstep's point-to-point messages, planned together (seed 2).
 * Every rank of the communicator calls it with the messages it sends (destination, tag, payload)
 * and gets back every message sent to it, as if each had been sent and received one by one:
 * grouped by source in rank order, and in the sender's order within a source.
 *
 * The steps, on a private duplicate of the communicator (so no user message can match):
 * 1. planners that need them gather each rank's incoming bytes and degree (one allreduce);
 * 2. the planner (src/policy/batch/) cuts the batch into transfers;
 * 3. every rank learns how many transfers each source will send it (one alltoall);
 * 4. receives are posted, transfers are started in plan order (packing transfer k+1 while
 *    transfer k travels), and each packed transfer is unpacked as soon as it lands.
 * After each exchange the measured time updates the per-message cost and bandwidth the
 * adaptive planner uses (a least-squares fit of time = transfers * o + bytes / B).
 */
import { planBatch } from '../../policy/batch/planners.js';
import type { PlannerName, PlannerOptions } from '../../policy/batch/types.js';
import { encodeValue } from '../codec.js';
import { Op } from '../ops.js';
import type { Communicator } from '../communicator.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { waitAny, type Request } from '../request.js';
import { pack, unpack, type PackItem } from './pack.js';

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

/** The measured cost of a transfer, fitted over past exchanges (adaptive planner). */
export class TransferCosts {
  /** Sums for the least-squares fit of seconds = n * o + bytes / B (with forgetting). */
  private snn = 0;
  private snb = 0;
  private sbb = 0;
  private snt = 0;
  private sbt = 0;
  perMessage = 20e-6;
  bandwidth = 1e9;

  observe(transfers: number, bytes: number, seconds: number): void {
    const f = 0.8;
    this.snn = f * this.snn + transfers * transfers;
    this.snb = f * this.snb + transfers * bytes;
    this.sbb = f * this.sbb + bytes * bytes;
    this.snt = f * this.snt + transfers * seconds;
    this.sbt = f * this.sbt + bytes * seconds;
    const det = this.snn * this.sbb - this.snb * this.snb;
    if (Math.abs(det) < 1e-9 * this.snn * this.sbb) {
      // One kind of observation so far: attribute the time to messages at the current bandwidth.
      if (transfers > 0) this.perMessage = Math.max(1e-7, (seconds - bytes / this.bandwidth) / transfers);
      return;
    }
    const o = (this.snt * this.sbb - this.sbt * this.snb) / det;
    const inv = (this.snn * this.sbt - this.snb * this.snt) / det;
    if (o > 0) this.perMessage = o;
    if (inv > 0) this.bandwidth = 1 / inv;
  }
}

export interface ExchangeHost {
  /** The private communicator the exchange runs on. */
  comm: Communicator;
  /** Node of each communicator rank. */
  nodeOf: ArrayLike<number>;
  costs: TransferCosts;
  defaultPlanner: PlannerName;
}

function argError(rank: number, message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { rank, operation: 'exchange', hint });
}

export async function exchange<T = unknown>(host: ExchangeHost, sends: readonly Outgoing[], options: ExchangeOptions = {}): Promise<Incoming<T>[]> {
  const { comm } = host;
  const { rank, size } = comm;
  const planner = options.planner ?? host.defaultPlanner;
  const encoded = sends.map((m, i) => {
    if (!Number.isInteger(m.dest) || m.dest < 0 || m.dest >= size) throw argError(rank, `message ${i} goes to rank ${String(m.dest)}, outside a communicator of ${size}`, `use a destination from 0 to ${size - 1}`);
    if (!Number.isInteger(m.tag) || m.tag < 0 || m.tag >= PACK_TAG) throw argError(rank, `message ${i} has tag ${String(m.tag)}`, `use a tag from 0 to ${PACK_TAG - 1}`);
    return encodeValue(m.payload, rank, 'exchange');
  });
  const started = performance.now();
  const messages = sends.map((m, i) => ({ dest: m.dest, bytes: encoded[i]!.bytes.length }));

  let inBytes: Float64Array | undefined;
  let inDegree: Float64Array | undefined;
  if (planner !== 'direct' && planner !== 'aggregate') {
    const mine = new Float64Array(2 * size);
    for (const m of messages) {
      mine[m.dest] = mine[m.dest]! + m.bytes;
      mine[size + m.dest] = 1;
    }
    const all = await comm.allreduce(mine, Op.sum);
    inBytes = all.subarray(0, size);
    inDegree = all.subarray(size);
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
  const counts = new Array<number>(size).fill(0);
  for (const t of plan) counts[t.dest]!++;
  const expected = await comm.alltoall(counts);

  // Receives first (one per expected transfer, in source order), then the sends.
  const receives: Request<unknown>[] = [];
  const sourceOf: number[] = [];
  for (let s = 0; s < size; s++) {
    for (let k = 0; k < expected[s]!; k++) {
      receives.push(comm.irecv(s));
      sourceOf.push(s);
    }
  }
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

  // Unpack each transfer as it lands; transfers from one source arrive in the order sent.
  const bySource: Incoming<T>[][] = Array.from({ length: size }, () => []);
  const arrived: (Incoming<T>[] | undefined)[] = new Array(receives.length);
  const pending = receives.map((r, i) => ({ r, i }));
  while (pending.length > 0) {
    const { index, value } = await waitAny(pending.map((p) => p.r));
    const { r, i } = pending[index]!;
    pending.splice(index, 1);
    const source = sourceOf[i]!;
    const tag = r.status!.tag;
    const items: Incoming<T>[] = [];
    if (tag === PACK_TAG) unpack(value as Uint8Array, (t, payload) => items.push({ source, tag: t, payload: payload as T }));
    else items.push({ source, tag, payload: value as T });
    arrived[i] = items;
  }
  for (let i = 0; i < receives.length; i++) bySource[sourceOf[i]!]!.push(...arrived[i]!);
  for (const request of sendRequests) await request.wait();
  host.costs.observe(plan.length, sentBytes, (performance.now() - started) / 1000);
  return bySource.flat();
}
