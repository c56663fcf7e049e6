/**
 * Graph communicators (MPI_Graph_create; mpi4py's Graphcomm): every rank passes the whole graph,
 * as MPI's `index` (the running count of edges up to and including each node) and `edges` (each
 * node's neighbours in turn). Node i is rank i; ranks past the last node get no communicator. A
 * graph communicator is a distributed graph whose sources and destinations are both the node's
 * neighbours, so the neighbour collectives follow its edges both ways, as MPI defines them.
 */
import { Communicator, type CommunicatorInit } from '../communicator.js';
import type { Info } from '../info.js';
import type { Request } from '../request.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { DistGraphCommunicator } from './dist-graph-communicator.js';

interface GraphShape {
  /** Running edge counts, one per node (MPI's index). */
  readonly index: readonly number[];
  readonly edges: readonly number[];
}

export class GraphCommunicator extends DistGraphCommunicator {
  readonly #shape: GraphShape;

  /** @internal Graph communicators come from `comm.createGraph()` and `graph.dup()`. */
  constructor(init: CommunicatorInit, shape: GraphShape) {
    const own = neighborsIn(shape, init.rank);
    super(init, { sources: own, destinations: own, sourceWeights: undefined, destWeights: undefined });
    this.#shape = shape;
  }

  /** [nodes, edges] (MPI_Graphdims_get). */
  get dims(): [nodes: number, edges: number] {
    return [this.#shape.index.length, this.#shape.edges.length];
  }

  /** MPI's index: the running count of edges up to and including each node (MPI_Graph_get). */
  get index(): readonly number[] {
    return this.#shape.index;
  }

  /** Every node's neighbours in turn (MPI_Graph_get). */
  get edges(): readonly number[] {
    return this.#shape.edges;
  }

  /** This rank's neighbours (mpi4py's `neighbors`). */
  get neighbors(): readonly number[] {
    return neighborsIn(this.#shape, this.rank);
  }

  /** Rank `rank`'s neighbours (MPI_Graph_neighbors). */
  neighborsOf(rank: number): number[] {
    if (!Number.isInteger(rank) || rank < 0 || rank >= this.size) {
      throw new TsmpiError(ErrorCode.Rank, `rank ${String(rank)} is not a node of a graph of ${this.size}`, { rank: this.worldRankOf(this.rank), operation: 'neighborsOf', hint: `pass a rank from 0 to ${this.size - 1}` });
    }
    return [...neighborsIn(this.#shape, rank)];
  }

  /** How many neighbours rank `rank` has (MPI_Graph_neighbors_count). */
  neighborsCountOf(rank: number): number {
    return this.neighborsOf(rank).length;
  }

  override dup(info?: Info): Promise<GraphCommunicator> {
    return super.dup(info) as Promise<GraphCommunicator>;
  }

  override idup(info?: Info): Request<GraphCommunicator> {
    return super.idup(info) as Request<GraphCommunicator>;
  }

  /** @internal A dup keeps the graph. */
  override copyWith(init: CommunicatorInit): GraphCommunicator {
    return new GraphCommunicator(init, this.#shape);
  }

  override get topology(): 'graph' {
    return 'graph';
  }
}

function neighborsIn(shape: GraphShape, node: number): readonly number[] {
  const start = node === 0 ? 0 : shape.index[node - 1]!;
  return Object.freeze(shape.edges.slice(start, shape.index[node]));
}

/**
 * comm.createGraph (see Communicator.createGraph): checked alike on every rank, so a bad graph
 * fails everywhere; `reorder` is a hint, ignored (ranks keep their order).
 */
export async function createGraph(comm: Communicator, index: readonly number[], edges: readonly number[], reorder = false): Promise<GraphCommunicator | undefined> {
  const operation = 'createGraph';
  const fail = (message: string, hint: string): TsmpiError => new TsmpiError(ErrorCode.Arg, message, { rank: comm.member ? comm.worldRankOf(comm.rank) : -1, operation, hint });
  if (!Array.isArray(index) || index.length > comm.size || !index.every((n, i) => Number.isSafeInteger(n) && n >= (i === 0 ? 0 : index[i - 1]!))) {
    throw fail(`index ${JSON.stringify(index)} is not at most ${comm.size} non-decreasing counts`, "index[i] is the number of edges of nodes 0..i together (MPI's form, no leading 0); one entry per node, at most one node per rank");
  }
  const nodes = index.length;
  if (!Array.isArray(edges) || edges.length !== (index[nodes - 1] ?? 0) || !edges.every((e) => Number.isInteger(e) && e >= 0 && e < nodes)) {
    throw fail(`edges ${JSON.stringify(edges)} are not ${index[nodes - 1] ?? 0} nodes of 0..${nodes - 1}`, "list each node's neighbours in turn; index's last entry counts them all");
  }
  if (typeof reorder !== 'boolean') throw fail(`reorder ${JSON.stringify(reorder)} is not a boolean`, 'pass true or false (ranks keep their order either way)');
  const shape: GraphShape = { index: Object.freeze([...index]), edges: Object.freeze([...edges]) };
  const init = await comm.splitInit(comm.rank < nodes ? 0 : undefined, comm.rank, `graph of ${comm.name}`);
  return init === undefined ? undefined : new GraphCommunicator(init, shape);
}

Communicator.topologies.createGraph = createGraph;
