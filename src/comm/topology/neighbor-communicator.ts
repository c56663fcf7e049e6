/**
 * What Cartesian grids and (distributed) graphs share: the neighbour collectives, blocking and
 * nonblocking (MPI_Neighbor_allgather ... and MPI_Ineighbor_allgather ...), along the plan of
 * edges each topology makes. `Missing` is what an absent neighbour's slot holds: undefined on a
 * grid (PROC_NULL past a non-periodic edge), nothing on a graph (every neighbour is a rank).
 */
import type { TypedArray } from '../codec.js';
import type { Concatenated } from '../collectives/gather.js';
import { runSteps } from '../collectives/steps.js';
import { Communicator, type CommunicatorInit } from '../communicator.js';
import type { Request } from '../request.js';
import type { CollectiveCall } from '../collectives/call.js';
import { channelCalls, neighborAllgather, neighborAllgatherv, neighborAlltoall, neighborAlltoallv, type NeighborOperation, type NeighborPlan } from './neighbor.js';

export abstract class NeighborCommunicator<Missing = never> extends Communicator {
  /** @internal Who this rank exchanges with, and on which channels. */
  protected abstract readonly neighborPlan: NeighborPlan;

  /** @internal Made by the topologies' constructors. */
  constructor(init: CommunicatorInit) {
    super(init);
  }

  /** The call's channels, taken now (see channelCalls); `first`: a nonblocking call's own. */
  #calls(operation: NeighborOperation, first?: CollectiveCall): CollectiveCall[] {
    return channelCalls(this, operation, this.neighborPlan, first);
  }

  /** @internal Throws when the topology cannot carry a neighbour collective (a graph whose lists disagree). */
  protected checkNeighbors(_operation: string): void {}

  /**
   * Collective: `value` goes to every out-neighbour; returns what each in-neighbour sent, in
   * in-neighbour order.
   * @example
   * ```ts
   * const fromNeighbours = await topo.neighborAllgather(topo.rank);
   * ```
   */
  neighborAllgather<T>(value: T): Promise<(T | Missing)[]> {
    this.checkNeighbors('neighborAllgather');
    return runSteps(neighborAllgather(this, this.neighborPlan, this.#calls('neighborAllgather'), value)) as Promise<(T | Missing)[]>;
  }

  /** Starts a {@link neighborAllgather} (MPI_Ineighbor_allgather): a request of its result. */
  ineighborAllgather<T>(value: T): Request<(T | Missing)[]> {
    this.checkNeighbors('ineighborAllgather');
    return this.startCollective('neighborAllgather', 'ineighborAllgather', (call) => neighborAllgather(this, this.neighborPlan, this.#calls('neighborAllgather', call), value)) as Request<(T | Missing)[]>;
  }

  /** Collective: `values[i]` goes to out-neighbour i; returns what each in-neighbour sent this rank. */
  neighborAlltoall<T>(values: readonly T[]): Promise<(T | Missing)[]> {
    this.checkNeighbors('neighborAlltoall');
    return runSteps(neighborAlltoall(this, this.neighborPlan, this.#calls('neighborAlltoall'), values)) as Promise<(T | Missing)[]>;
  }

  /** Starts a {@link neighborAlltoall} (MPI_Ineighbor_alltoall). */
  ineighborAlltoall<T>(values: readonly T[]): Request<(T | Missing)[]> {
    this.checkNeighbors('ineighborAlltoall');
    return this.startCollective('neighborAlltoall', 'ineighborAlltoall', (call) => neighborAlltoall(this, this.neighborPlan, this.#calls('neighborAlltoall', call), values)) as Request<(T | Missing)[]>;
  }

  /**
   * Collective: `data` goes to every out-neighbour; returns the concatenation of the
   * in-neighbours' typed arrays (an absent neighbour: 0 elements) with counts and offsets. Pass
   * `recvCounts` when known to receive each block straight into place.
   */
  neighborAllgatherv<A extends TypedArray>(data: A, recvCounts?: readonly number[]): Promise<Concatenated<A>> {
    this.checkNeighbors('neighborAllgatherv');
    return runSteps(neighborAllgatherv(this, this.neighborPlan, this.#calls('neighborAllgatherv'), data, recvCounts));
  }

  /** Starts a {@link neighborAllgatherv} (MPI_Ineighbor_allgatherv). */
  ineighborAllgatherv<A extends TypedArray>(data: A, recvCounts?: readonly number[]): Request<Concatenated<A>> {
    this.checkNeighbors('ineighborAllgatherv');
    return this.startCollective('neighborAllgatherv', 'ineighborAllgatherv', (call) => neighborAllgatherv(this, this.neighborPlan, this.#calls('neighborAllgatherv', call), data, recvCounts));
  }

  /**
   * Collective: block i of `data` (`sendCounts[i]` elements, in order) goes to out-neighbour i;
   * returns the concatenation of the blocks the in-neighbours sent this rank.
   */
  neighborAlltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[]): Promise<Concatenated<A>> {
    this.checkNeighbors('neighborAlltoallv');
    return runSteps(neighborAlltoallv(this, this.neighborPlan, this.#calls('neighborAlltoallv'), data, sendCounts, recvCounts));
  }

  /** Starts a {@link neighborAlltoallv} (MPI_Ineighbor_alltoallv). */
  ineighborAlltoallv<A extends TypedArray>(data: A, sendCounts: readonly number[], recvCounts?: readonly number[]): Request<Concatenated<A>> {
    this.checkNeighbors('ineighborAlltoallv');
    return this.startCollective('neighborAlltoallv', 'ineighborAlltoallv', (call) => neighborAlltoallv(this, this.neighborPlan, this.#calls('neighborAlltoallv', call), data, sendCounts, recvCounts));
  }
}
