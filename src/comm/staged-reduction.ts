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
 * Small arrays (up to STAGED_WHOLE_MAX_BYTES) go whole instead, in one barrier: each rank copies
 * its array into a half of its region, and once every rank has, each combines all of them (its
 * own block of them, reduce-scatter) in rank order straight into its result. The rounds alternate
 * between the halves, so no second barrier waits for the reads (staged-request.ts). Combining
 * p arrays on every rank costs less than a barrier where arrays are small: a barrier of rank
 * threads that outnumber the cores is a round of context switches.
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
import { StagedRequest, stagingHalfBytes, type StagedHost } from './staged-request.js';
import { copyBytes } from '../transport/copy-bytes.js';

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

/** Arrays up to this many bytes (reduce-scatter: this many per rank) are staged whole, in one barrier (see above). */
export const STAGED_WHOLE_MAX_BYTES = 2048;
/**
 * A whole-array half starts with a header (a mark, the call's sequence, the array's bytes and
 * kind); data on a 64-byte boundary. The mark and the sequence tell a rank that staged another
 * way (an array of another length) from one in this call: such a rank wrote its data there.
 */
const WHOLE_HEADER_BYTES = 64;
const WHOLE_MARK = 0;
const WHOLE_SEQUENCE = 1;
const WHOLE_BYTES = 2;
const WHOLE_KIND = 3;
const WHOLE_HEADER_WORDS = 4;
const MARK = 0x57484c45;

type ViewMaker = new (buffer: SharedArrayBuffer, offset: number, length: number) => TypedArray;

/**
 * Views of every rank's two halves for a whole-array reduction, kept from the last call of the
 * same kind, offset and length: a typed-array view costs ~0.1 us to make, and a loop of small
 * reductions would make 2p of them a call.
 */
interface WholeViews {
  readonly maker: ViewMaker;
  readonly begin: number;
  readonly length: number;
  /** [half * size + rank]. */
  readonly views: TypedArray[];
}
const wholeViews = new WeakMap<StagedHost, WholeViews>();

