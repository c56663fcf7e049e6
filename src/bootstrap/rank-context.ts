/**
 * The hand-over from whatever started a rank (the thread launcher, a process launcher, the
 * simulator) to `init()`. It lives on `globalThis` under a registered symbol, so it is found even
 * when the program and the launcher loaded different copies of tsmpi's modules. A runner that
 * hosts many ranks on one thread (the simulator) installs a resolver instead, which looks the
 * context up per async call chain.
 */
import type { ShmArenaDescriptor } from '../transport/shm-arena.js';

/** Shared memory of the ranks of one process. */
export interface ThreadWorldContext {
  readonly kind: 'threads';
  readonly rank: number;
  readonly size: number;
  readonly localRank: number;
  readonly localSize: number;
  readonly arena: ShmArenaDescriptor;
  readonly slot: number;
  readonly worldOfSlot: readonly number[];
}

export type RankContext = ThreadWorldContext;

/** How a rank talks to whatever launched it (hang reports, abort). */
export interface LauncherChannel {
  post(message: RankToLauncher): void;
  onMessage(handler: (message: LauncherToRank) => void): void;
}

export type RankToLauncher =
  | { type: 'waits'; rank: number; state: string; waits: string[] }
  | { type: 'abort'; rank: number; code: number; message: string };

export type LauncherToRank = { type: 'describe-waits' };

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

/** The context of the calling rank, its launcher channel and a per-rank cache; undefined when none. */
export function currentRank(): { context: RankContext | undefined; channel: LauncherChannel | undefined; cache: Map<string, unknown> } {
  const s = slot();
  const resolved = s.resolver?.();
  if (resolved !== undefined) return { context: resolved.context, channel: resolved.channel, cache: resolved.cache };
  return { context: s.context, channel: s.channel, cache: s.cache };
}
