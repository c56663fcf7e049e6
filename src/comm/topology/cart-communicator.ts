/**
 * Cartesian communicators (MPI_Cart_create, mpi4py's Cartcomm): the ranks of a communicator laid
 * out on a grid, with coordinates, shifts, sub-grids and the neighbour collectives. Ranks keep
 * their order (reorder is a hint MPI lets an implementation ignore), numbered in row-major order.
 */
import { Communicator, type CommunicatorInit } from '../communicator.js';
import type { Info } from '../info.js';
import type { Request } from '../request.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { CartGeometry, cartShape, type CartShift } from './cart-geometry.js';
import type { NeighborPlan } from './neighbor.js';
import { NeighborCommunicator } from './neighbor-communicator.js';

export type { CartShift };

export class CartCommunicator extends NeighborCommunicator<undefined> {
  /** This rank's coordinates in the grid. */
  readonly coords: readonly number[];
  readonly #geometry: CartGeometry;
  /** @internal */
  protected readonly neighborPlan: NeighborPlan;

  /** @internal Cartesian communicators come from `comm.createCart()`, `cart.sub()` and `cart.dup()`. */
  constructor(init: CommunicatorInit, dims: readonly number[], periods: readonly boolean[]) {
    super(init);
    this.#geometry = new CartGeometry(dims, periods, this.worldRankOf(this.rank));
    this.coords = Object.freeze(this.#geometry.coordsOf(this.rank));
    const neighbors = Object.freeze(this.#geometry.neighbors(this.rank));
    // One channel per direction: what a rank sends down dimension d (out-slot 2d) arrives in the
    // receiver's slot for "from above" (in-slot 2d + 1), and the other way round.
    this.neighborPlan = {
      sources: neighbors,
      destinations: neighbors,
      sourceChannels: neighbors.map((_, slot) => slot ^ 1),
      destChannels: neighbors.map((_, slot) => slot),
      channels: Math.max(1, neighbors.length),
    };
  }

  /** The size of each dimension. */
  get dims(): readonly number[] {
    return this.#geometry.dims;
  }

  /** Whether each dimension wraps around. */
  get periods(): readonly boolean[] {
    return this.#geometry.periods;
  }

  /** Number of dimensions. */
  get ndim(): number {
    return this.#geometry.ndim;
  }

  /** The coordinates of `rank` (MPI_Cart_coords). */
  coordsOf(rank: number): number[] {
    return this.#geometry.coordsOf(rank);
  }

  /**
   * The rank at `coords` (MPI_Cart_rank): periodic dimensions wrap, a coordinate outside a
   * non-periodic dimension is an error.
   * @throws {TsmpiError} ERR_ARG
   */
  cartRank(coords: readonly number[]): number {
    return this.#geometry.rankOf(coords);
  }

  /**
   * The ranks `disp` steps down (`source`) and up (`dest`) dimension `direction` from this rank
   * (MPI_Cart_shift); PROC_NULL off the edge of a non-periodic dimension. Send to `dest` and
   * receive from `source` to shift data up the dimension.
   * @example
   * ```ts
   * const { source, dest } = cart.shift(0, 1);
   * const fromBelow = await cart.sendrecv(row, dest, source); // undefined at the lower edge
   * ```
   */
  shift(direction: number, disp = 1): CartShift {
    return this.#geometry.shift(this.rank, direction, disp);
  }

  /**
   * The neighbours in MPI's order: for each dimension, `shift(d, 1).source` then
   * `shift(d, 1).dest` (PROC_NULL at non-periodic edges). They are both the in- and the
   * out-neighbours of the neighbour collectives.
   */
  get neighbors(): readonly number[] {
    return this.neighborPlan.sources;
  }

  /** The in-neighbours (see {@link neighbors}). */
  inNeighbors(): number[] {
    return [...this.neighborPlan.sources];
  }

  /** The out-neighbours (see {@link neighbors}). */
  outNeighbors(): number[] {
    return [...this.neighborPlan.destinations];
  }

  /**
   * Collective: the sub-grids that keep the dimensions where `remainDims` is true
   * (MPI_Cart_sub); this rank's sub-grid holds the ranks that share its coordinates in the
   * dimensions dropped.
   * @example
   * ```ts
   * const row = await cart.sub([false, true]); // the ranks of this rank's row
   * ```
   */
  async sub(remainDims: readonly boolean[]): Promise<CartCommunicator> {
    if (!Array.isArray(remainDims) || remainDims.length !== this.ndim || !remainDims.every((keep) => typeof keep === 'boolean')) {
      throw new TsmpiError(ErrorCode.Arg, `remainDims ${JSON.stringify(remainDims)} is not ${this.ndim} booleans`, {
        rank: this.worldRankOf(this.rank),
        operation: 'sub',
        hint: 'pass one boolean per dimension: true keeps it in the sub-grid',
      });
    }
    const kept = new CartGeometry(this.dims.filter((_, d) => remainDims[d]), this.periods.filter((_, d) => remainDims[d]));
    const droppedDims = this.dims.filter((_, d) => !remainDims[d]);
    const dropped = new CartGeometry(droppedDims, droppedDims.map(() => false));
    const color = dropped.rankOf(this.coords.filter((_, d) => !remainDims[d]));
    const key = kept.rankOf(this.coords.filter((_, d) => remainDims[d]));
    const init = await this.splitInit(color, key, `cart ${shapeName(kept.dims)} (sub of ${this.name})`);
    return new CartCommunicator(init!, kept.dims, kept.periods);
  }

  /** Collective: a new communicator with the same topology and a context of its own. */
  override dup(info?: Info): Promise<CartCommunicator> {
    return super.dup(info) as Promise<CartCommunicator>;
  }

  /** Starts a {@link dup}; the request's result is the new communicator. */
  override idup(info?: Info): Request<CartCommunicator> {
    return super.idup(info) as Request<CartCommunicator>;
  }

  /** @internal A dup keeps the topology. */
  override copyWith(init: CommunicatorInit): CartCommunicator {
    return new CartCommunicator(init, this.dims, this.periods);
  }

  override get topology(): 'cart' {
    return 'cart';
  }
}

function shapeName(dims: readonly number[]): string {
  return dims.length === 0 ? '0-d' : dims.join('x');
}

/** comm.createCart (see Communicator.createCart). */
export async function createCart(comm: Communicator, dims: readonly number[], periods: boolean | readonly boolean[], reorder: boolean): Promise<CartCommunicator | undefined> {
  const errorRank = comm.member ? comm.worldRankOf(comm.rank) : -1;
  if (typeof reorder !== 'boolean') {
    throw new TsmpiError(ErrorCode.Arg, `reorder ${JSON.stringify(reorder)} is not a boolean`, { rank: errorRank, operation: 'createCart', hint: 'pass true or false (ranks keep their order either way)' });
  }
  const shape = cartShape(dims, periods, comm.size, errorRank);
  const cells = shape.dims.reduce((product, d) => product * d, 1);
  const init = await comm.splitInit(comm.rank < cells ? 0 : undefined, 0, `cart ${shapeName(shape.dims)} of ${comm.name}`);
  return init === undefined ? undefined : new CartCommunicator(init, shape.dims, shape.periods);
}

// Communicator cannot import this module (it extends Communicator): install its constructor.
Communicator.topologies.createCart = createCart;
