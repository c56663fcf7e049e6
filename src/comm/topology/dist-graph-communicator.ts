/**
 * Distributed graph communicators (mpi4py's Distgraphcomm). In the adjacent form
 * (MPI_Dist_graph_create_adjacent) each rank names the ranks it receives from (sources) and sends
 * to (destinations); in the general form (MPI_Dist_graph_create) any rank may declare any edge,
 * and one alltoall delivers each edge to its two ends. The neighbour collectives follow the edges. Ranks keep their order (reorder is a hint MPI lets an
 * implementation ignore); weights are kept for the program to read.
 */
import { Communicator, type CommunicatorInit } from '../communicator.js';
import type { Info } from '../info.js';
import type { Request } from '../request.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { checkEdges, inconsistentGraph } from './edge-check.js';
import type { NeighborPlan } from './neighbor.js';
import { NeighborCommunicator } from './neighbor-communicator.js';

/** Options of the general form, comm.createDistGraph. */
export interface DistGraphEdgeOptions {
  /** A weight per declared edge (non-negative integers), in `destinations` order; kept, not used. */
  weights?: readonly number[];
  /** Let the implementation renumber ranks: a hint, ignored (ranks keep their order). */
  reorder?: boolean;
}

export interface DistGraphOptions {
  /** A weight per source edge (non-negative integers); kept, not used for placement. */
  sourceWeights?: readonly number[];
  /** A weight per destination edge (non-negative integers); kept, not used for placement. */
  destWeights?: readonly number[];
  /** Let the implementation renumber ranks: a hint, ignored (ranks keep their order). */
  reorder?: boolean;
}

/** @internal */
export interface Adjacency {
  sources: readonly number[];
  destinations: readonly number[];
  sourceWeights: readonly number[] | undefined;
  destWeights: readonly number[] | undefined;
  /** What disagrees between the ranks' lists (checkEdges), when something does. */
  inconsistent?: string;
}

export class DistGraphCommunicator extends NeighborCommunicator {
  readonly #adjacency: Adjacency;
  /** @internal */
  protected readonly neighborPlan: NeighborPlan;

  /** @internal Graph communicators come from `comm.createDistGraphAdjacent()`, `comm.createDistGraph()` and `graph.dup()`. */
  constructor(init: CommunicatorInit, adjacency: Adjacency) {
    super(init);
    this.#adjacency = adjacency;
    // One channel: repeated edges between two ranks match in the order both lists give them.
    this.neighborPlan = {
      sources: adjacency.sources,
      destinations: adjacency.destinations,
      sourceChannels: adjacency.sources.map(() => 0),
      destChannels: adjacency.destinations.map(() => 0),
      channels: 1,
    };
  }

  /** Number of in-edges (sources). */
  get indegree(): number {
    return this.#adjacency.sources.length;
  }

  /** Number of out-edges (destinations). */
  get outdegree(): number {
    return this.#adjacency.destinations.length;
  }

