/**
 * The handshake that opens every TCP connection between ranks: a mutual HMAC-SHA256 challenge on
 * the job's secret, so a connection that cannot prove it knows the secret is refused, and the
 * secret never crosses the wire.
 *
 * ```
 *  connector -> acceptor   HELLO      "TSMP" v1 | connector rank | acceptor rank | job tag | nonceC
 *  acceptor  -> connector  CHALLENGE  "TSMP"    | nonceA | HMAC(secret, "acceptor"  | hello fields | nonceA)
 *  connector -> acceptor   PROOF      HMAC(secret, "connector" | hello fields | nonceA)
 *  acceptor  -> connector  ACCEPT     "OK!!"
 * ```
 * The acceptor answers only a well-formed HELLO for its own rank and job; the connector checks
 * the acceptor's HMAC before proving itself (so it never talks to an impostor), and the acceptor
 * checks the connector's before accepting frames. Fresh nonces on both sides stop replays. Any
 * failure, or 5 s of silence, closes the socket with a reason the caller logs.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';

const MAGIC = Buffer.from('TSMP');
const VERSION = 1;
const NONCE = 32;
const MAC = 32;
const HELLO_BYTES = 4 + 4 + 4 + 4 + 16 + NONCE;
const CHALLENGE_BYTES = 4 + NONCE + MAC;
const PROOF_BYTES = MAC;
const ACCEPT = Buffer.from('OK!!');
export const HANDSHAKE_TIMEOUT_MS = 5000;

export class HandshakeError extends Error {}

/** 16 bytes naming the job, so connections from another job are told apart before any HMAC. */
export function jobTag(jobId: string): Buffer {
  return createHash('sha256').update(`tsmpi-job:${jobId}`).digest().subarray(0, 16);
}

function mac(secret: Buffer, role: 'acceptor' | 'connector', hello: Buffer, nonceA: Buffer): Buffer {
  return createHmac('sha256', secret).update(role).update(hello).update(nonceA).digest();
}

/** Reads exactly `n` bytes (more may follow: the rest is handed back). */
function readExactly(socket: Socket, n: number, pending: { buffer: Buffer }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tryTake = (): boolean => {
      if (pending.buffer.length < n) return false;
      const out = pending.buffer.subarray(0, n);
      pending.buffer = pending.buffer.subarray(n);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      resolve(Buffer.from(out));
      return true;
    };
    const onData = (chunk: Buffer): void => {
      pending.buffer = pending.buffer.length === 0 ? chunk : Buffer.concat([pending.buffer, chunk]);
      tryTake();
    };
    const onClose = (): void => reject(new HandshakeError('the connection closed during the handshake'));
    const onError = (error: Error): void => reject(new HandshakeError(`socket error during the handshake: ${error.message}`));
    if (tryTake()) return;
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.once('error', onError);
  });
}

function withTimeout<T>(socket: Socket, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new HandshakeError(`no handshake within ${HANDSHAKE_TIMEOUT_MS} ms`));
      socket.destroy();
    }, HANDSHAKE_TIMEOUT_MS);
    timer.unref();
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        socket.destroy();
        reject(e);
      },
    );
  });
}

export interface HandshakeResult {
  /** The other side's world rank. */
  peer: number;
  /** Bytes that arrived after the handshake (the first frames); feed them to the parser. */
  rest: Buffer;
}

/** The acceptor's side: returns the authenticated connector's rank. */
export function acceptHandshake(socket: Socket, secret: Buffer, myRank: number, tag: Buffer): Promise<HandshakeResult> {
  const pending = { buffer: Buffer.alloc(0) };
  return withTimeout(
    socket,
    (async () => {
      const hello = await readExactly(socket, HELLO_BYTES, pending);
      if (!hello.subarray(0, 4).equals(MAGIC)) throw new HandshakeError('not a tsmpi connection (bad magic)');
      const version = hello.readUInt32LE(4);
      if (version !== VERSION) throw new HandshakeError(`handshake version ${version}, expected ${VERSION}`);
      const peer = hello.readInt32LE(8);
      const target = hello.readInt32LE(12);
      if (target !== myRank) throw new HandshakeError(`the connection is for rank ${target}, this is rank ${myRank}`);
      if (!hello.subarray(16, 32).equals(tag)) throw new HandshakeError('the connection belongs to another job');
      const nonceA = randomBytes(NONCE);
      socket.write(Buffer.concat([MAGIC, nonceA, mac(secret, 'acceptor', hello, nonceA)]));
      const proof = await readExactly(socket, PROOF_BYTES, pending);
      if (!timingSafeEqual(proof, mac(secret, 'connector', hello, nonceA))) throw new HandshakeError(`rank ${peer}'s proof does not match the job secret`);
      socket.write(ACCEPT);
      return { peer, rest: pending.buffer };
    })(),
  );
}

/** The connector's side: proves itself to `peer` and checks that `peer` knows the secret too. */
export function connectHandshake(socket: Socket, secret: Buffer, myRank: number, peer: number, tag: Buffer): Promise<HandshakeResult> {
  const pending = { buffer: Buffer.alloc(0) };
  return withTimeout(
    socket,
    (async () => {
      const hello = Buffer.alloc(HELLO_BYTES);
      MAGIC.copy(hello, 0);
      hello.writeUInt32LE(VERSION, 4);
      hello.writeInt32LE(myRank, 8);
      hello.writeInt32LE(peer, 12);
      tag.copy(hello, 16);
      randomBytes(NONCE).copy(hello, 32);
      socket.write(hello);
      const challenge = await readExactly(socket, CHALLENGE_BYTES, pending);
      if (!challenge.subarray(0, 4).equals(MAGIC)) throw new HandshakeError(`rank ${peer}'s address answered with something that is not tsmpi`);
      const nonceA = challenge.subarray(4, 4 + NONCE);
      if (!timingSafeEqual(challenge.subarray(4 + NONCE), mac(secret, 'acceptor', hello, nonceA))) {
        throw new HandshakeError(`rank ${peer} could not prove it knows the job secret`);
      }
      socket.write(mac(secret, 'connector', hello, nonceA));
      const accept = await readExactly(socket, ACCEPT.length, pending);
      if (!accept.equals(ACCEPT)) throw new HandshakeError(`rank ${peer} refused the connection`);
      return { peer, rest: pending.buffer };
    })(),
  );
}
