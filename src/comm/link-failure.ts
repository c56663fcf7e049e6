/**
 * What a broken link costs (ob1's error path): everything this rank still expects from or owes to
 * the peer on the other end fails with TSMPI_ERR_TRANSPORT, naming the peer and the reason. A
 * socket carries one direction, so a closed sending connection loses what we owe the peer and a
 * closed receiving one (after its last frame was delivered) what we expect from it; a ring pair
 * carries both. A peer that finished cleanly and owes nothing costs nothing.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Link } from '../transport/link.js';
import type { ReceivePath } from './receive-path.js';
import type { SendPath } from './send-path.js';

export function failLink(rank: number, link: Link, error: Error | undefined, sends: SendPath, receives: ReceivePath): void {
  const peerRank = link.peer;
  const reason = error?.message ?? 'the connection closed';
  const failure = (operation: string): TsmpiError =>
    new TsmpiError(ErrorCode.Transport, `the link to world rank ${peerRank} failed: ${reason}`, {
      rank,
      operation,
      hint: `world rank ${peerRank} exited or failed: look for its error above`,
    });
  if (link.direction !== 'receive') sends.failPeer(peerRank, link, failure);
  if (link.direction !== 'send') receives.failPeer(peerRank, (request) => failure(request.operation));
}
