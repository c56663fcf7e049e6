/**
 * The multi-rail transport over link sources of any kind (TCP rails, the simulator's planes),
 * configured from the rank's tunables. Nothing here opens a socket: the simulator loads it
 * without the TCP stack.
 */
import type { Clock } from '../clock.js';
import type { Settings } from '../config/tunables.js';
import { createRailPolicy } from '../policy/rail/index.js';
import type { LinkSource } from '../transport/transport.js';
import { MultiRailTransport } from './multi-rail-transport.js';

/** Latency assumed for a rail (TCP through the kernel, one way). */
export const RAIL_LATENCY = 40e-6;

export interface RailTransportOptions {
  rank: number;
  /** One link source per rail used, control rail first. */
  sources: readonly LinkSource[];
  /** The configured rate of each (bytes/s; 0: unknown, the policy learns it). */
  rates: readonly number[];
  settings: Settings;
  clock: Clock;
  log: (line: string) => void;
}

/**
 * The transport from the rank's tunables (TSMPI_RAIL_POLICY, TSMPI_SEG_MAX, TSMPI_RAIL_MIN_SPLIT,
 * TSMPI_RAIL_ACK_TIMEOUT): the same for TCP rails and for the simulator's.
 */
export function railTransport(options: RailTransportOptions): MultiRailTransport {
  const { settings } = options;
  return new MultiRailTransport({
    rank: options.rank,
    rails: options.sources,
    settings: options.rates.map((rate) => ({ latency: RAIL_LATENCY, nominalRate: rate })),
    policy: (peer) => createRailPolicy(settings.railPolicy, { segMax: settings.segMax, seed: options.rank * 65599 + peer + 1 }),
    clock: options.clock,
    minSplit: settings.railMinSplit,
    ackTimeout: settings.railAckTimeout,
    log: options.log,
  });
}
