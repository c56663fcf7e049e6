/**
 * Reductions of a world whose ranks all live in this process (the threads launcher), through the
 * process's staging regions (control-block.ts): each rank copies its array into its own region;
 * once every rank has (the staging barrier), each combines one part of all the regions, in rank
 * order; once every rank has (the barrier again), the regions may be reused.
 * - allreduce: each rank combines a slice of 1/p into the result region, and after the second
 *   barrier every rank copies the result out. A rank copies the array in and out once and
 *   combines 1/p of it, where a ring sends and receives 2 (p - 1)/p of it in 2 (p - 1) rounds,
 *   each of which waits for a neighbour to be scheduled.
 * - reduce-scatter: each rank combines its own block straight into its result.
 * Arrays larger than a region go a region at a time (reduce-scatter: a part of every block at a
 * time). Open MPI's shared-memory collectives (coll/sm) reduce through shared segments the same way.
 *
 * Every part is combined once, in rank order, so all ranks get the same bits for any built-in op.
 * The first chunk checks that every rank staged an array of the same kind and length; a mismatch
 * fails every rank with an error that names both ranks (they all read the same shapes).
 * The rounds and their order are staged-request.ts's.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { elementBytes, kindName, rawKindOf, type TypedArray } from './codec.js';
import type { CombineLoop } from './op-kernels.js';
import { withArticle, type InPlaceCombine } from './ops.js';
import { StagedRequest, type StagedHost } from './staged-request.js';

/** The op's typed-array loops: `target = a op b`, and `target = target op source`. */
export interface StagedOp {
  readonly name: string;
  readonly combineTo: CombineLoop;
  readonly combineInto: InPlaceCombine;
}

/**
 * What a staged reduction leaves on this rank: the whole reduction (allreduce), or its block of
 * it (reduce-scatter: block r is `counts[r]` elements from `displacements[r]`, the same on every rank).
 */
export type StagedBlocks = { readonly counts: readonly number[]; readonly displacements: readonly number[] } | undefined;

export class StagedReductionRequest extends StagedRequest<TypedArray> {
  private readonly value: TypedArray;
  private readonly target: TypedArray;
  private readonly op: StagedOp;
  private readonly blocks: StagedBlocks;
  private readonly operationLabel: string;
  /**
   * Where the chunk in hand starts and how long it is: allreduce, elements of the array;
   * reduce-scatter, elements of each block (every block's part of a region is `stride` long).
   */
  private at = 0;
  private chunk = 0;
  private readonly stride: number;
  /** allreduce: the array's length; reduce-scatter: the longest block's. */
  private readonly extent: number;
  /** Views of every rank's region (world rank order) and of the result region, of the value's kind. */
  private regions: TypedArray[] = [];
  private resultRegion: TypedArray | undefined;
  /** The shapes differ: every rank fails once every rank has read them. */
  private mismatch: TsmpiError | undefined;

  /**
   * `target` receives the reduction (allreduce: it may be `value` itself) or this rank's block
   * (`blocks` given); `operationLabel` names the call in errors (`allreduce (Op.sum) on world`).
   */
  constructor(host: StagedHost, operation: string, tag: number, context: number, value: TypedArray, target: TypedArray, op: StagedOp, blocks: StagedBlocks, operationLabel: string, previous: { readonly done: boolean } | undefined) {
    super(host, operation, tag, context, previous);
    this.value = value;
    this.target = target;
    this.op = op;
    this.blocks = blocks;
    this.operationLabel = operationLabel;
    const regionElements = Math.floor(host.staging.regionBytes / value.BYTES_PER_ELEMENT);
    if (blocks === undefined) {
      this.stride = regionElements;
      this.extent = value.length;
    } else {
      this.stride = Math.floor(regionElements / host.size);
      if (this.stride === 0) throw new RangeError(`a staged reduce-scatter of ${host.size} ranks needs regions of ${host.size} elements`);
      this.extent = Math.max(0, ...blocks.counts);
    }
    this.advance();
  }

  protected start(): boolean {
    if (this.extent === 0) {
      // Nothing to combine on any rank (the lengths agree): no round to take.
      this.complete(this.target);
      return false;
    }
    const { staging, size } = this.host;
    const ctor = this.value.constructor as new (buffer: SharedArrayBuffer, offset: number, length: number) => TypedArray;
    const elements = Math.floor(staging.regionBytes / this.value.BYTES_PER_ELEMENT);
    for (let r = 0; r < size; r++) this.regions.push(new ctor(staging.buffer, staging.regionOffset(r), elements));
    if (this.blocks === undefined) this.resultRegion = new ctor(staging.buffer, staging.resultOffset, elements);
    return true;
  }

