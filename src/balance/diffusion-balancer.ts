/**
 * The runtime driver of random-diffusion load balancing (seed 3,
 * docs/techniques.md §3) for iterative programs whose tasks can move between ranks. After each interval a
 * rank hands over its task queue and the seconds it spent running it; `rebalance` (collective):
 *
 *   1. measures the rank's speed (work units per busy second) and predicts the next interval's
 *      with the speed model (`learned`: the seed's maximum-likelihood state transitions; `last`:
 *      the last interval predicts the next);
 *   2. one allreduce of (load, predicted speed, load / speed): each rank's capacity-weighted target,
 *      and a quick exit when the worst rank is within `tolerance` of the ideal;
 *   3. gossip (policy/balance/gossip.ts): underloaded ranks advertise their deficits, and for
 *      `rounds` rounds every rank that learned something forwards all it knows to `fanout` random
 *      ranks (one exchange per round);
 *   4. each overloaded rank splits its excess over the receivers it heard of, in proportion to
 *      their deficits (its row of the random migration matrix), and moves tasks from the TAIL of
 *      its queue (one more exchange). Arrivals go to the tail of the receiver's queue.
 *
 * The policy is pure (src/policy/balance/); this file only moves its inputs and outputs, so the
 * simulator runs the same code (a program using the balancer runs unchanged under `tsmpi sim`).
 */
import type { Communicator } from '../comm/communicator.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { Op } from '../comm/ops.js';
import { exchange, type Outgoing } from '../batch/exchange.js';
import { defaultGossipRounds, gossipRng, GossipKnowledge, type GossipRecord } from '../policy/balance/gossip.js';
import { advertisedRecord, defaultThreshold, senderRow, takeFromTail } from '../policy/balance/migration.js';
import { createSpeedModel, type SpeedModel, type SpeedModelName } from '../policy/balance/speed-model.js';
import type { Rng } from '../rng.js';

export interface DiffusionOptions<T> {
  /** The work a task represents, in any unit (seconds on an unloaded rank, cells, particles). */
  cost: (task: T) => number;
  /** Speed model (default `learned`). */
  model?: SpeedModelName;
  /** Peers each informed rank forwards to per round (default 2). */
  fanout?: number;
  /** Gossip rounds (default ceil(log2 P) + 2). */
  rounds?: number;
  /** No balancing while the worst rank's predicted time is within this fraction of the ideal (default 0.05). */
  tolerance?: number;
  /** Seed of the gossip peers' choice (default 1; every rank derives its own stream). */
  seed?: number;
  /** Tag of the balancer's messages (its exchanges use a private communicator; default 0). */
  tag?: number;
}

/** What one rebalance did, on this rank. */
export interface RebalanceStep<T> {
  /** The queue to run next: the tasks kept (head order) and then those received. */
  readonly queue: T[];
  /** Tasks this rank sent away and received. */
  readonly sent: number;
  readonly received: number;
  /** Speed measured over the last interval and predicted for the next (work units per second). */
  readonly measuredSpeed: number;
  readonly predictedSpeed: number;
  /** Worst predicted finish time over the ideal, before the migration (1 = balanced). */
  readonly imbalance: number;
  /** False when the quick exit skipped gossip and migration. */
  readonly balanced: boolean;
  /** Receivers this rank heard of through the gossip (itself included when it advertised). */
  readonly receiversKnown: number;
  /** Whether this rank advertised a deficit, and the gossip messages it sent. */
  readonly advertised: boolean;
  readonly gossipMessages: number;
}

export class DiffusionBalancer<T> {
  private readonly model: SpeedModel;
  private readonly fanout: number;
  private readonly rounds: number;
  private readonly tolerance: number;
  private readonly seed: number;
  private readonly tag: number;
  /** The balancer's own communicator (its exchanges never meet the program's messages). */
  private balancerComm: Communicator | undefined;
  private readonly rng: Rng;

  constructor(
    private readonly comm: Communicator,
    private readonly options: DiffusionOptions<T>,
  ) {
    const fail = (what: string, hint: string): TsmpiError => new TsmpiError(ErrorCode.Arg, what, { rank: comm.rank, operation: 'DiffusionBalancer', hint });
    if (typeof options.cost !== 'function') throw fail('cost is not a function', 'pass cost: (task) => work units');
    this.model = createSpeedModel(options.model ?? 'learned');
    this.fanout = options.fanout ?? 2;
    if (!Number.isInteger(this.fanout) || this.fanout < 1) throw fail(`fanout ${String(options.fanout)} is not an integer >= 1`, 'use 2 (GrapevineLB) or more');
    this.rounds = options.rounds ?? defaultGossipRounds(comm.size);
    if (!Number.isInteger(this.rounds) || this.rounds < 1) throw fail(`rounds ${String(options.rounds)} is not an integer >= 1`, 'leave it unset for ceil(log2 P) + 2');
    this.tolerance = options.tolerance ?? 0.05;
    if (!(this.tolerance >= 0)) throw fail(`tolerance ${String(options.tolerance)} is not a number >= 0`, 'use e.g. 0.05');
    this.seed = options.seed ?? 1;
    this.tag = options.tag ?? 0;
    this.rng = gossipRng(this.seed, comm.rank);
  }

