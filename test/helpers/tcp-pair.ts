/**
 * Two ranks of a 2-rank world, each alone in its "process" as `tsmpi run --procs` builds it (its
 * own shared-memory arena, TCP to the other), both in the test's process over real loopback
 * sockets: for tests that must deliver a job's notice at a chosen moment between frames.
 */
import { Communicator } from '../../src/comm/communicator.ts';
import { Endpoint } from '../../src/comm/endpoint.ts';
import { readSettings } from '../../src/config/tunables.ts';
import { HybridTransport } from '../../src/transport/hybrid-transport.ts';
import type { LinkEvents } from '../../src/transport/link.ts';
import { ProgressEngine } from '../../src/transport/progress.ts';
import { allocateShmArena } from '../../src/transport/shm-arena.ts';
import { ShmTransport } from '../../src/transport/shm-transport.ts';
import { TcpTransport, type TcpEndpointAddress } from '../../src/transport/tcp-transport.ts';

export interface TcpRank {
  readonly tcp: TcpTransport;
  readonly address: TcpEndpointAddress;
  readonly endpoint: Endpoint;
  readonly comm: Communicator;
}

/** World rank `rank` listening on loopback; `onAttach` may wrap the link events its endpoint gets. */
export async function tcpRank(rank: number, jobId: string, onAttach?: (events: LinkEvents) => LinkEvents): Promise<TcpRank> {
  const settings = readSettings({}, { localRanks: 1, remotePeers: true });
  const shm = new ShmTransport(allocateShmArena(1, 1 << 16), 0, [rank], 2);
  const tcp = new TcpTransport({ rank, secret: Buffer.alloc(0), jobId, listenHost: '127.0.0.1', maxFramePayload: 65536, maxFrameBytes: 1 << 20, eagerLimit: 65536, log: () => {} });
  const address = await tcp.listen();
  if (onAttach !== undefined) {
    const attach = tcp.attach.bind(tcp);
    tcp.attach = (events) => attach(onAttach(events));
  }
  const transport = new HybridTransport(shm, tcp);
  const endpoint = new Endpoint(transport, settings, (host) => new ProgressEngine(host, transport.control, transport.slot, settings.spinMicros, { sleepLimitMs: settings.sleepLimitMs }));
  const comm = new Communicator({ endpoint, context: 0, group: Int32Array.from([0, 1]), rank, settings, selfContext: 2, predefined: true });
  return { tcp, address, endpoint, comm };
}

/** Tells both ranks where the other listens. */
export function connectPair(zero: TcpRank, one: TcpRank, secret: Buffer): void {
  const addresses = [zero.address, one.address];
  zero.tcp.setPeers(addresses, secret);
  one.tcp.setPeers(addresses, secret);
}
