/**
 * Sets up a rank's rails at init: a listener per rail (TSMPI_RAILS), the addresses to publish,
 * and, once every member's addresses are known, the {@link MultiRailTransport}.
 */
import type { Clock } from '../clock.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Settings } from '../config/tunables.js';
import { TcpTransport, type TcpEndpointAddress } from '../transport/tcp-transport.js';
import type { MultiRailTransport } from './multi-rail-transport.js';
import type { RailSpec } from './rail-config.js';
import { railTransport } from './rail-transport.js';

export interface RailListeners {
  /** This rank's listener on each rail, rail 0 first. */
  addresses: TcpEndpointAddress[];
  /** Builds the transport from every member's per-rail addresses (index = world rank). */
  connect(peers: readonly (readonly TcpEndpointAddress[] | undefined)[], secret: Buffer): MultiRailTransport;
}

export interface OpenRailsOptions {
  rank: number;
  jobId: string;
  rails: readonly RailSpec[];
  settings: Settings;
  maxFramePayload: number;
  maxFrameBytes: number;
  /** The rank's clock (the real one: the rails' timers and the policies' time). */
  clock: Clock;
  log: (line: string) => void;
}

export async function openRails(options: OpenRailsOptions): Promise<RailListeners> {
  const { settings } = options;
  const transports = options.rails.map(
    (rail) =>
      new TcpTransport({
        rank: options.rank,
        secret: Buffer.alloc(0),
        jobId: options.jobId,
        listenHost: rail.address,
        maxFramePayload: options.maxFramePayload,
        maxFrameBytes: Math.max(options.maxFrameBytes, settings.segMax + 1024),
        eagerLimit: settings.tcpEagerLimit,
        reuseReadBuffer: settings.tcpReadBuffer === 'reused',
        log: options.log,
      }),
  );
  const addresses = await Promise.all(transports.map((t) => t.listen()));
  return {
    addresses,
    connect(peers, secret) {
      peers.forEach((p, rank) => {
        if (p !== undefined && p.length !== options.rails.length) {
          throw new TsmpiError(ErrorCode.Config, `rank ${rank} has ${p.length} rails and rank ${options.rank} has ${options.rails.length}`, {
            rank: options.rank,
            operation: 'init',
            hint: 'give every process the same number of rails in TSMPI_RAILS (rail i of every node on the same network)',
          });
        }
      });
      transports.forEach((t, i) => t.setPeers(peers.map((p) => p?.[i]), secret));
      return railTransport({ rank: options.rank, sources: transports, rates: options.rails.map((r) => r.rate), settings, clock: options.clock, log: options.log });
    },
  };
}
