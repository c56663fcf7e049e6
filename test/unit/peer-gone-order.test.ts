// A rank that ended is told to the others twice: by the job (its launcher or coordinator), and in
// band, by its socket closing after its last frame. The job's notice may be read first, even
// before the first frame of a connection the ended rank just opened (both arrive while the
// receiver is busy, and one turn of its event loop takes them in any order). Two real endpoints
// over real loopback sockets, the notice delivered just before the first frame is: the receive
// must still get its message, and only later waits fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Communicator } from '../../src/comm/communicator.ts';
import { Endpoint } from '../../src/comm/endpoint.ts';
import { readSettings } from '../../src/config/tunables.ts';
import { TsmpiError } from '../../src/errors.ts';
import { HybridTransport } from '../../src/transport/hybrid-transport.ts';
import type { LinkEvents } from '../../src/transport/link.ts';
import { ProgressEngine } from '../../src/transport/progress.ts';
import { allocateShmArena } from '../../src/transport/shm-arena.ts';
import { ShmTransport } from '../../src/transport/shm-transport.ts';
import { TcpTransport } from '../../src/transport/tcp-transport.ts';

const secret = Buffer.alloc(32, 3);

/** A rank alone in its process, with TCP to the other: as `tsmpi run --procs` builds it. */
async function rank(rank: number, onAttach?: (events: LinkEvents) => LinkEvents) {
  const settings = readSettings({}, { localRanks: 1, remotePeers: true });
  const shm = new ShmTransport(allocateShmArena(1, 1 << 16), 0, [rank], 2);
  const tcp = new TcpTransport({ rank, secret: Buffer.alloc(0), jobId: 'order-test', listenHost: '127.0.0.1', maxFramePayload: 65536, maxFrameBytes: 1 << 20, eagerLimit: 65536, log: () => {} });
  const address = await tcp.listen();
  if (onAttach !== undefined) {
    const attach = tcp.attach.bind(tcp);
    tcp.attach = (events) => attach(onAttach(events));
  }
  const transport = new HybridTransport(shm, tcp);
  const endpoint = new Endpoint(transport, settings, (host) => new ProgressEngine(host, transport.control, transport.slot, settings.spinMicros, { sleepLimitMs: settings.sleepLimitMs }));
  const group = Int32Array.from([0, 1]);
  const comm = new Communicator({ endpoint, context: 0, group, rank, settings, selfContext: 2, predefined: true });
  return { tcp, address, endpoint, comm };
}

test('the job\'s notice that a rank ended, read before the first frame of its new connection, loses nothing', { timeout: 30_000 }, async () => {
  let receiver: Endpoint | undefined;
  let noticeBeforeFrame = false;
  const zero = await rank(0, (events) => ({
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
  const one = await rank(1);
  const addresses = [zero.address, one.address];
  zero.tcp.setPeers(addresses, secret);
  one.tcp.setPeers(addresses, secret);
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
