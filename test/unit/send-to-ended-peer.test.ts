// A send started to a rank whose process has just ended, before this rank heard of that end: the
// link to it is new, so the frame waits for the connection, and the connection is refused after the
// job's notice has arrived. The send must fail and let go of the rank (its thread must be free to
// exit), not wait in the link's backlog for ever. Two real endpoints over real loopback sockets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { connectPair, tcpRank } from '../helpers/tcp-pair.ts';

const secret = Buffer.alloc(32, 5);

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
    const zero = await tcpRank(0, 'ended-test');
    const one = await tcpRank(1, 'ended-test');
    connectPair(zero, one, secret);
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
