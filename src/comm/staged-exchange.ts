/**
 * alltoallv of a world whose ranks all live in this process (the threads launcher), through the
 * process's staging regions (control-block.ts). A half region holds a header and one slot per
 * destination rank. Each round, every rank copies the round's part of its block for rank d into
 * slot d of its own half; once every rank has (the staging barrier), each copies slot `rank` of
 * every other rank's half into its place in the result.
 *
 * Rounds alternate between the two halves of each region, as the staged allgatherv's do
 * (staged-gather.ts): one barrier a round. Where rank threads outnumber the cores, pairwise rounds
 * each waited for a partner to be scheduled, and messages posted at once for a flood of wake-ups;
 * here every block is copied in once and out once, and a round waits for every rank once.
 *
 * The first round's header holds the longest block the rank sends (the rounds every rank takes
 * follow from the longest of all) and the bytes it sends each rank. A rank whose receive counts
 * disagree with what a sender says it sends still takes every round, reads what fits, and fails
 * the call at the end with an error that names both ranks: no rank is left waiting in a barrier.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { StagedRequest, stagingHalfBytes, type StagedHost } from './staged-request.js';
import { copyBytes } from '../transport/copy-bytes.js';

/** Header words: the longest block this rank sends, then the bytes it sends each rank. */
const LONGEST = 0;
const SENDS = 1;
const ALIGN = 64;

/** How a half region is cut for `size` ranks: the header's bytes, then `size` slots of `slotBytes`. */
export interface ExchangeLayout {
  readonly halfBytes: number;
  readonly headerBytes: number;
  readonly slotBytes: number;
}

/** The layout of a half of `regionBytes` for `size` ranks; slotBytes is 0 when a slot would hold under 64 bytes. */
export function exchangeLayout(regionBytes: number, size: number): ExchangeLayout {
  const halfBytes = stagingHalfBytes(regionBytes);
  const headerBytes = Math.ceil(((SENDS + size) * 4) / ALIGN) * ALIGN;
  const slotBytes = Math.floor((halfBytes - headerBytes) / size / ALIGN) * ALIGN;
  return { halfBytes, headerBytes, slotBytes: slotBytes >= ALIGN ? slotBytes : 0 };
}

export class StagedExchangeRequest extends StagedRequest<void> {
  protected override readonly alternatesHalves = true;
  /** `outgoing[d]`: the block for world rank d; `incoming[s]`: where rank s's block lands (this rank's own are the caller's). */
  private readonly outgoing: readonly Uint8Array[];
  private readonly incoming: readonly Uint8Array[];
  private readonly operationLabel: string;
  private readonly layout: ExchangeLayout;
  /** Where the round in hand starts in every block; the longest block of any rank (known after the first round). */
  private at = 0;
  private extent = 0;
  private half = 0;
  private mismatch: TsmpiError | undefined;

  constructor(host: StagedHost, operation: string, tag: number, context: number, outgoing: readonly Uint8Array[], incoming: readonly Uint8Array[], operationLabel: string, previous: { readonly done: boolean } | undefined) {
    super(host, operation, tag, context, previous);
    this.outgoing = outgoing;
    this.incoming = incoming;
    this.operationLabel = operationLabel;
    this.layout = exchangeLayout(host.staging.regionBytes, host.size);
    if (this.layout.slotBytes === 0) throw new RangeError(`a staged alltoallv of ${host.size} ranks needs regions of at least ${2 * (this.layout.headerBytes + host.size * ALIGN)} bytes`);
    this.advance();
  }

  protected start(): boolean {
    return true;
  }

  /** Byte offset of `rank`'s half of the round in hand. */
  private halfOffset(rank: number): number {
    return this.host.staging.regionOffset(rank) + this.half * this.layout.halfBytes;
  }

  protected stage(): void {
    const host = this.host;
    const { headerBytes, slotBytes } = this.layout;
    this.half = host.half;
    host.half ^= 1;
    const base = this.halfOffset(host.rank);
    const { rank, size, bytes, words } = host;
    if (this.at === 0) {
      const header = base >> 2;
      let longest = 0;
      for (let d = 0; d < size; d++) {
        const length = this.outgoing[d]!.byteLength;
        words[header + SENDS + d] = length;
        if (d !== rank && length > longest) longest = length;
      }
      words[header + LONGEST] = longest;
    }
    for (let d = 0; d < size; d++) {
      if (d === rank) continue;
      const block = this.outgoing[d]!;
      const length = Math.min(block.byteLength - this.at, slotBytes);
      if (length > 0) copyBytes(bytes, base + headerBytes + d * slotBytes, block, this.at, length);
    }
  }

  protected readRound(): void {
    const { rank, size, bytes } = this.host;
    const { headerBytes, slotBytes } = this.layout;
    if (this.at === 0) this.readHeaders();
    // From the next rank on: readers start on different regions rather than all on rank 0's.
    for (let step = 1; step < size; step++) {
      const s = (rank + step) % size;
      const into = this.incoming[s]!;
      const length = Math.min(into.byteLength - this.at, slotBytes);
      if (length > 0) copyBytes(into, this.at, bytes, this.halfOffset(s) + headerBytes + rank * slotBytes, length);
    }
  }

  /** The first round: the longest block of any rank, and whether every sender's bytes for this rank match its receive counts. */
  private readHeaders(): void {
    const { rank, size, words } = this.host;
    let extent = 0;
    for (let s = 0; s < size; s++) {
      const header = this.halfOffset(s) >> 2;
      const longest = words[header + LONGEST]!;
      if (longest > extent) extent = longest;
      if (s === rank || this.mismatch !== undefined) continue;
      const sent = words[header + SENDS + rank]!;
      const expected = this.incoming[s]!.byteLength;
      if (sent !== expected) {
        // More than the counts say is a truncation, as a message's; fewer, counts that disagree.
        this.mismatch = new TsmpiError(sent > expected ? ErrorCode.Truncate : ErrorCode.Count, `${this.operationLabel}: rank ${s} sends ${sent} bytes to rank ${rank}, whose receive counts say ${expected}`, {
          rank,
          operation: this.operation,
          hint: `recvCounts[${s}] on rank ${rank} must equal sendCounts[${rank}] on rank ${s} (and the ranks must pass the same kind of typed array)`,
        });
      }
    }
    this.extent = extent;
  }

  protected endRound(): boolean {
    this.at += this.layout.slotBytes;
    if (this.at < this.extent) return false;
    // Every rank took every round (the extent is the same on all): a mismatch fails only the ranks that found one.
    if (this.mismatch !== undefined) this.fail(this.mismatch);
    else this.complete(undefined);
    return true;
  }

  protected release(): void {}
}
