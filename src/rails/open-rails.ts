/**
 * Sets up a rank's rails at init: a listener per rail (TSMPI_RAILS), the addresses to publish,
 * and, once every member's addresses are known, the {@link MultiRailTransport}.
 */
import type { Clock } from '../clock.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Settings } from '../config/tunables.js';
import { createRailPolicy } from '../policy/rail/index.js';
import { TcpTransport, type TcpEndpointAddress } from '../transport/tcp-transport.js';
import { MultiRailTransport } from './multi-rail-transport.js';
import type { RailSpec } from './rail-config.js';

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

/** Latency assumed for a rail (TCP through the kernel, one way). */
const RAIL_LATENCY = 40e-6;

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
      return new MultiRailTransport({
        rank: options.rank,
        rails: transports,
        settings: options.rails.map((r) => ({ latency: RAIL_LATENCY, nominalRate: r.rate })),
        policy: (peer) => createRailPolicy(settings.railPolicy, { segMax: settings.segMax, seed: options.rank * 65599 + peer + 1 }),
        clock: options.clock,
        minSplit: settings.railMinSplit,
        ackTimeout: settings.railAckTimeout,
        log: options.log,
      });
    },
  };
}
