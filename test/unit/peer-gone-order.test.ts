// A rank that ended is told to the others twice: by the job (its launcher or coordinator), and in
// band, by its socket closing after its last frame. The job's notice may be read first, even
// before the first frame of a connection the ended rank just opened (both arrive while the
// receiver is busy, and one turn of its event loop takes them in any order). Two real endpoints
// over real loopback sockets, the notice delivered just before the first frame is: the receive
// must still get its message, and only later waits fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Endpoint } from '../../src/comm/endpoint.ts';
import { TsmpiError } from '../../src/errors.ts';
import { connectPair, tcpRank } from '../helpers/tcp-pair.ts';

const secret = Buffer.alloc(32, 3);

test('the job\'s notice that a rank ended, read before the first frame of its new connection, loses nothing', { timeout: 30_000 }, async () => {
  let receiver: Endpoint | undefined;
  let noticeBeforeFrame = false;
  const zero = await tcpRank(0, 'order-test', (events) => ({
    ...events,
    frame: (link, frame) => {
      if (!noticeBeforeFrame && link.peer === 1) {
        // Rank 1's exit as its process reports it (exit code 0, no finalize): read first.
        noticeBeforeFrame = true;
        receiver!.peerGone(1, 'exited (code 0)');
      }
      events.frame(link, frame);
    },
  }));
  receiver = zero.endpoint;
  const one = await tcpRank(1, 'order-test');
  connectPair(zero, one, secret);
  try {
    const incoming = zero.comm.irecv(1, 7);
    await one.comm.send(Float64Array.from([1, 2, 3]), 0, 7);
    const got = await incoming.wait();
    assert.ok(noticeBeforeFrame, 'the notice was delivered before the frame');
    assert.deepEqual(Array.from(got as Float64Array), [1, 2, 3]);
    // Rank 1 ends: its socket closes after its last frame, and from then on a wait for it fails.
    one.tcp.close();
    const later = zero.comm.recv(1, 8);
    await assert.rejects(later, (error: unknown) => error instanceof TsmpiError && /world rank 1 exited \(code 0\), so this can never complete/.test(error.message));
  } finally {
    zero.tcp.close();
    one.tcp.close();
  }
});
