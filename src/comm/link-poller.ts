/**
 * What a rank polls, and how it finds who writes to it (ob1's progress loop). Links that must be
 * polled (shared-memory rings) deliver from `poll()`; a peer's ring is polled once that peer has
 * registered as a writer (its first frame), so a rank with many local peers polls only those
 * that talk to it. Each poll also writes what backlogged links now take.
 */
import type { Link } from '../transport/link.js';
import type { Transport } from '../transport/transport.js';
import type { SendPath } from './send-path.js';

export class LinkPoller {
  private readonly transport: Transport;
  private readonly sends: SendPath;
  private readonly rank: number;
  private readonly polled: Link[] = [];
  private writersSeen = 0;
  private pollCount = 0;
  private writersKnown = false;
  /** The transport's start of a poll (links that hold frames back publish them), bound once. */
  private readonly pollStarts: (() => void) | undefined;

  constructor(transport: Transport, sends: SendPath) {
    this.transport = transport;
    this.sends = sends;
    this.rank = transport.rank;
    this.pollStarts = transport.pollStarts?.bind(transport);
  }

  /** A link was made: the loopback to this rank is polled from the start. */
  linkMade(rank: number, link: Link): void {
    if (rank === this.rank) this.polled.push(link);
  }

  /** Polls once: new writers, backlogged links, inbound frames. True when anything progressed. */
  poll(): boolean {
    // A peer's first frame is rare: look for new writers on every 16th poll only (an atomic load
    // of a line other ranks write to costs more than polling a known ring).
    return this.pollLinks((++this.pollCount & 15) === 0);
  }

  /** Polls everything, new writers included (the last look before the rank sleeps). */
  pollFully(): boolean {
    return this.pollLinks(true);
  }

  private pollLinks(lookForWriters: boolean): boolean {
    this.pollStarts?.();
    if ((lookForWriters || !this.writersKnown) && (!this.writersKnown || (this.transport.writerCount?.() ?? 0) !== this.writersSeen)) {
      this.discoverWriters();
    }
    let progressed = this.sends.pumpBacklog();
    const polled = this.polled;
    for (let i = 0; i < polled.length; i++) if (polled[i]!.poll() > 0) progressed = true;
    return progressed;
  }

  private discoverWriters(): void {
    this.writersSeen = this.transport.writerCount?.() ?? 0;
    this.writersKnown = this.transport.discoverWriters((peer) => {
      const state = this.sends.peer(peer);
      if (peer !== this.rank) this.polled.push(state.link);
    });
  }
}
