/**
 * The transport of a rank that has peers in other processes: shared memory (and the loopback) for
 * the ranks of its own process, TCP for the others. Nothing above it knows which is which.
 */
import type { ControlArea } from './control-block.js';
import type { Link, LinkEvents } from './link.js';
import type { ShmTransport } from './shm-transport.js';
import type { LinkSource, Transport } from './transport.js';

export class HybridTransport implements Transport {
  readonly rank: number;
  readonly size: number;
  readonly control: ControlArea;
  readonly slot: number;
  private readonly shm: ShmTransport;
  private readonly tcp: LinkSource;

  /** `tcp`: what reaches the ranks of other processes (a TcpTransport, or a MultiRailTransport over several). */
  constructor(shm: ShmTransport, tcp: LinkSource) {
    this.shm = shm;
    this.tcp = tcp;
    this.rank = shm.rank;
    this.size = shm.size;
    this.control = shm.control;
    this.slot = shm.slot;
  }

  createLink(peer: number, events: LinkEvents): Link {
    return this.shm.reaches(peer) ? this.shm.createLink(peer, events) : this.tcp.createLink(peer, events);
  }

  pollStarts(): void {
    this.shm.pollStarts();
    this.tcp.pollStarts?.();
  }

  writerCount(): number {
    return this.shm.writerCount();
  }

  discoverWriters(found: (peer: number) => void): boolean {
    return this.shm.discoverWriters(found);
  }

  attach(events: LinkEvents): void {
    this.tcp.attach(events);
  }

  close(): void {
    this.tcp.close();
    this.shm.close();
  }
}
