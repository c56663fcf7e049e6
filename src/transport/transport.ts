/**
 * A Transport makes the links of one rank: given a peer's world rank it returns the Link that
 * reaches it (shared memory for ranks of this process, the loopback for itself, sockets for other
 * processes), and it tells the endpoint which peers started writing to it, so the endpoint polls
 * only links that carry traffic. It also owns the doorbell the rank sleeps on.
 */
import type { Progress, ProgressHost } from './progress.js';
import type { Settings } from '../config/tunables.js';
import type { ControlArea } from './control-block.js';
import type { Link, LinkEvents } from './link.js';

/**
 * What makes links to the peers of one network: TCP sockets, a simulated rail, or several of
 * either (a multi-rail transport). `createLink` gives this rank's link to a peer; `attach` hands
 * the owner's events to links the source accepts itself (incoming connections).
 */
export interface LinkSource {
  createLink(peer: number, events: LinkEvents): Link;
  attach(events: LinkEvents): void;
  /** The rank polls: links that hold back frames of a burst write them now (Transport.pollStarts). */
  pollStarts?(): void;
  close(): void;
}

/** A barrier of every world rank, counted in memory they share (control-block.ts). */
export interface WorldBarrier {
  /** Adds this rank: the generation to wait past, or -1 when it arrived last (the others are released). */
  enter(): number;
  /** True once the barrier entered at `generation` has released its ranks. */
  passed(generation: number): boolean;
  /** A world rank that has not entered the barrier of `generation` yet (hang reports), or -1. */
  missing(generation: number): number;
}

/**
 * The world's broadcasts in shared memory, when every world rank lives in this process: a ring of
 * slots every rank reads in the same order, a broadcast taking one slot per chunk of
 * `chunkBytes` (control-block.ts).
 */
export interface WorldBroadcast {
  /** Largest chunk a slot holds. */
  readonly chunkBytes: number;
  /** Publishes chunk `sequence` (`length` bytes of `payload` from `offset`, of a `total`-byte broadcast of payload `kind`) from this rank; false while its slot is still read (call again). */
  publish(sequence: number, payload: Uint8Array, offset: number, length: number, total: number, kind: number): boolean;
  /** Chunk `sequence`'s length once published, else -1. */
  length(sequence: number): number;
  /** The world rank that published chunk `sequence`. */
  root(sequence: number): number;
  /** The bytes of the broadcast chunk `sequence` belongs to. */
  total(sequence: number): number;
  /** The payload kind of the broadcast chunk `sequence` belongs to. */
  kind(sequence: number): number;
  /** Copies `length` bytes of published chunk `sequence` into `into` at `at` and counts this rank out of its readers. */
  take(sequence: number, into: Uint8Array, at: number, length: number): void;
}

/**
 * The world's staging regions in shared memory, when every world rank lives in this process: a
 * region per rank and a result region of `regionBytes` each in `buffer`, and the shape each rank
 * staged (control-block.ts). Their users order reads and writes with the world's barrier.
 */
export interface WorldStaging {
  /** A barrier of the world's ranks of its own, which only staged collectives enter. */
  readonly barrier: WorldBarrier;
  readonly buffer: SharedArrayBuffer;
  readonly regionBytes: number;
  /** Byte offset of world rank `rank`'s region. */
  regionOffset(rank: number): number;
  /** Byte offset of the result region. */
  readonly resultOffset: number;
  /** Records the bytes and payload kind of the array this rank stages. */
  setShape(bytes: number, kind: number): void;
  /** The bytes world rank `rank` staged. */
  shapeBytes(rank: number): number;
  /** The payload kind world rank `rank` staged. */
  shapeKind(rank: number): number;
}

export interface Transport {
  /** World rank of the rank this transport serves. */
  readonly rank: number;
  readonly size: number;
  /** Control area and slot holding this rank's doorbell (real transports). */
  readonly control?: ControlArea;
  readonly slot?: number;
  /** The world's barrier in shared memory, when every world rank lives in this process (threads). */
  readonly worldBarrier?: WorldBarrier | undefined;
  /** The world's broadcasts in shared memory, when every world rank lives in this process. */
  readonly worldBroadcast?: WorldBroadcast | undefined;
  /** The world's staging regions in shared memory, when every world rank lives in this process. */
  readonly worldStaging?: WorldStaging | undefined;
  /**
   * How the rank waits, when not the runtime's spin-then-sleep engine on `control` (the
   * simulator's transport drives time itself).
   */
  createProgress?(host: ProgressHost, settings: Settings): Progress;
  /** Creates the link to `peer`; called at most once per peer. */
  createLink(peer: number, events: LinkEvents): Link;
  /**
   * Calls `found(peer)` for every peer that began writing to this rank since the last call.
   * Returns false when a registration was seen half-written (call again on the next poll).
   */
  discoverWriters(found: (peer: number) => void): boolean;
  /**
   * The rank polls: links that held back frames of a burst of sends publish them now
   * (publish-batch.ts). Called at the start of every poll.
   */
  pollStarts?(): void;
  /** Number of writers registered so far (polled transports; a cheap change check). */
  writerCount?(): number;
  /** Hands the endpoint's events to links the transport accepts itself (incoming sockets). */
  attach?(events: LinkEvents): void;
  close(): void;
}