  /**
   * Balances after an interval (collective). `queue` is the rank's tasks, as just run; `busySeconds`
   * the time it spent running them (not waiting): the speed measured is their cost over that time,
   * so a rank slowed by other people's jobs looks slow whatever its task count.
   */
  async rebalance(queue: readonly T[], busySeconds: number): Promise<RebalanceStep<T>> {
    const comm = this.comm;
    if (!(busySeconds >= 0)) throw new TsmpiError(ErrorCode.Arg, `busySeconds ${String(busySeconds)} is not a number >= 0`, { rank: comm.rank, operation: 'DiffusionBalancer.rebalance', hint: 'pass the seconds the rank spent running its queue' });
    this.balancerComm ??= await comm.dup();
    const pcomm = this.balancerComm;
    const cost = this.options.cost;
    let load = 0;
    for (const task of queue) load += cost(task);
    const measured = busySeconds > 0 && load > 0 ? load / busySeconds : NaN;
    // In a timeline: a slice per step, its tag the rank's load before it (the balance per step).
    const trace = comm.tracer;
    const slice = trace?.begin('rebalance', 'balancer', -1, load) ?? 0;
    try {
      return await this.step(queue, load, measured, pcomm, cost);
    } finally {
      trace?.end(slice);
    }
  }

  private async step(queue: readonly T[], load: number, measured: number, pcomm: Communicator, cost: (task: T) => number): Promise<RebalanceStep<T>> {
    const comm = this.comm;
    if (Number.isFinite(measured)) this.model.observe(measured);
    const predicted = this.model.predict() ?? (Number.isFinite(measured) ? measured : NaN);

    // A rank with no measurement yet counts as average speed: its share is settled next period.
    const [totalLoad, speedSum, known, worst] = await pcomm.allreduce<number[]>(
      [load, Number.isFinite(predicted) ? predicted : 0, Number.isFinite(predicted) ? 1 : 0, Number.isFinite(predicted) && predicted > 0 ? load / predicted : 0],
      LOAD_SUMMARY,
    );
    const speed = Number.isFinite(predicted) && predicted > 0 ? predicted : known! > 0 ? speedSum! / known! : 1;
    const speeds = known! > 0 ? speedSum! + (comm.size - known!) * (speedSum! / known!) : comm.size;
    const ideal = speeds > 0 ? totalLoad! / speeds : 0;
    const imbalance = ideal > 0 ? worst! / ideal : 1;
    const base = { measuredSpeed: measured, predictedSpeed: speed, imbalance };
    if (imbalance <= 1 + this.tolerance || totalLoad === 0) {
      return { queue: [...queue], sent: 0, received: 0, balanced: true, receiversKnown: 0, advertised: false, gossipMessages: 0, ...base };
    }

    const target = (totalLoad! * speed) / speeds;
    const threshold = defaultThreshold(totalLoad!, comm.size);
    // Informed ranks keep forwarding for two rounds after their last news (with a lone receiver,
    // forwarding once reaches only ~80% of the ranks).
    const knowledge = new GossipKnowledge(comm.rank, comm.size, { quietRounds: QUIET_ROUNDS });
    const record = advertisedRecord(comm.rank, load, target);
    if (record !== undefined) knowledge.learn([record]);
    for (let round = 0; round < this.rounds; round++) {
      const { targets, records } = knowledge.nextRound(this.fanout, this.rng);
      const payload = encodeRecords(records);
      const arrivals = await exchange<Float64Array>(pcomm, targets.map((dest) => ({ dest, tag: this.tag, payload })), { planner: 'direct' });
      for (const arrival of arrivals) knowledge.learn(decodeRecords(arrival.payload));
    }

    // A sender has no record of its own in what it knows (it advertised none).
    const plan = senderRow(comm.rank, comm.size, load, target, threshold, knowledge.records());
    const { keep, moves } = plan.length > 0 ? takeFromTail(queue, cost, plan) : { keep: [...queue], moves: new Map<number, T[]>() };
    const sends: Outgoing<T[]>[] = [];
    let sent = 0;
    for (const [dest, tasks] of moves) {
      sends.push({ dest, tag: this.tag, payload: tasks });
      sent += tasks.length;
    }
    const arrivals = await exchange<T[]>(pcomm, sends, { planner: 'direct' });
    let received = 0;
    for (const arrival of arrivals) {
      for (const task of arrival.payload) keep.push(task);
      received += arrival.payload.length;
    }
    return { queue: keep, sent, received, balanced: false, receiversKnown: knowledge.count, advertised: record !== undefined, gossipMessages: knowledge.messagesSent, ...base };
  }
}

const QUIET_ROUNDS = 2;

/** Sums of load, predicted speed and ranks with a prediction; the worst predicted finish time. */
const LOAD_SUMMARY = Op.create((a: number[], b: number[]) => [a[0]! + b[0]!, a[1]! + b[1]!, a[2]! + b[2]!, Math.max(a[3]!, b[3]!)]);

/** Records as raw doubles (rank, deficit, rank, deficit, ...): no encoding on the hot path of a gossip round. */
function encodeRecords(records: readonly GossipRecord[]): Float64Array {
  const out = new Float64Array(records.length * 2);
  for (let i = 0; i < records.length; i++) {
    out[2 * i] = records[i]!.rank;
    out[2 * i + 1] = records[i]!.deficit;
  }
  return out;
}

function decodeRecords(data: Float64Array): GossipRecord[] {
  const out: GossipRecord[] = [];
  for (let i = 0; i + 1 < data.length; i += 2) out.push({ rank: data[i]!, deficit: data[i + 1]! });
  return out;
}
