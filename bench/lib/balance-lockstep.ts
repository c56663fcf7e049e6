/**
 * The random-diffusion balancer's policy run in lockstep for P ranks in one process (no network,
 * no communicator): the gossip (every rank's GossipKnowledge, each round's sends delivered) and a
 * whole balancing step (targets, gossip, every overloaded rank's row from what it learned, the
 * migration). The benchmark runs it at P = 1024 and 4096, and the policy tests use it; the
 * runtime driver (src/balance/diffusion-balancer.ts) runs the same per-rank decisions over a
 * communicator.
 */
import { GossipKnowledge, defaultGossipRounds, defaultMessageCap, gossipRng, type GossipKnowledgeOptions, type GossipRecord } from '../../src/policy/balance/gossip.ts';
import type { Rng } from '../../src/rng.ts';
import { advertisedRecord, defaultThreshold, imbalance, senderRow, takeFromTail, targetLoads, tasksOf } from '../../src/policy/balance/migration.ts';

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export interface GossipOptions {
  fanout: number;
  maxRounds: number;
  seed: number;
  /** @default 2 * ceil(log2 size) */
  messageCap?: number;
  /** See GossipKnowledgeOptions. @default 0 */
  quietRounds?: number;
}

export interface GossipRun {
  /** After each round r (index r-1), the fraction of (rank, underloaded record) pairs known, over all ranks. */
  coverage: number[];
  /**
   * First round after which coverage >= 0.99 (or -1 if never within the rounds run); 0 when it
   * already holds before any round (no underloaded rank, or a single rank).
   */
  roundsTo99: number;
  /** Messages sent per rank over the whole gossip: the max and the mean. */
  messagesPerRank: { max: number; mean: number };
}

/**
 * Runs the gossip and returns every rank's knowledge at the end as well as the run's figures (for
 * simulateBalanceStep, which builds each overloaded rank's migration row from what it learned).
 */
