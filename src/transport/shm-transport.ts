/**
 * The transport of ranks that share a process: shared-memory rings between them and a loopback
 * link to itself. `worldOfSlot[s]` is the world rank living in local slot `s`.
 */
import { BarrierCounter, BCAST_SLOT_BYTES, ControlArea } from './control-block.js';
import type { Link, LinkEvents } from './link.js';
import { LoopbackLink } from './loopback-link.js';
import { PublishBatch } from './publish-batch.js';
import type { ShmArenaDescriptor } from './shm-arena.js';
import { ShmLink } from './shm-link.js';
import type { Transport, WorldBarrier, WorldBroadcast, WorldStaging } from './transport.js';

export class ShmTransport implements Transport {
  readonly rank: number;
  readonly size: number;
  readonly control: ControlArea;
  readonly slot: number;
  readonly worldBarrier: WorldBarrier | undefined;
  readonly worldBroadcast: WorldBroadcast | undefined;
  readonly worldStaging: WorldStaging | undefined;
  private readonly arena: ShmArenaDescriptor;
  private readonly worldOfSlot: readonly number[];
  private readonly slotOfWorld: Map<number, number>;
  private knownWriters = 0;
  private readonly batch = new PublishBatch();

  constructor(arena: ShmArenaDescriptor, slot: number, worldOfSlot: readonly number[], size: number) {
    this.arena = arena;
    this.slot = slot;
    this.worldOfSlot = worldOfSlot;
    this.slotOfWorld = new Map(worldOfSlot.map((world, s) => [world, s]));
    this.rank = worldOfSlot[slot]!;
    this.size = size;
    this.control = new ControlArea(arena.control, arena.slots);
    // Every world rank here: the world's barrier counts arrivals in the control area.
    const control = this.control;
    const barrierOf = (counter: BarrierCounter): WorldBarrier => ({
      enter: () => control.enterBarrier(slot, size, counter),
      passed: (generation) => control.barrierPassed(generation, counter),
      missing: (generation) => {
        const missing = control.missingFromBarrier(generation, counter);
        return missing < 0 ? -1 : worldOfSlot[missing]!;
      },
    });
    this.worldBarrier = worldOfSlot.length === size ? barrierOf(BarrierCounter.World) : undefined;
    this.worldBroadcast =
      worldOfSlot.length === size
        ? {
            chunkBytes: BCAST_SLOT_BYTES,
            publish: (sequence, payload, offset, length, total, kind) => control.publishBcast(sequence, this.rank, payload, offset, length, total, kind, size - 1),
            length: (sequence) => control.bcastLength(sequence),
            root: (sequence) => control.bcastRoot(sequence),
            total: (sequence) => control.bcastTotal(sequence),
            kind: (sequence) => control.bcastKind(sequence),
            take: (sequence, into, at, length) => control.takeBcast(sequence, into, at, length),
          }
        : undefined;
    const slotOf = (rank: number): number => this.slotOfWorld.get(rank)!;
    this.worldStaging =
      worldOfSlot.length === size
        ? {
            barrier: barrierOf(BarrierCounter.Staging),
            buffer: control.buffer,
            regionBytes: control.stagingBytes,
            regionOffset: (rank) => control.stagingOffset(slotOf(rank)),
            resultOffset: control.stagingOffset(control.slots),
            setShape: (bytes, kind) => control.setStaged(slot, bytes, kind),
            shapeBytes: (rank) => control.stagedBytes(slotOf(rank)),
            shapeKind: (rank) => control.stagedKind(slotOf(rank)),
          }
        : undefined;
  }

  /** True when `peer` lives in this process. */
  reaches(peer: number): boolean {
    return this.slotOfWorld.has(peer);
  }

  createLink(peer: number, events: LinkEvents): Link {
    if (peer === this.rank) return new LoopbackLink(peer, events);
    const peerSlot = this.slotOfWorld.get(peer);
    if (peerSlot === undefined) throw new RangeError(`rank ${peer} is not in this process`);
    return new ShmLink(this.arena, this.control, this.slot, peerSlot, peer, events, this.batch);
  }

  pollStarts(): void {
    this.batch.pollStarts();
  }

  writerCount(): number {
    return this.control.writerCount(this.slot);
  }

  discoverWriters(found: (peer: number) => void): boolean {
    const count = this.control.writerCount(this.slot);
    while (this.knownWriters < count) {
      const writerSlot = this.control.writerAt(this.slot, this.knownWriters);
      if (writerSlot < 0) return false;
      this.knownWriters++;
      found(this.worldOfSlot[writerSlot]!);
    }
    return true;
  }

  close(): void {}
}
