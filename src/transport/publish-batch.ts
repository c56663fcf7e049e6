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

/** A link whose records a {@link PublishBatch} publishes. */
export interface HeldRecords {
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

  /** A burst began: the current job's end, like a poll, ends it. */
  burstBegins(): void {
    if (!this.queued) {
      this.queued = true;
      queueMicrotask(this.jobEnds);
    }
  }

  /** `link` began holding records back: they are published by the next poll or the job's end. */
  hold(link: HeldRecords): void {
    this.holding.push(link);
    this.burstBegins();
  }

  /** Publishes what every link holds back. */
  publishAll(): void {
    const holding = this.holding;
    if (holding.length === 0) return;
    for (let i = 0; i < holding.length; i++) holding[i]!.publishHeld();
    holding.length = 0;
  }

  /** A poll of the rank begins: publish what is held, and start a new epoch. */
  pollStarts(): void {
    this.epoch++;
    if (this.holding.length !== 0) this.publishAll();
  }
}
