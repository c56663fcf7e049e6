/**
 * How the ranks of a new communicator agree on its context id. A context only has to be unique
 * among the communicators each rank is a member of, so the members take the largest of the ids
 * they each propose (their next free one): no global table, no rank outside the new group. The
 * agreed id is at least every member's next free one, so it is free on all of them, and each
 * moves past it.
 *
 * That holds while a rank has one agreement in flight: two at once (an idup beside a dup of
 * another communicator, creations in a Promise.all) could each agree on an id above the rank's
 * next free one, the same for both. So a rank's creations take turns ({@link CreationTurns}):
 * each starts its agreement once the one before it on this rank has ended. Ranks must then start
 * creations over shared ranks in the same order, which MPI asks of collectives anyway.
 */
import { Request, waitAll, type RequestDriver } from './request.js';
import type { Endpoint } from './endpoint.js';

/** The turns of one rank's communicator creations, in the order they were started. */
export class CreationTurns {
  readonly #driver: RequestDriver;
  readonly #settled: () => void;
  readonly #queue: Request<void>[] = [];

  /** `settled` lets waiters see a turn that another flow's release completed. */
  constructor(driver: RequestDriver, settled: () => void) {
    this.#driver = driver;
    this.#settled = settled;
  }

  /** A turn: a request that completes when every creation this rank started before it has ended. */
  take(operation: string): Request<void> {
    const turn = new Request<void>(this.#driver, `${operation} (after this rank's earlier communicator creation)`, -1, -1, -1);
    this.#queue.push(turn);
    if (this.#queue.length === 1) turn.complete(undefined);
    return turn;
  }

  /** Ends a turn (whether its creation succeeded or failed); the next one starts. */
  release(turn: Request<void>): void {
    const at = this.#queue.indexOf(turn);
    if (at < 0) return;
    this.#queue.splice(at, 1);
    const next = this.#queue[0];
    if (at === 0 && next !== undefined) {
      next.complete(undefined);
      this.#settled();
    }
  }
}

/** This rank's proposal for the next agreement, reserved at once. */
export function proposeContext(endpoint: Endpoint): number {
  const proposal = endpoint.nextContext;
  endpoint.nextContext += 2;
  return proposal;
}

/** The agreed id from every member's proposal; this rank moves past it. */
export function agreeContext(endpoint: Endpoint, proposals: Iterable<number>): number {
  let context = 0;
  for (const p of proposals) context = Math.max(context, p);
  endpoint.nextContext = Math.max(endpoint.nextContext, context + 2);
  return context;
}

/** Where the members of a group-only agreement talk: a context and tag of the communicator they come from. */
export interface AgreementChannel {
  readonly endpoint: Endpoint;
  /** The context the messages travel on (a communicator's collective context). */
  readonly context: number;
  readonly tag: number;
  /** Each member's rank on that context, and its world rank, in group order. */
  readonly ranks: readonly number[];
  readonly worldRanks: readonly number[];
  /** This rank's place in the group. */
  readonly me: number;
  readonly operation: string;
}

/**
 * An agreement among the members of a group only (createGroup, createFromGroup: the other ranks
 * of the communicator take no part): the first member gathers the proposals and sends back the
 * largest.
 */
export async function agreeAmongGroup(channel: AgreementChannel): Promise<number> {
  const { endpoint, operation } = channel;
  const turn = endpoint.creations.take(operation);
  try {
    await turn.wait();
    return await agreeInTurn(channel);
  } finally {
    endpoint.creations.release(turn);
  }
}

async function agreeInTurn(channel: AgreementChannel): Promise<number> {
  const { endpoint, context, tag, ranks, worldRanks, me, operation } = channel;
  const proposal = proposeContext(endpoint);
  const myRank = ranks[me]!;
  if (me === 0) {
    const others = ranks.map((rank, i) => ({ rank, world: worldRanks[i]! })).slice(1);
    const proposals = await waitAll(others.map((o) => endpoint.irecv(context, o.rank, o.world, tag, null, operation)));
    const agreed = agreeContext(endpoint, [proposal, ...(proposals as number[])]);
    await waitAll(others.map((o) => endpoint.isend(context, o.world, myRank, tag, agreed, operation, o.rank)));
    return agreed;
  }
  const reply = endpoint.irecv(context, ranks[0]!, worldRanks[0]!, tag, null, operation);
  await endpoint.isend(context, worldRanks[0]!, myRank, tag, proposal, operation, ranks[0]!).wait();
  return agreeContext(endpoint, [(await reply.wait()) as number]);
}
