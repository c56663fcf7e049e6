/**
 * The shared memory of the ranks of one process: the control area (doorbells, states) and the
 * rings, one per ordered pair of local ranks. Rings are reserved up front as address space; the
 * operating system commits a ring's pages only when a frame first touches them, so pairs that
 * never talk cost nothing (a 1 GiB SharedArrayBuffer that is never touched adds 0 bytes of RSS).
 *
 * Layouts:
 * - `per-receiver`: one buffer per receiving rank holding the rings that lead to it (a rank's
 *   inbound memory is its own allocation).
 * - `node-shared`: one buffer for every ring of the process.
 */
import { allocateControlArea } from './control-block.js';
import { ringRegionBytes } from './shm-ring.js';

export type ArenaLayout = 'per-receiver' | 'node-shared';

/** The plain-data description of an arena; it is what the launcher posts to each rank. */
export interface ShmArenaDescriptor {
  readonly slots: number;
  readonly ringBytes: number;
  readonly layout: ArenaLayout;
  readonly control: SharedArrayBuffer;
  readonly rings: readonly SharedArrayBuffer[];
}

export function allocateShmArena(slots: number, ringBytes: number, layout: ArenaLayout = 'per-receiver'): ShmArenaDescriptor {
  const stride = ringRegionBytes(ringBytes);
  const rings: SharedArrayBuffer[] = [];
  if (layout === 'node-shared') {
    rings.push(new SharedArrayBuffer(stride * slots * slots));
  } else {
    for (let dst = 0; dst < slots; dst++) rings.push(new SharedArrayBuffer(stride * slots));
  }
  return { slots, ringBytes, layout, control: allocateControlArea(slots), rings };
}

/** Where the ring from local slot `src` to local slot `dst` lives. */
export function ringRegion(arena: ShmArenaDescriptor, src: number, dst: number): { sab: SharedArrayBuffer; offset: number } {
  const stride = ringRegionBytes(arena.ringBytes);
  if (arena.layout === 'node-shared') return { sab: arena.rings[0]!, offset: (dst * arena.slots + src) * stride };
  return { sab: arena.rings[dst]!, offset: src * stride };
}
