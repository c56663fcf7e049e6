/**
 * How the ranks of a new communicator agree on its context id. A context only has to be unique
 * among the communicators each rank is a member of, so the members take the largest of the ids
 * they each propose (their next free one): no global table, no rank outside the new group.
 *
 * A rank reserves its proposal when it makes it, and moves past the agreed id when the agreement
 * ends, so several creations in flight on one communicator (two idups) never agree on one id.
 */
import type { Endpoint } from './endpoint.js';
import { waitAll } from './request.js';

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
