/**
 * The rank's send buffer for buffered sends (MPI_Buffer_attach / detach / flush): one per rank,
 * used by every communicator that has no buffer of its own (see comm.attachBuffer).
 */
import { rankSendBuffer, type AttachedBuffer } from '../comm/send-buffer.js';
import type { Request } from '../comm/request.js';
import { runtimeEndpoint } from './init.js';

/**
 * Attaches the rank's send buffer: a byte count, a buffer (its byte length counts), or
 * BUFFER_AUTOMATIC (no bound). Each message in flight holds its bytes + BSEND_OVERHEAD.
 * @throws {TsmpiError} ERR_BUFFER when one is attached already
 * @example
 * ```ts
 * attachBuffer(10 * (1024 + BSEND_OVERHEAD)); // ten 1 KiB messages in flight
 * ```
 */
export function attachBuffer(buffer: AttachedBuffer): void {
  const endpoint = runtimeEndpoint('attachBuffer');
  rankSendBuffer(endpoint).attach(buffer, endpoint.rank, 'attachBuffer');
}

/** Waits until every buffered message is delivered, then detaches the rank's buffer and returns it. */
export function detachBuffer(): Promise<AttachedBuffer> {
  const endpoint = runtimeEndpoint('detachBuffer');
  return rankSendBuffer(endpoint).detach(endpoint, endpoint.rank, 'detachBuffer');
}

/** Waits until every message in the rank's buffer is delivered, keeping it attached (MPI_Buffer_flush). */
export function flushBuffer(): Promise<void> {
  const endpoint = runtimeEndpoint('flushBuffer');
  return rankSendBuffer(endpoint).flush(endpoint, 'flushBuffer');
}

/** Starts a {@link flushBuffer} (MPI_Buffer_iflush). */
export function iflushBuffer(): Request<void> {
  const endpoint = runtimeEndpoint('iflushBuffer');
  return rankSendBuffer(endpoint).iflush(endpoint, endpoint.background, 'iflushBuffer');
}