  /** Copies the next chunk into this rank's region. */
  protected stage(): void {
    if (this.at === 0) this.host.staging.setShape(this.value.byteLength, rawKindOf(this.value));
    const own = this.regions[this.host.rank]!;
    this.chunk = Math.min(this.stride, this.extent - this.at);
    if (this.blocks === undefined) {
      own.set(this.value.subarray(this.at, this.at + this.chunk) as never);
      return;
    }
    // Each block's part of this chunk, at the block's place in the region.
    const { counts, displacements } = this.blocks;
    for (let b = 0; b < counts.length; b++) {
      const from = displacements[b]! + this.at;
      const length = Math.min(this.chunk, counts[b]! - this.at);
      if (length > 0) own.set(this.value.subarray(from, from + length) as never, b * this.stride);
    }
  }

  protected readRound(): void {
    if (this.at === 0) this.mismatch = this.checkShapes();
    if (this.mismatch !== undefined) return;
    if (this.blocks === undefined) this.combineSlice();
    else this.combineBlock(this.blocks);
  }

  protected endRound(): boolean {
    if (this.mismatch !== undefined) {
      this.fail(this.mismatch);
      return true;
    }
    if (this.blocks === undefined) this.target.set(this.resultRegion!.subarray(0, this.chunk) as never, this.at);
    this.at += this.chunk;
    if (this.at < this.extent) return false;
    this.complete(this.target);
    return true;
  }

  /** allreduce: this rank's slice of the chunk, combined across every rank's region in rank order into the result region. */
  private combineSlice(): void {
    const { rank, size } = this.host;
    const base = Math.floor(this.chunk / size);
    const extra = this.chunk % size;
    const begin = rank * base + Math.min(rank, extra);
    this.combineRange(this.resultRegion!.subarray(begin, begin + base + (rank < extra ? 1 : 0)) as TypedArray, begin);
  }

  /** reduce-scatter: this rank's block's part of the chunk, combined across every rank's region in rank order into the result. */
  private combineBlock(blocks: NonNullable<StagedBlocks>): void {
    const rank = this.host.rank;
    const length = Math.min(this.chunk, blocks.counts[rank]! - this.at);
    if (length > 0) this.combineRange(this.target.subarray(this.at, this.at + length) as TypedArray, rank * this.stride);
  }

  /** `into` = the regions' elements from `begin` (as many as `into` holds), combined in rank order. */
  private combineRange(into: TypedArray, begin: number): void {
    const end = begin + into.length;
    if (begin === end) return;
    const regions = this.regions;
    this.op.combineTo(into, regions[0]!.subarray(begin, end) as TypedArray, regions[1]!.subarray(begin, end) as TypedArray);
    for (let r = 2; r < regions.length; r++) this.op.combineInto(into, regions[r]!.subarray(begin, end) as TypedArray);
  }

  /** The error every rank reports when some rank staged another kind or length than rank 0, else undefined. */
  private checkShapes(): TsmpiError | undefined {
    const { staging, size } = this.host;
    const bytes = staging.shapeBytes(0);
    const kind = staging.shapeKind(0);
    for (let r = 1; r < size; r++) {
      const otherBytes = staging.shapeBytes(r);
      const otherKind = staging.shapeKind(r);
      if (otherBytes === bytes && otherKind === kind) continue;
      return new TsmpiError(ErrorCode.Count, `rank 0 passed ${describeShape(kind, bytes)} and rank ${r} ${describeShape(otherKind, otherBytes)} to ${this.operationLabel}`, {
        rank: this.host.rank,
        operation: this.operation,
        hint: 'every rank must pass the same kind and length of typed array',
      });
    }
    return undefined;
  }

  protected release(): void {
    this.regions = [];
    this.resultRegion = undefined;
  }
}

/** A staged array as errors name operands (`a Float64Array(4)`, describeOperand). */
function describeShape(kind: number, bytes: number): string {
  return withArticle(`${kindName(kind)}Array(${bytes / elementBytes(kind)})`);
}
