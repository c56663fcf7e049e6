/**
 * Batched publication of the frames of one rank's links. Publishing a shared-memory ring's record
 * is a sequentially consistent store to the ring's head, on a cache line the receiver polls: each
 * publish takes the line back from the receiver's core. A burst of small sends to one peer (a
 * window of isends) paid that per frame: 21% of the sender's time in an 8-byte message-rate loop.
 * A socket paid a writev per frame where one would carry the burst (tcp-link.ts). So a link holds
 * back a frame flagged FRAME_BURST (a program's nonblocking send) that follows another such frame
 * it sent since the rank last polled or its job last ended, until the rank's next poll, the end of
 * the current job (a microtask), or its limit of held bytes ({@link PUBLISH_BATCH_BYTES} for a
 * ring). The first goes at once (an isend before a long computation reaches the peer without
 * delay), and so does every frame not flagged (a blocking send, a collective's, the protocol's
 * own), with what was held before it: those are followed by a wait, not by more sends. The
 * shared-memory and TCP transports of a rank each have a batch; both start a poll together.
 */

/** Bytes of held-back records at which a link publishes them at once (a burst of small frames). */
export const PUBLISH_BATCH_BYTES = 1024;

/** A link whose records a {@link PublishBatch} publishes; the batch keeps its two fields. */
export interface HeldRecords {
  /** The batch's epoch of the link's last FRAME_BURST frame (-1: none yet). */
  sentInEpoch: number;
  /** True while the batch lists the link as holding records back. */
  listed: boolean;
  /** Publishes the records it holds back and wakes the peer if it sleeps. */
  publishHeld(): void;
}

export class PublishBatch {
  /** Counts the rank's polls and job ends: a link publishes at once the first burst frame of each. */
  epoch = 0;
  private readonly holding: HeldRecords[] = [];
  private queued = false;
  private readonly jobEnds = (): void => {
    this.queued = false;
    this.epoch++;
    this.publishAll();
  };

  /**
   * For a FRAME_BURST frame of `link`: true when it follows another of the current epoch (the link
   * may hold it back), false when it begins a burst (it goes at once; the job's end, like a poll,
   * ends the burst).
   */
  continuesBurst(link: HeldRecords): boolean {
    if (link.sentInEpoch === this.epoch) return true;
    link.sentInEpoch = this.epoch;
    this.endAtJobEnd();
    return false;
  }

  /** `link` holds records back: they are published by the next poll or the job's end. */
  hold(link: HeldRecords): void {
    if (link.listed) return;
    link.listed = true;
    this.holding.push(link);
    this.endAtJobEnd();
  }

  private endAtJobEnd(): void {
    if (!this.queued) {
      this.queued = true;
      queueMicrotask(this.jobEnds);
    }
  }

  /** Publishes what every link holds back. */
  publishAll(): void {
    const holding = this.holding;
    if (holding.length === 0) return;
    for (let i = 0; i < holding.length; i++) {
      const link = holding[i]!;
      link.listed = false;
      link.publishHeld();
    }
    holding.length = 0;
  }

  /** A poll of the rank begins: publish what is held, and start a new epoch. */
  pollStarts(): void {
    this.epoch++;
    if (this.holding.length !== 0) this.publishAll();
  }
}