  /** The ranks this rank receives from, in the order given (mpi4py: `Get_dist_neighbors()[0]`). */
  inNeighbors(): number[] {
    return [...this.#adjacency.sources];
  }

  /** The ranks this rank sends to, in the order given (mpi4py: `Get_dist_neighbors()[1]`). */
  outNeighbors(): number[] {
    return [...this.#adjacency.destinations];
  }

  /** The weights of the in-edges, or undefined when the graph was made without them. */
  get sourceWeights(): readonly number[] | undefined {
    return this.#adjacency.sourceWeights;
  }

  /** The weights of the out-edges, or undefined when the graph was made without them. */
  get destWeights(): readonly number[] | undefined {
    return this.#adjacency.destWeights;
  }

  /** @internal Neighbour collectives refuse a graph whose ranks' lists disagree (they would wait for ever). */
  protected override checkNeighbors(operation: string): void {
    const problem = this.#adjacency.inconsistent;
    if (problem !== undefined) throw inconsistentGraph(this, problem, operation);
  }

  /** Collective: a new communicator with the same topology and a context of its own. */
  override dup(info?: Info): Promise<DistGraphCommunicator> {
    return super.dup(info) as Promise<DistGraphCommunicator>;
  }

  /** Starts a {@link dup}; the request's result is the new communicator. */
  override idup(info?: Info): Request<DistGraphCommunicator> {
    return super.idup(info) as Request<DistGraphCommunicator>;
  }

  /** @internal A dup keeps the topology. */
  override copyWith(init: CommunicatorInit): DistGraphCommunicator {
    return new DistGraphCommunicator(init, this.#adjacency);
  }

  override get topology(): 'dist-graph' | 'graph' {
    return 'dist-graph';
  }

  /** True when the graph was made with weights (mpi4py: `Get_dist_neighbors_count()[2]`). */
  get weighted(): boolean {
    return this.#adjacency.sourceWeights !== undefined || this.#adjacency.destWeights !== undefined;
  }
}

/** Argument checks shared by both forms; each throws on the calling rank only. */
function argumentChecks(comm: Communicator, operation: string) {
  const errorRank = comm.member ? comm.worldRankOf(comm.rank) : -1;
  const fail = (code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, hint: string): TsmpiError => new TsmpiError(code, message, { rank: errorRank, operation, hint });
  return {
    fail,
    ranks(list: unknown, name: string): number[] {
      if (!Array.isArray(list) || !list.every((r) => Number.isInteger(r) && r >= 0 && r < comm.size)) {
        throw fail(ErrorCode.Rank, `${name} ${JSON.stringify(list)} is not a list of ranks of a communicator of size ${comm.size}`, `pass ranks from 0 to ${comm.size - 1} (a rank may appear more than once)`);
      }
      return [...(list as number[])];
    },
    weights(list: readonly number[] | undefined, edges: number, name: string): readonly number[] | undefined {
      if (list === undefined) return undefined;
      if (!Array.isArray(list) || list.length !== edges || !list.every((w) => Number.isSafeInteger(w) && w >= 0)) {
        throw fail(ErrorCode.Arg, `${name} ${JSON.stringify(list)} is not ${edges} non-negative integers`, `pass one weight per edge, or leave ${name} out`);
      }
      return Object.freeze([...list]);
    },
    options(options: unknown, keys: string): void {
      if (typeof options !== 'object' || options === null) throw fail(ErrorCode.Arg, 'the options are not an object', `pass { ${keys} } or nothing`);
      const reorder = (options as { reorder?: unknown }).reorder;
      if (reorder !== undefined && typeof reorder !== 'boolean') throw fail(ErrorCode.Arg, `reorder ${JSON.stringify(reorder)} is not a boolean`, 'pass true or false (ranks keep their order either way)');
    },
  };
}

/** comm.createDistGraphAdjacent (see Communicator.createDistGraphAdjacent). */
export async function createDistGraphAdjacent(comm: Communicator, sources: readonly number[], destinations: readonly number[], options: DistGraphOptions = {}): Promise<DistGraphCommunicator> {
  const operation = 'createDistGraphAdjacent';
  const { ranks, weights, options: checkOptions } = argumentChecks(comm, operation);
  checkOptions(options, 'sourceWeights, destWeights, reorder');
  const adjacency: Adjacency = {
    sources: Object.freeze(ranks(sources, 'sources')),
    destinations: Object.freeze(ranks(destinations, 'destinations')),
    sourceWeights: weights(options.sourceWeights, sources.length, 'sourceWeights'),
    destWeights: weights(options.destWeights, destinations.length, 'destWeights'),
  };
  const inconsistent = await checkEdges(comm, adjacency.sources, adjacency.destinations);
  if (inconsistent !== undefined) adjacency.inconsistent = inconsistent;
  const init = await comm.splitInit(0, comm.rank, `dist graph of ${comm.name}`);
  return new DistGraphCommunicator(init!, adjacency);
}

/** What one rank tells another of the edges it declared: the other's out- and in-edges. */
interface DeclaredEdges {
  /** Flat [destination, weight] pairs of edges leaving the receiving rank. */
  out: number[];
  /** Flat [source, weight] pairs of edges entering the receiving rank. */
  in: number[];
  /** Whether the declaring rank passed weights (all ranks must agree). */
  weighted: boolean;
}

/**
 * comm.createDistGraph (see Communicator.createDistGraph). Each rank's in- and out-edges come in
 * the order of the rank that declared them, then of the declaration: the same on every run.
 */
export async function createDistGraph(
  comm: Communicator,
  sources: readonly number[],
  degrees: readonly number[],
  destinations: readonly number[],
  options: DistGraphEdgeOptions = {},
): Promise<DistGraphCommunicator> {
  const operation = 'createDistGraph';
  const { fail, ranks, weights: checkWeights, options: checkOptions } = argumentChecks(comm, operation);
  checkOptions(options, 'weights, reorder');
  const from = ranks(sources, 'sources');
  const to = ranks(destinations, 'destinations');
  if (!Array.isArray(degrees) || degrees.length !== from.length || !degrees.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw fail(ErrorCode.Arg, `degrees ${JSON.stringify(degrees)} is not ${from.length} non-negative integers`, 'pass one degree per source: how many of the destinations, in order, its edges go to');
  }
  const total = degrees.reduce((a, b) => a + b, 0);
  if (total !== to.length) {
    throw fail(ErrorCode.Arg, `degrees add up to ${total} but ${to.length} destinations were given`, 'the destinations list the edges of each source in turn: degrees[i] of them for sources[i]');
  }
  const weights = checkWeights(options.weights, to.length, 'weights');
  const outgoing: DeclaredEdges[] = Array.from({ length: comm.size }, () => ({ out: [], in: [], weighted: weights !== undefined }));
  let edge = 0;
  for (let i = 0; i < from.length; i++) {
    for (let k = 0; k < degrees[i]!; k++, edge++) {
      const weight = weights?.[edge] ?? 0;
      outgoing[from[i]!]!.out.push(to[edge]!, weight);
      outgoing[to[edge]!]!.in.push(from[i]!, weight);
    }
  }
  const incoming = await comm.alltoall(outgoing);
  const weighted = incoming.map((d) => d.weighted);
  if (weighted.some((w) => w !== weighted[0])) {
    throw new TsmpiError(ErrorCode.Arg, `rank ${weighted.indexOf(!weighted[0])} ${weighted[0] ? 'passed no weights' : 'passed weights'} where rank 0 ${weighted[0] ? 'did' : 'did not'}`, {
      rank: comm.worldRankOf(comm.rank),
      operation,
      hint: 'every rank passes weights, or none does (an unweighted graph)',
    });
  }
  const pairs = (flat: number[][], index: 0 | 1): number[] => flat.flatMap((list) => list.filter((_, i) => i % 2 === index));
  const ins = incoming.map((d) => d.in);
  const outs = incoming.map((d) => d.out);
  const adjacency: Adjacency = {
    sources: Object.freeze(pairs(ins, 0)),
    destinations: Object.freeze(pairs(outs, 0)),
    sourceWeights: weighted[0] ? Object.freeze(pairs(ins, 1)) : undefined,
    destWeights: weighted[0] ? Object.freeze(pairs(outs, 1)) : undefined,
  };
  const init = await comm.splitInit(0, comm.rank, `dist graph of ${comm.name}`);
  return new DistGraphCommunicator(init!, adjacency);
}

// Communicator cannot import this module (it extends Communicator): install its constructors.
Communicator.topologies.createDistGraphAdjacent = createDistGraphAdjacent;
Communicator.topologies.createDistGraph = createDistGraph;
