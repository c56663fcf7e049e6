/**
 * Accepted connections read into the thread's reused buffer (src/transport/tcp-reader.ts): every
 * byte arrives once and in order, whether it came before a consumer was attached (a 'data'
 * listener during the handshake, or held) or after, and the consumer's chunks really are views of
 * one reused buffer.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import fc from 'fast-check';
import { READ_BUFFER_BYTES, readIntoReusedBuffer, type SocketReader } from '../../src/transport/tcp-reader.ts';

/** A loopback server whose accepted sockets are re-wrapped; resolves with it and its port. */
async function server(accepted: (reader: SocketReader) => void): Promise<{ server: Server; port: number }> {
  const listener = createServer({ pauseOnConnect: true }, (socket) => accepted(readIntoReusedBuffer(socket)));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server: listener, port: address.port };
}

async function client(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.setNoDelay(true);
  return socket;
}

function pattern(length: number, seed: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 7) & 0xff;
  return bytes;
}

test('bytes written before and after the consumer is attached arrive once, in order; the chunks are views of one reused buffer', { timeout: 30_000 }, async () => {
  let reader: SocketReader | undefined;
  const { server: listener, port } = await server((r) => (reader = r));
  const sender = await client(port);
  try {
    // Written before anyone listens: held (copied) until the consumer comes.
    const early = pattern(200_000, 1);
    await new Promise<void>((resolve) => sender.write(early, () => resolve()));
    while (reader === undefined) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const late = pattern(3 * READ_BUFFER_BYTES + 123, 2);
    const received: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    let total = 0;
    const done = new Promise<void>((resolve) => {
      reader!.consume((chunk) => {
        assert.ok(chunk.length <= READ_BUFFER_BYTES, `a chunk of ${chunk.length} bytes`);
        received.push(Buffer.from(chunk));
        if (total >= early.length) buffers.add(chunk.buffer);
        total += chunk.length;
        if (total === early.length + late.length) resolve();
      });
    });
    sender.write(late);
    await done;
    assert.deepEqual(Buffer.concat(received), Buffer.concat([early, late]));
    // Every live read landed in the same memory.
    assert.equal(buffers.size, 1);
  } finally {
    sender.destroy();
    reader?.socket.destroy();
    listener.close();
  }
});

test('a data listener (the handshake) gets copies that later reads do not overwrite; what follows is held for the consumer', { timeout: 30_000 }, async () => {
  let reader: SocketReader | undefined;
  const firstChunk = new Promise<Buffer>((resolve) => {
    void server((r) => {
      reader = r;
      const onData = (chunk: Buffer): void => {
        r.socket.off('data', onData);
        resolve(chunk);
      };
      r.socket.on('data', onData);
    }).then(async ({ server: listener, port }) => {
      const sender = await client(port);
      sender.write(pattern(64, 3));
      await firstChunk;
      await new Promise((resolve) => setTimeout(resolve, 20));
      sender.write(pattern(100_000, 4));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rest: Buffer[] = [];
      let total = 0;
      await new Promise<void>((resolve) =>
        reader!.consume((chunk) => {
          rest.push(Buffer.from(chunk));
          total += chunk.length;
          if (total === 100_000) resolve();
        }),
      );
      assert.deepEqual(Buffer.concat(rest), pattern(100_000, 4));
      sender.destroy();
      reader!.socket.destroy();
      listener.close();
    });
  });
  assert.deepEqual(await firstChunk, pattern(64, 3));
  while (reader?.socket.destroyed !== true) await new Promise((resolve) => setTimeout(resolve, 10));
});

test('two connections of one thread share the buffer and each gets exactly its own bytes (any write sizes)', { timeout: 30_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 150_000 }), { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 150_000 }), { minLength: 1, maxLength: 6 }), async (sizesA, sizesB) => {
      const readers: SocketReader[] = [];
      const { server: listener, port } = await server((r) => readers.push(r));
      const senders = [await client(port), await client(port)];
      while (readers.length < 2) await new Promise((resolve) => setImmediate(resolve));
      const buffers = new Set<ArrayBufferLike>();
      const plans = [sizesA, sizesB].map((sizes, s) => sizes.map((size, i) => pattern(size, s * 100 + i)));
      try {
        const arrivals = readers.map((reader) => {
          const got: Buffer[] = [];
          reader.consume((chunk) => {
            buffers.add(chunk.buffer);
            got.push(Buffer.from(chunk));
          });
          return got;
        });
        for (let i = 0; i < Math.max(sizesA.length, sizesB.length); i++) {
          for (let s = 0; s < 2; s++) if (i < plans[s]!.length) senders[s]!.write(plans[s]![i]!);
        }
        const expected = plans.map((p) => Buffer.concat(p));
        const wanted = expected[0]!.length + expected[1]!.length;
        const arrived = (): number => arrivals.reduce((n, got) => n + got.reduce((m, c) => m + c.length, 0), 0);
        for (let waited = 0; arrived() < wanted && waited < 500; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
        // Which accepted socket is which sender's is not known: either pairing must match.
        const got = arrivals.map((chunks) => Buffer.concat(chunks));
        const matches = (got[0]!.equals(expected[0]!) && got[1]!.equals(expected[1]!)) || (got[0]!.equals(expected[1]!) && got[1]!.equals(expected[0]!));
        assert.ok(matches, `sizes ${JSON.stringify([sizesA, sizesB])}: got ${got.map((g) => g.length)} bytes`);
        assert.equal(buffers.size, 1);
      } finally {
        for (const s of senders) s.destroy();
        for (const r of readers) r.socket.destroy();
        listener.close();
      }
    }),
    { numRuns: 15 },
  );
});