export function runGossip(size: number, sources: readonly GossipRecord[], options: GossipOptions): { run: GossipRun; knowledge: GossipKnowledge[] } {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be an integer >= 1, got ${size}`);
  const { fanout, maxRounds, seed } = options;
  if (!Number.isInteger(maxRounds) || maxRounds < 0) throw new RangeError(`maxRounds must be an integer >= 0, got ${maxRounds}`);
  const knowledgeOptions: GossipKnowledgeOptions = {};
  if (options.messageCap !== undefined) knowledgeOptions.messageCap = options.messageCap;
  if (options.quietRounds !== undefined) knowledgeOptions.quietRounds = options.quietRounds;
  const knowledge: GossipKnowledge[] = [];
  const rngs: Rng[] = [];
  for (let rank = 0; rank < size; rank++) {
    knowledge.push(new GossipKnowledge(rank, size, knowledgeOptions));
    rngs.push(gossipRng(seed, rank));
  }
  let distinct = 0;
  for (const record of sources) {
    const k = knowledge[record.rank];
    if (k === undefined) throw new RangeError(`source rank must be in [0, ${size}), got ${record.rank}`);
    if (k.learn([record])) distinct++;
  }
  const pairs = size * distinct;
  const countKnown = (): number => knowledge.reduce((n, k) => n + k.count, 0);
  let known = countKnown();
  const coverage: number[] = [];
  let roundsTo99 = distinct === 0 || known >= 0.99 * pairs ? 0 : -1;
  const targets: number[][] = new Array(size);
  const counts = new Int32Array(size);
  for (let round = 1; round <= maxRounds && known < pairs; round++) {
    // Synchronous round: every rank decides its sends from what it knew before the round (the
    // same decision as nextRound(); a message's records are the sender's first counts[rank])...
    let any = false;
    for (let rank = 0; rank < size; rank++) {
      const k = knowledge[rank]!;
      targets[rank] = k.planRound(fanout, rngs[rank]!);
      counts[rank] = k.count;
      if (targets[rank]!.length > 0) any = true;
    }
    if (!any) break; // quiescent: no one learned anything last round, so no one ever will
    // ...then every message is delivered.
    for (let rank = 0; rank < size; rank++) {
      for (const target of targets[rank]!) knowledge[target]!.learnFrom(knowledge[rank]!, counts[rank]!);
    }
    known = countKnown();
    coverage.push(known / pairs);
    if (roundsTo99 < 0 && known >= 0.99 * pairs) roundsTo99 = round;
  }
  let max = 0;
  let total = 0;
  for (const k of knowledge) {
    max = Math.max(max, k.messagesSent);
    total += k.messagesSent;
  }
  return { run: { coverage, roundsTo99, messagesPerRank: { max, mean: total / size } }, knowledge };
}

/**
 * Runs the gossip among `size` ranks round by round (synchronous rounds, as the runtime driver
 * does) for up to `maxRounds` rounds, stopping early when every rank knows every record (or when
 * no rank has anything new left to send). Each underloaded rank starts knowing its own record.
 */
export function simulateGossip(size: number, sources: readonly GossipRecord[], options: GossipOptions): GossipRun {
  return runGossip(size, sources, options).run;
}

export interface BalanceStepInput {
  /** Work units per rank before the step. */
  loads: readonly number[];
  /** Predicted speed per rank (work units per second), > 0. */
  speeds: readonly number[];
  /** Cost of one task: loads become queues of such tasks (tasksOf) and move whole. @default undefined: work moves as a fluid, exactly as planned */
  taskCost?: number;
  /** Peers per gossip send. */
  fanout: number;
  /** Gossip rounds at most. */
  rounds: number;
  seed: number;
  /** A rank sends when load - target > threshold; every rank with target > load advertises its deficit (as the runtime driver does: leaving small deficits out lets senders pile onto the few they hear of). @default 2% of the mean target */
  threshold?: number;
  /** @default 2 * ceil(log2 P) */
  messageCap?: number;
  /** Rounds a rank goes on forwarding after news (GossipKnowledgeOptions). @default 0 */
  quietRounds?: number;
}

/** The figures of one balancing step; imbalance is max_i(load_i / speed_i) / (sum load / sum speed). */
export interface BalanceStepResult {
  gossip: GossipRun;
  /** Work moved, over all ranks. */
  migrated: number;
  /** The least work that reaches the targets: the sum of the positive excesses (load - target). */
  minimumMigration: number;
  imbalanceBefore: number;
  imbalanceAfter: number;
  loadsAfter: number[];
  /** Each rank's fair share (targetLoads). */
  targets: number[];
  /** Ranks over the threshold on each side: the senders and the gossip's sources. */
  overloaded: number;
  underloaded: number;
}

/**
 * A whole balancing step for P ranks, for the benchmark at P = 1024 and 4096 (policy level, no
 * network): targets from the loads and predicted speeds, the gossip of the underloaded ranks'
 * deficits, every overloaded rank's row built from what it learned (walked in staggered() order), and the migration (whole tasks
 * from the tail with `taskCost`, else exactly the rows' amounts).
 */
export function simulateBalanceStep(input: BalanceStepInput): BalanceStepResult {
  const { loads, speeds, fanout, rounds, seed, taskCost } = input;
  const targets = targetLoads(loads, speeds);
  const size = loads.length;
  const threshold = input.threshold ?? defaultThreshold(sum(loads), size);
  if (!Number.isFinite(threshold) || threshold < 0) throw new RangeError(`threshold must be a finite number >= 0, got ${threshold}`);
  const sources: GossipRecord[] = [];
  const senders: number[] = [];
  let minimumMigration = 0;
  for (let rank = 0; rank < size; rank++) {
    const gap = targets[rank]! - loads[rank]!;
    if (gap < 0) minimumMigration -= gap;
    const record = advertisedRecord(rank, loads[rank]!, targets[rank]!);
    if (record !== undefined) sources.push(record);
    else if (-gap > threshold) senders.push(rank);
  }
  const { run, knowledge } = runGossip(size, sources, {
    fanout,
    maxRounds: rounds,
    seed,
    ...(input.messageCap === undefined ? {} : { messageCap: input.messageCap }),
    ...(input.quietRounds === undefined ? {} : { quietRounds: input.quietRounds }),
  });
  const loadsAfter = loads.slice();
  let migrated = 0;
  for (const sender of senders) {
    const row = senderRow(sender, size, loads[sender]!, targets[sender]!, threshold, knowledge[sender]!.records());
    if (taskCost === undefined) {
      for (const { rank, amount } of row) {
        loadsAfter[sender]! -= amount;
        loadsAfter[rank]! += amount;
        migrated += amount;
      }
      continue;
    }
    const { keep, moves } = takeFromTail(tasksOf(loads[sender]!, taskCost), (c) => c, row);
    loadsAfter[sender] = sum(keep);
    for (const [rank, tasks] of moves) {
      const volume = sum(tasks);
      loadsAfter[rank]! += volume;
      migrated += volume;
    }
  }
  return {
    gossip: run,
    migrated,
    minimumMigration,
    imbalanceBefore: imbalance(loads, speeds),
    imbalanceAfter: imbalance(loadsAfter, speeds),
    loadsAfter,
    targets,
    overloaded: senders.length,
    underloaded: sources.length,
  };
}
