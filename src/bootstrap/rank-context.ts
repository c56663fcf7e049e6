/**
 * The hand-over from whatever started a rank (a rank host, the simulator) to `init()`. It lives on
 * `globalThis` under a registered symbol, so it is found even when the program and the host
 * loaded different copies of tsmpi's modules. A runner that hosts many ranks on one thread (the
 * simulator) installs a resolver instead, which looks the context up per async call chain.
 */
import type { TraceChunk } from '../trace/rank-trace.js';
import type { ShmArenaDescriptor } from '../transport/shm-arena.js';
import type { Transport } from '../transport/transport.js';
import type { JobInfo } from './job-info.js';
import type { RankRecord } from './rendezvous.js';

/** A rank that communicates. */
export interface MemberContext {
  readonly kind: 'member';
  /** World rank (after on-demand initialisation's renumbering) and world size. */
  readonly rank: number;
  readonly size: number;
  /** The job manager's id of this rank. */
  readonly resourceId: number;
  /** Member ranks in this process, and this rank's place among them. */
  readonly localRank: number;
  readonly localSize: number;
  readonly arena: ShmArenaDescriptor;
  readonly slot: number;
  readonly worldOfSlot: readonly number[];
  /** Set when members live in other processes too: how to reach them. */
  readonly tcp?: { readonly jobId: string; readonly listenHost: string };
  /** The job information, compacted to the members (seed 5). */
  readonly job: JobInfo;
  /** Ranks sharing this rank's thread (TSMPI_RANKS_PER_THREAD); absent: 1. */
  readonly threadRanks?: number;
  /**
   * CPUs the rank's process may use, as its launcher counted them: a thread bound to one CPU
   * (TSMPI_BIND) sees only that one in `os.availableParallelism()`. Absent: the rank counts.
   */
  readonly cores?: number;
}

/** A rank that on-demand initialisation left out: it holds no communication state at all. */
export interface NonMemberContext {
  readonly kind: 'non-member';
  readonly resourceId: number;
  /** Size of the world of members. */
  readonly size: number;
  readonly reason: string;
  readonly job: JobInfo;
}

/** A rank of a simulated world (tsmpi sim): the simulator hands over a ready transport. */
export interface SimContext {
  readonly kind: 'sim';
  readonly rank: number;
  readonly size: number;
  /** Cores of the simulated host the rank runs on (undefined: as many as it needs). */
  readonly cores?: number;
  /** Ranks of the rank's simulated process, and of its host (its settings read as a real rank's there). */
  readonly processRanks: number;
  readonly hostRanks: number;
  readonly transport: Transport;
  readonly job: JobInfo;
  /** The environment the simulated ranks read their settings from (TSMPI_*). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The rank's virtual clock, in seconds: what wtime() returns under the simulator. */
  readonly now?: () => number;
  /** The rank finalized (`linked`: the peers it wrote a GOODBYE to): the simulator tells the others. */
  readonly onEnd?: (how: string, linked: number[]) => void;
  /** Where the rank's timeline goes when the simulation traces (TSMPI_TRACE). */
  readonly onTrace?: (chunk: TraceChunk) => void;
}

export type RankContext = MemberContext | NonMemberContext | SimContext;

/** How a rank talks to whatever hosts it (hang reports, abort, address exchange). */
export interface LauncherChannel {
  post(message: RankToHost): void;
  onMessage(handler: (message: HostToRank) => void): void;
}

export type RankToHost =
  /**
   * What the rank waits for in tsmpi; waiting in nothing of tsmpi, `resources`: what keeps its
   * thread's event loop alive (process.getActiveResourcesInfo), and `idle`: whether that loop sat
   * idle while it answered (a thread kept only by a timer or socket, not one at work).
   */
  | { type: 'waits'; rank: number; state: string; waits: string[]; resources?: string[]; idle?: boolean }
  /** The rank's program has returned (its module's evaluation, top-level await included, ended). */
  | { type: 'returned'; rank: number }
  | { type: 'abort'; rank: number; code: number; message: string }
  | { type: 'listening'; rank: number; host: string; port: number; rails?: { host: string; port: number }[] }
  /** The rank finalized; `linked`: the peers it wrote a GOODBYE to. */
  | { type: 'finalized'; rank: number; linked: number[] }
  /** A run of the rank's timeline events (TSMPI_TRACE). */
  | { type: 'trace'; chunk: TraceChunk }
  /** Of the ranks sharing a thread, this one threw: its error follows as the thread's. */
  | { type: 'failed'; rank: number };

/** A rank of the job ended (finalized, or exited with code 0): see Endpoint.peerGone. */
export interface PeerGoneNotice {
  type: 'peer-gone';
  rank: number;
  how: string;
  linked?: number[];
}

export type HostToRank =
  | { type: 'describe-waits' }
  | { type: 'world'; records: RankRecord[]; secret: string }
  | { type: 'flush-trace' }
  | PeerGoneNotice;

interface Slot {
  context?: RankContext;
  channel?: LauncherChannel;
  resolver?: () => { context: RankContext; channel?: LauncherChannel; cache: Map<string, unknown> } | undefined;
  cache: Map<string, unknown>;
}

const KEY = Symbol.for('tsmpi.rank-context');

function slot(): Slot {
  const holder = globalThis as unknown as Record<symbol, Slot | undefined>;
  let s = holder[KEY];
  if (s === undefined) {
    s = { cache: new Map() };
    holder[KEY] = s;
  }
  return s;
}

/** Installs the context of the rank running on this thread. */
export function setRankContext(context: RankContext, channel?: LauncherChannel): void {
  const s = slot();
  s.context = context;
  if (channel !== undefined) s.channel = channel;
}

/** Installs a per-call-chain resolver (for runners that host many ranks on one thread). */
export function setRankResolver(resolver: Slot['resolver']): void {
  slot().resolver = resolver;
}

/** The context of the calling rank, its host channel and a per-rank cache; undefined when none. */
export function currentRank(): { context: RankContext | undefined; channel: LauncherChannel | undefined; cache: Map<string, unknown> } {
  const s = slot();
  const resolved = s.resolver?.();
  if (resolved !== undefined) return { context: resolved.context, channel: resolved.channel, cache: resolved.cache };
  return { context: s.context, channel: s.channel, cache: s.cache };
}
