// A send started to a rank whose process has just ended, before this rank heard of that end: the
// link to it is new, so the frame waits for the connection, and the connection is refused after the
// job's notice has arrived. The send must fail and let go of the rank (its thread must be free to
// exit), not wait in the link's backlog for ever. Two real endpoints over real loopback sockets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Communicator } from '../../src/comm/communicator.ts';
import { Endpoint } from '../../src/comm/endpoint.ts';
import { readSettings } from '../../src/config/tunables.ts';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { HybridTransport } from '../../src/transport/hybrid-transport.ts';
import { ProgressEngine } from '../../src/transport/progress.ts';
import { allocateShmArena } from '../../src/transport/shm-arena.ts';
import { ShmTransport } from '../../src/transport/shm-transport.ts';
import { TcpTransport } from '../../src/transport/tcp-transport.ts';

const secret = Buffer.alloc(32, 5);

/** A rank alone in its process, with TCP to the other: as `tsmpi run --procs` builds it. */
async function rank(rank: number) {
  const settings = readSettings({}, { localRanks: 1, remotePeers: true });
  const shm = new ShmTransport(allocateShmArena(1, 1 << 16), 0, [rank], 2);
  const tcp = new TcpTransport({ rank, secret: Buffer.alloc(0), jobId: 'ended-test', listenHost: '127.0.0.1', maxFramePayload: 65536, maxFrameBytes: 1 << 20, eagerLimit: 65536, log: () => {} });
  const address = await tcp.listen();
  const transport = new HybridTransport(shm, tcp);
  const endpoint = new Endpoint(transport, settings, (host) => new ProgressEngine(host, transport.control, transport.slot, settings.spinMicros, { sleepLimitMs: settings.sleepLimitMs }));
  const comm = new Communicator({ endpoint, context: 0, group: Int32Array.from([0, 1]), rank, settings, selfContext: 2, predefined: true });
  return { tcp, address, endpoint, comm };
}

/** Resolves with what `promise` settled to, or 'pending' after `ms` of real time. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

for (const how of ['exited (code 0)', 'finalized'] as const) {
  test(`a send queued for a new link to a rank that ${how} fails once the connection is refused, and leaves nothing behind`, { timeout: 30_000 }, async () => {
    const zero = await rank(0);
    const one = await rank(1);
    const addresses = [zero.address, one.address];
    zero.tcp.setPeers(addresses, secret);
    one.tcp.setPeers(addresses, secret);
    try {
      // Rank 1's process is gone: nothing listens at its address any more.
      one.tcp.close();
      const sent = zero.comm.isend(Float64Array.from([1, 2]), 1, 6);
      // The job's notice comes after the send started, before the connection's refusal.
      zero.endpoint.peerGone(1, how, how === 'finalized' ? [] : undefined);
      const outcome = await within(sent.wait().then(() => 'completed', (error: unknown) => error), 10_000);
      assert.ok(outcome instanceof TsmpiError, `the send ${String(outcome)}`);
      assert.ok(outcome.code === ErrorCode.PeerGone || outcome.code === ErrorCode.Transport, outcome.message);
      assert.match(outcome.message, /world rank 1/);
      assert.equal(await within(zero.endpoint.flush().then(() => 'idle'), 10_000), 'idle', 'every send has left rank 0');
    } finally {
      zero.tcp.close();
      one.tcp.close();
    }
  });
}
