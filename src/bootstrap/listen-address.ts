/**
 * Which address of this node a rank listens on and connects from (TSMPI_TCP_ADDRESS): an IPv4
 * address of the node or an interface name. Listeners bind to that one address, never to every
 * interface.
 */
import { isIPv4 } from '../transport/ipv4.js';
import { hostname, networkInterfaces } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';

function ipv4Addresses(): { name: string; address: string; internal: boolean }[] {
  const out: { name: string; address: string; internal: boolean }[] = [];
  for (const [name, entries] of Object.entries(networkInterfaces())) {
    for (const e of entries ?? []) if (e.family === 'IPv4') out.push({ name, address: e.address, internal: e.internal });
  }
  return out;
}

/**
 * Resolves the configured value; without one: 127.0.0.1 for a single-machine job, else the
 * node's first non-loopback IPv4 address (127.0.0.1 when it has none).
 */
export function listenAddress(configured: string, singleMachine: boolean): string {
  const all = ipv4Addresses();
  if (configured === '') {
    if (singleMachine) return '127.0.0.1';
    return all.find((a) => !a.internal)?.address ?? '127.0.0.1';
  }
  if (isIPv4(configured)) {
    if (!all.some((a) => a.address === configured)) {
      throw new TsmpiError(ErrorCode.Config, `TSMPI_TCP_ADDRESS=${configured} is not an address of node ${hostname()}`, {
        operation: 'init',
        hint: `use one of ${all.map((a) => `${a.address} (${a.name})`).join(', ')}`,
      });
    }
    return configured;
  }
  const byName = all.find((a) => a.name === configured);
  if (byName === undefined) {
    throw new TsmpiError(ErrorCode.Config, `TSMPI_TCP_ADDRESS=${configured} names no interface with an IPv4 address on node ${hostname()}`, {
      operation: 'init',
      hint: `use one of ${[...new Set(all.map((a) => a.name))].join(', ')}, or an address`,
    });
  }
  return byName.address;
}
