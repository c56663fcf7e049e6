/**
 * The shared memory of a simulated process that holds every world rank (the threads launcher's
 * placement): the world's barrier, broadcast slots and staging regions, as ShmTransport gives them
 * to rank threads, so that the collectives choose and run the same algorithms under `tsmpi sim` as
 * in the real run.
 *
 * The bytes are a real control area (control-block.ts), written and read by the runtime's own
 * code: every simulated rank runs in this thread, so what a rank wrote is there when another
 * reads it. What the simulator adds is when it may be seen. Each rank's views stamp what it does
 * with its virtual time and answer another rank by that rank's time: a barrier passes at its last
 * arrival (in virtual time, not in the order the ranks happened to run), a broadcast chunk is
 * there from the time its root published it. An event at that time re-checks the waiting ranks,
 * which resume as from an intra-process arrival (the wake-up model's yield or sleep).
 *
 * The CPU of the copies is the simulator's own, measured where the program's compute is
 * measured: the broadcast's here, the staged collectives' through the progress's `building`.
 */
import { allocateControlArea, BCAST_SLOT_BYTES, BCAST_SLOTS, ControlArea } from '../transport/control-block.js';
import type { WorldBarrier, WorldBroadcast, WorldStaging } from '../transport/transport.js';
import type { SimRank, SimWorld } from './world.js';

/** The views of the process's shared memory one rank's transport holds. */
export interface SimSharedViews {
  readonly worldBarrier: WorldBarrier;
  readonly worldBroadcast: WorldBroadcast;
  readonly worldStaging: WorldStaging;
}

/** Generations whose release time is kept: a rank checks one at most two behind the open one. */
const RELEASES_KEPT = 4;

/** A barrier of every world rank counted in virtual time. */
class VirtualBarrier {
  /** The generation ranks enter now. */
  generation = 0;
  private readonly arrived: Uint8Array;
  private count = 0;
  private latest = Number.NEGATIVE_INFINITY;
  /** Virtual time each recent generation released its ranks, by generation % RELEASES_KEPT. */
  private readonly releasedAt = new Float64Array(RELEASES_KEPT);

  constructor(
    private readonly memory: SimSharedMemory,
    size: number,
  ) {
    this.arrived = new Uint8Array(size);
  }

  /** `rank` arrives at virtual time `time`: -1 when it arrives last in virtual time, else the generation to wait past. */
  enter(rank: number, time: number): number {
    const generation = this.generation;
    this.arrived[rank] = 1;
    this.count++;
    if (time > this.latest) this.latest = time;
    if (this.count < this.arrived.length) return generation;
    // Every rank is in: the barrier releases them at its last arrival in virtual time, which may be
    // a rank that ran earlier in this thread.
    const release = this.latest;
    this.releasedAt[generation % RELEASES_KEPT] = release;
    this.generation++;
    this.arrived.fill(0);
    this.count = 0;
    this.latest = Number.NEGATIVE_INFINITY;
    this.memory.wakeAt(release);
    return time >= release ? -1 : generation;
  }

  /** True once `generation` has released its ranks by virtual time `time`. */
  passed(generation: number, time: number): boolean {
    return generation < this.generation && time >= this.releasedAt[generation % RELEASES_KEPT]!;
  }

  /** A world rank not in `generation` yet, or -1. */
  missing(generation: number): number {
    return generation < this.generation ? -1 : this.arrived.indexOf(0);
  }
}

export class SimSharedMemory {
  private readonly world: SimWorld;
  private readonly control: ControlArea;
  private readonly barrier: VirtualBarrier;
  private readonly stagingBarrier: VirtualBarrier;
  /** Virtual time each broadcast slot's chunk was published. */
  private readonly publishedAt = new Float64Array(BCAST_SLOTS);
  /** A root found its slot still being read: the reader that frees one wakes the ranks. */
  private publisherWaiting = false;

  /** The shared memory of `world`, every rank of which is in one simulated process. */
  constructor(world: SimWorld) {
    this.world = world;
    const size = world.ranks.length;
    this.control = new ControlArea(allocateControlArea(size), size);
    this.barrier = new VirtualBarrier(this, size);
    this.stagingBarrier = new VirtualBarrier(this, size);
  }

  /** Re-checks every waiting rank at virtual time `time`, as an intra-process arrival would. */
  wakeAt(time: number): void {
    const world = this.world;
    world.sim.post(time, () => {
      for (const rank of world.ranks) {
        if (rank.running || rank.onArrival === null) continue;
        rank.lastArrival = 'intra-process';
        rank.onArrival();
      }
    });
  }

  /** The virtual time of `rank` now (its clock while it runs, the simulation's while it waits). */
  private timeOf(rank: SimRank): number {
    return this.world.rankNow(rank);
  }

  /** The views `rank`'s transport holds. */
  viewsOf(rank: SimRank): SimSharedViews {
    const control = this.control;
    const size = this.world.ranks.length;
    const barrierView = (barrier: VirtualBarrier): WorldBarrier => ({
      enter: () => barrier.enter(rank.rank, this.timeOf(rank)),
      passed: (generation) => barrier.passed(generation, this.timeOf(rank)),
      missing: (generation) => barrier.missing(generation),
    });
    const published = (sequence: number): boolean => control.bcastLength(sequence) >= 0 && this.timeOf(rank) >= this.publishedAt[sequence % BCAST_SLOTS]!;
    return {
      worldBarrier: barrierView(this.barrier),
      worldBroadcast: {
        chunkBytes: BCAST_SLOT_BYTES,
        publish: (sequence, payload, offset, length, total, kind) => {
          const done = this.world.building(rank, () => control.publishBcast(sequence, rank.rank, payload, offset, length, total, kind, size - 1));
          if (!done) {
            this.publisherWaiting = true;
            return false;
          }
          const time = this.timeOf(rank);
          this.publishedAt[sequence % BCAST_SLOTS] = time;
          this.wakeAt(time);
          return true;
        },
        length: (sequence) => (published(sequence) ? control.bcastLength(sequence) : -1),
        root: (sequence) => control.bcastRoot(sequence),
        total: (sequence) => control.bcastTotal(sequence),
        kind: (sequence) => control.bcastKind(sequence),
        take: (sequence, into, at, length) => {
          this.world.building(rank, () => control.takeBcast(sequence, into, at, length));
          if (this.publisherWaiting) {
            this.publisherWaiting = false;
            this.wakeAt(this.timeOf(rank));
          }
        },
      },
      worldStaging: {
        barrier: barrierView(this.stagingBarrier),
        buffer: control.buffer,
        regionBytes: control.stagingBytes,
        regionOffset: (r) => control.stagingOffset(r),
        resultOffset: control.stagingOffset(size),
        setShape: (bytes, kind) => control.setStaged(rank.rank, bytes, kind),
        shapeBytes: (r) => control.stagedBytes(r),
        shapeKind: (r) => control.stagedKind(r),
      },
    };
  }
}