export class StagedReductionRequest extends StagedRequest<TypedArray> {
  protected override readonly alternatesHalves: boolean;
  /** The array goes whole, in one barrier (small arrays). */
  private readonly whole: boolean;
  private readonly halfBytes: number;
  private half = 0;
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
    this.halfBytes = stagingHalfBytes(host.staging.regionBytes);
    // reduce-scatter: blocks that average at most the limit (each rank combines its own block).
    this.whole = value.byteLength <= (blocks === undefined ? 1 : host.size) * STAGED_WHOLE_MAX_BYTES && WHOLE_HEADER_BYTES + value.byteLength <= this.halfBytes;
    this.alternatesHalves = this.whole;
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
    if (this.whole) return true;
    const { staging, size } = this.host;
    const ctor = this.value.constructor as ViewMaker;
    const elements = Math.floor(staging.regionBytes / this.value.BYTES_PER_ELEMENT);
    for (let r = 0; r < size; r++) this.regions.push(new ctor(staging.buffer, staging.regionOffset(r), elements));
    if (this.blocks === undefined) this.resultRegion = new ctor(staging.buffer, staging.resultOffset, elements);
    return true;
  }

  /** Copies the next chunk into this rank's region. */
  protected stage(): void {
    if (this.whole) {
      this.stageWhole();
      return;
    }
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
    if (this.whole) {
      this.mismatch = this.checkHeaders();
      if (this.mismatch === undefined) this.combineWhole();
      return;
    }
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
    if (this.whole) {
      this.complete(this.target);
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

  /** Byte offset of `rank`'s half of the whole-array round. */
  private halfOffset(rank: number): number {
    return this.host.staging.regionOffset(rank) + this.half * this.halfBytes;
  }

  /** The header and the whole array into this rank's half of the round. */
  private stageWhole(): void {
    const host = this.host;
    this.half = host.half;
    host.half ^= 1;
    const base = this.halfOffset(host.rank);
    const words = host.words;
    const at = base >> 2;
    words[at + WHOLE_MARK] = MARK;
    words[at + WHOLE_SEQUENCE] = this.sequence;
    words[at + WHOLE_BYTES] = this.value.byteLength;
    words[at + WHOLE_KIND] = rawKindOf(this.value);
    const value = this.value;
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    copyBytes(host.bytes, base + WHOLE_HEADER_BYTES, bytes, 0, bytes.byteLength);
  }

  /**
   * Every rank's staged array of the round (its block of each, reduce-scatter) combined in rank
   * order into the target.
   */
  private combineWhole(): void {
    const { rank, size } = this.host;
    const blocks = this.blocks;
    const begin = blocks === undefined ? 0 : blocks.displacements[rank]!;
    const length = blocks === undefined ? this.value.length : blocks.counts[rank]!;
    if (length === 0) return;
    const into = blocks === undefined ? this.target : this.target.length === length ? this.target : (this.target.subarray(0, length) as TypedArray);
    const views = this.viewsOf(begin, length);
    const first = this.half * size;
    if (size === 1) {
      into.set(views[first]! as never);
      return;
    }
    this.op.combineTo(into, views[first]!, views[first + 1]!);
    for (let r = 2; r < size; r++) this.op.combineInto(into, views[first + r]!);
  }

  private viewsOf(begin: number, length: number): TypedArray[] {
    const host = this.host;
    const maker = this.value.constructor as ViewMaker;
    const kept = wholeViews.get(host);
    if (kept !== undefined && kept.maker === maker && kept.begin === begin && kept.length === length) return kept.views;
    const views: TypedArray[] = [];
    const width = this.value.BYTES_PER_ELEMENT;
    for (let half = 0; half < 2; half++) {
      for (let r = 0; r < host.size; r++) views.push(new maker(host.staging.buffer, host.staging.regionOffset(r) + half * this.halfBytes + WHOLE_HEADER_BYTES + begin * width, length));
    }
    wholeViews.set(host, { maker, begin, length, views });
    return views;
  }

  /**
   * The error every rank reports when some rank staged another kind or length than rank 0 (or is
   * in another staged call: its array's length made it choose otherwise), else undefined.
   */
  private checkHeaders(): TsmpiError | undefined {
    const { size, words: all } = this.host;
    const header = (r: number): Int32Array => all.subarray(this.halfOffset(r) >> 2, (this.halfOffset(r) >> 2) + WHOLE_HEADER_WORDS);
    for (let r = 0; r < size; r++) {
      const at = this.halfOffset(r) >> 2;
      if (all[at + WHOLE_MARK] !== MARK || all[at + WHOLE_SEQUENCE] !== this.sequence) {
        return new TsmpiError(ErrorCode.Count, `rank ${r} is not in ${this.operationLabel} as rank ${this.host.rank} is: this rank passed ${describeShape(rawKindOf(this.value), this.value.byteLength)}, and an array of another length takes another way through the staging regions`, {
          rank: this.host.rank,
          operation: this.operation,
          hint: 'every rank must pass the same kind and length of typed array',
        });
      }
      if (r > 0 && (all[at + WHOLE_BYTES] !== all[(this.halfOffset(0) >> 2) + WHOLE_BYTES] || all[at + WHOLE_KIND] !== all[(this.halfOffset(0) >> 2) + WHOLE_KIND])) {
        const words = header(r);
        const first = header(0);
        return new TsmpiError(ErrorCode.Count, `rank 0 passed ${describeShape(first[WHOLE_KIND]!, first[WHOLE_BYTES]!)} and rank ${r} ${describeShape(words[WHOLE_KIND]!, words[WHOLE_BYTES]!)} to ${this.operationLabel}`, {
          rank: this.host.rank,
          operation: this.operation,
          hint: 'every rank must pass the same kind and length of typed array',
        });
      }
    }
    return undefined;
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
