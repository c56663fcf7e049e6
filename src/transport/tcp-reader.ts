/**
 * How a rank reads the connections its peers opened: into one buffer the thread reuses, or the
 * usual way (TSMPI_TCP_READ_BUFFER chooses; reused while the machine's ranks fit its cores). A
 * socket read the usual way hands out a new 64 KiB Buffer per read: a 16 MiB message is 256
 * allocations whose external memory drives the young-generation collector, and every read lands
 * in memory the cache has not seen. Read into one reused buffer (Node's `onread`), nothing is
 * allocated and the bytes the frame parser copies out come from memory that stays in the cache.
 *
 * The buffer holds what libuv reads at once anyway (64 KiB): larger reads (256 KiB, 1 MiB) made
 * TCP streams slower, the buffer and the receive no longer both in the cache (docs/guide.md,
 * "Where ranks run").
 *
 * The buffer is shared by every connection of the thread: a chunk is valid only until its
 * consumer returns, and the frame parser and the receive path copy whatever they keep (they
 * already must, as the shared-memory rings reuse their bytes too).
 *
 * Node offers `onread` only to sockets it connects, not to the ones a server accepts: an accepted
 * socket (from a server with `pauseOnConnect`, so nothing has been read) is re-wrapped in a
 * socket built on its handle with `onread`. Until a consumer is attached (during the handshake),
 * chunks are copied and emitted as 'data' events, or held when nobody listens, so nothing is lost.
 */
import { Socket, type SocketConstructorOpts } from 'node:net';

/** Most bytes one read takes from the kernel. */
export const READ_BUFFER_BYTES = 64 * 1024;

let sharedBuffer: Buffer | undefined;

/** Takes the bytes of each read, valid only until it returns. */
export type ChunkConsumer = (chunk: Buffer) => void;

/** An accepted connection and how its reads reach the link. */
export interface SocketReader {
  readonly socket: Socket;
  /** From now on, every read goes to `consumer` (first what was held while nobody listened). */
  consume(consumer: ChunkConsumer): void;
}

/** Node's socket options with the handle it wraps (accepted sockets are built this way). */
interface HandleSocketOpts extends SocketConstructorOpts {
  handle: unknown;
  onread: { buffer: Uint8Array; callback: (bytes: number, buffer: Uint8Array) => boolean };
}

/** Re-wraps `accepted`, which must not have been read from yet, to read into the shared buffer. */
export function readIntoReusedBuffer(accepted: Socket): SocketReader {
  const handle = (accepted as unknown as { _handle?: unknown })._handle;
  if (handle === undefined || handle === null) return readByEvents(accepted);
  let consumer: ChunkConsumer | undefined;
  const held: Buffer[] = [];
  sharedBuffer ??= Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  const options: HandleSocketOpts = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: sharedBuffer,
      callback: (bytes, buffer) => {
        const chunk = (buffer as Buffer).subarray(0, bytes);
        if (consumer !== undefined) consumer(chunk);
        else if (socket.listenerCount('data') > 0) socket.emit('data', Buffer.from(chunk));
        else held.push(Buffer.from(chunk));
        return true;
      },
    },
  };
  const socket = new Socket(options);
  return {
    socket,
    consume(next) {
      for (const chunk of held.splice(0)) next(chunk);
      consumer = next;
    },
  };
}

/** The usual reading, a new Buffer per read, of a socket the server paused. */
export function readByEvents(socket: Socket): SocketReader {
  socket.resume();
  return { socket, consume: (consumer) => socket.on('data', consumer) };
}
