/**
 * allgatherv of a world whose ranks all live in this process (the threads launcher), through the
 * process's staging regions (control-block.ts). Each round, every rank copies its block (or the
 * round's part of it) into its own region; once every rank has (the staging barrier), each copies
 * every other rank's block out of its region into its place in the result.
 *
 * Rounds alternate between the two halves of each region, so a round needs one barrier, not two:
 * a rank writes a half again only two rounds on, after the barrier of the round between, which
 * every rank enters only once it has read the half (staged-request.ts).
 *
 * A ring moves each block p - 1 times, a copy into a link and one out of it per hop, in p - 1
 * rounds that each wait for a neighbour to be scheduled; here each block is copied in once and out
 * once per reader, in one round per half region. Open MPI's shared-memory collectives (coll/sm)
 * gather through shared segments the same way.
 *
 * The first round's half starts with a header: the rank's block's bytes and a digest of its
 * counts. Every rank reads every header, so all of them see a mismatch (counts that differ between
 * ranks, or a block other than the counts say) and fail the call after that round, with an error
 * that names both ranks.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { StagedRequest, stagingHalfBytes, type StagedHost } from './staged-request.js';
import { copyBytes } from '../transport/copy-bytes.js';

/** Header words before a half's data: the block's bytes, the counts' digest. */
const BLOCK_BYTES = 0;
const DIGEST = 1;
/** The header's bytes: data starts on a 64-byte boundary (a copy of aligned bytes runs fastest). */
const HEADER_BYTES = 64;
const ALIGN = 64;

export class StagedGatherRequest extends StagedRequest<void> {
  protected override readonly alternatesHalves = true;
  private readonly block: Uint8Array;
  /** Where each rank's block lands (world rank order; this rank's own is placed by the caller). */
  private readonly incoming: readonly Uint8Array[];
  private readonly countsDigest: number;
  private readonly operationLabel: string;
  /** Bytes of a half region, and of a block a round holds. */
  private readonly halfBytes: number;
  private readonly perRound: number;
  /** Where the round in hand starts in every block; the longest block (the rounds' extent). */
  private at = 0;
  private readonly extent: number;
  private half = 0;
  private mismatch: TsmpiError | undefined;

  /**
   * `incoming[r]`: where world rank r's block goes (its length is the block's, by the counts
   * every rank passed); `countsDigest` stands for those counts (countsDigest below).
   */
  constructor(host: StagedHost, operation: string, tag: number, context: number, block: Uint8Array, incoming: readonly Uint8Array[], countsDigest: number, operationLabel: string, previous: { readonly done: boolean } | undefined) {
    super(host, operation, tag, context, previous);
    this.block = block;
    this.incoming = incoming;
    this.countsDigest = countsDigest;
    this.operationLabel = operationLabel;
    this.halfBytes = stagingHalfBytes(host.staging.regionBytes);
    this.perRound = this.halfBytes - HEADER_BYTES;
    let extent = 0;
    for (const view of incoming) extent = Math.max(extent, view.byteLength);
    this.extent = extent;
    this.advance();
  }

  protected start(): boolean {
    return true;
  }

  /** Byte offset of `rank`'s half of the round in hand. */
  private halfOffset(rank: number): number {
    return this.host.staging.regionOffset(rank) + this.half * this.halfBytes;
  }

  protected stage(): void {
    const host = this.host;
    this.half = host.half;
    host.half ^= 1;
    const base = this.halfOffset(host.rank);
    if (this.at === 0) {
      host.words[(base >> 2) + BLOCK_BYTES] = this.block.byteLength;
      host.words[(base >> 2) + DIGEST] = this.countsDigest;
    }
    const end = Math.min(this.block.byteLength, this.at + this.perRound);
    if (end > this.at) copyBytes(host.bytes, base + HEADER_BYTES, this.block, this.at, end - this.at);
  }

  protected readRound(): void {
    if (this.at === 0) this.mismatch = this.checkHeaders();
    if (this.mismatch !== undefined) return;
    const { rank, size, bytes } = this.host;
    const end = this.at + this.perRound;
    // From the next rank on: readers start on different regions rather than all on rank 0's.
    for (let step = 1; step < size; step++) {
      const r = (rank + step) % size;
      const into = this.incoming[r]!;
      const length = Math.min(into.byteLength, end) - this.at;
      if (length > 0) copyBytes(into, this.at, bytes, this.halfOffset(r) + HEADER_BYTES, length);
    }
  }

  protected endRound(): boolean {
    // Every rank found the same mismatch in the first round's headers, or none: then the counts
    // agree, and so do the extents and the rounds every rank takes.
    if (this.mismatch !== undefined) {
      this.fail(this.mismatch);
      return true;
    }
    this.at += this.perRound;
    if (this.at < this.extent) return false;
    this.complete(undefined);
    return true;
  }

  /** The error every rank reports when the ranks' counts or blocks disagree, else undefined. */
  private checkHeaders(): TsmpiError | undefined {
    const { size, words } = this.host;
    const header = (r: number): number => this.halfOffset(r) >> 2;
    const digest = words[header(0) + DIGEST];
    for (let r = 0; r < size; r++) {
      const at = header(r);
      if (words[at + DIGEST] !== digest) return this.countError(`rank 0 and rank ${r} passed different counts`, 'every rank must pass the same counts (and the same kind of typed array)');
      if (words[at + BLOCK_BYTES] !== this.incoming[r]!.byteLength) return this.countError(`rank ${r} passed ${words[at + BLOCK_BYTES]} bytes where the counts say ${this.incoming[r]!.byteLength}`, "each rank's array must hold exactly its count of elements");
    }
    return undefined;
  }

  private countError(what: string, hint: string): TsmpiError {
    return new TsmpiError(ErrorCode.Count, `${this.operationLabel}: ${what}`, { rank: this.host.rank, operation: this.operation, hint });
  }

  protected release(): void {}
}

/** A 32-bit digest of an allgatherv's counts and element width (FNV-1a): equal counts give equal digests on every rank. */
export function countsDigest(counts: readonly number[], width: number): number {
  let hash = 0x811c9dc5 ^ width;
  for (const count of counts) {
    hash = Math.imul(hash ^ (count & 0xffff), 0x01000193);
    hash = Math.imul(hash ^ (count >>> 16), 0x01000193);
  }
  return hash | 0;
}
