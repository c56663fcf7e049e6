/**
 * Which of this machine's addresses a host reaches, and whether a host is this machine: what a
 * launcher needs to serve its rendezvous where every host can reach it, and what a process needs
 * to listen where its peers can reach it.
 */
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { hostname, networkInterfaces } from 'node:os';

/** Every IPv4 address of this machine (loopback too). */
export function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) for (const e of entries ?? []) if (e.family === 'IPv4') out.add(e.address);
  return out;
}

/** The IPv4 address a name resolves to, or undefined when it does not resolve. */
export async function resolveIPv4(name: string): Promise<string | undefined> {
  try {
    return (await lookup(name, { family: 4 })).address;
  } catch {
    return undefined;
  }
}

/**
 * The source address this machine's routes pick toward `address` (an IPv4 address): connecting a
 * UDP socket sends nothing, but makes the kernel choose the route. Undefined when no route leads
 * there (ENETUNREACH, or the unspecified address where no route applies).
 */
export function sourceAddressToward(address: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => {
      socket.close();
      resolve(undefined);
    });
    socket.connect(9, address, () => {
      const local = socket.address().address;
      socket.close();
      resolve(local === '0.0.0.0' ? undefined : local);
    });
  });
}

/** True when `name` is this machine: localhost, its host name, or one of its addresses. */
export async function isThisMachine(name: string): Promise<boolean> {
  if (name === 'localhost' || name === hostname() || name === hostname().split('.')[0]) return true;
  const address = await resolveIPv4(name);
  return address !== undefined && (address.startsWith('127.') || localAddresses().has(address));
}
