/**
 * Notices of ranks that ended (finalized, or exited with code 0), delivered to a rank by its
 * cache: to its endpoint once init() built it, kept until then otherwise. A module of its own, so
 * that the simulator (which tells its ranks directly) does not load the runtime's transports.
 */
import type { PeerGoneNotice } from './rank-context.js';

/** The cache key of a rank's runtime (init.ts). */
export const RUNTIME = 'runtime';
/** Notices that came before the rank's endpoint existed. */
const PENDING_GONE = 'peers-gone';

interface GoneListener {
  peerGone(rank: number, how: string, linked?: readonly number[]): void;
}

/** Tells a rank (by its cache) that a peer ended. */
export function notifyPeerGone(cache: Map<string, unknown>, notice: PeerGoneNotice): void {
  const endpoint = (cache.get(RUNTIME) as { endpoint?: GoneListener } | undefined)?.endpoint;
  if (endpoint !== undefined) {
    endpoint.peerGone(notice.rank, notice.how, notice.linked);
    return;
  }
  let pending = cache.get(PENDING_GONE) as PeerGoneNotice[] | undefined;
  if (pending === undefined) cache.set(PENDING_GONE, (pending = []));
  pending.push(notice);
}

/** The notices kept for a rank whose endpoint now exists (taken: each is delivered once). */
export function takePendingNotices(cache: Map<string, unknown>): PeerGoneNotice[] {
  return (cache.get(PENDING_GONE) as PeerGoneNotice[] | undefined)?.splice(0) ?? [];
}
