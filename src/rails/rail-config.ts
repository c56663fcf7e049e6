/**
 * TSMPI_RAILS: the rails of this node, in order, as interface names or IPv4 addresses, each with
 * an optional rate: `rail0@800mbit,rail1@200mbit` or `198.18.0.1,198.18.1.1`. The first rail
 * carries the control frames (matching headers, small messages, acknowledgements): put the
 * lowest-latency one first. Every node lists its own names; rail i of every node must reach rail
 * i of every other (one network plane per rail).
 */
import { isIPv4 } from '../transport/ipv4.js';
import { hostname, networkInterfaces } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';

export interface RailSpec {
  /** As written (an interface name or an address). */
  readonly name: string;
  /** This node's IPv4 address on the rail. */
  readonly address: string;
  /** Bytes/s when given (`@800mbit`), else 0. */
  readonly rate: number;
}

const UNITS: Record<string, number> = { bit: 1 / 8, kbit: 1e3 / 8, mbit: 1e6 / 8, gbit: 1e9 / 8, '': 1 };

/** `800mbit`, `1gbit`, `100000000` (bytes/s). */
export function parseRailRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit|)$/i.exec(text.trim());
  const value = m ? Number(m[1]) * UNITS[m[2]!.toLowerCase()]! : NaN;
  if (!(value > 0)) {
    throw new TsmpiError(ErrorCode.Config, `TSMPI_RAILS: rate "${text}" is not valid`, {
      operation: 'configuration',
      hint: 'write a rate as 800mbit, 1gbit, 500kbit or a number of bytes/s',
    });
  }
  return value;
}

export function nodeAddresses(): { name: string; address: string }[] {
  const out: { name: string; address: string }[] = [];
  for (const [name, entries] of Object.entries(networkInterfaces())) {
    for (const e of entries ?? []) if (e.family === 'IPv4') out.push({ name, address: e.address });
  }
  return out;
}

/** Resolves TSMPI_RAILS on this node; an empty text gives no rails (plain TCP). */
export function parseRails(text: string, addresses = nodeAddresses()): RailSpec[] {
  if (text.trim() === '') return [];
  const rails = text.split(',').map((entry) => {
    const [target = '', rate] = entry.trim().split('@');
    if (target === '') {
      throw new TsmpiError(ErrorCode.Config, `TSMPI_RAILS=${JSON.stringify(text)} has an empty entry`, { operation: 'configuration', hint: 'list interface names or addresses separated by commas, e.g. eth0@10gbit,eth1@1gbit' });
    }
    // Every 127.x.y.z is this node's (Linux routes 127/8 to the loopback): rails for tests.
    const loopback = isIPv4(target) && target.startsWith('127.') ? { name: 'lo', address: target } : undefined;
    const found = loopback ?? (isIPv4(target) ? addresses.find((a) => a.address === target) : addresses.find((a) => a.name === target));
    if (found === undefined) {
      throw new TsmpiError(ErrorCode.Config, `TSMPI_RAILS: ${target} is not ${isIPv4(target) ? 'an address' : 'an interface with an IPv4 address'} of node ${hostname()}`, {
        operation: 'configuration',
        hint: `this node has ${addresses.map((a) => `${a.name} ${a.address}`).join(', ')}`,
      });
    }
    return { name: target, address: found.address, rate: rate === undefined ? 0 : parseRailRate(rate) };
  });
  const seen = new Set<string>();
  for (const r of rails) {
    if (seen.has(r.address)) throw new TsmpiError(ErrorCode.Config, `TSMPI_RAILS lists ${r.address} twice`, { operation: 'configuration', hint: 'each rail is a different network' });
    seen.add(r.address);
  }
  return rails;
}

/** A rail of a simulated platform picked by TSMPI_RAILS: its plane's index and the rate given. */
export interface SimRailSpec {
  readonly rail: number;
  readonly rate: number;
}

/**
 * TSMPI_RAILS under the simulator: the platform's rails by name, `rail<i>` or `<i>` (as
 * `rail0@800mbit,rail1@200mbit` names a test network's interfaces), each with an optional rate
 * (none: unknown, learnt, as in a real run); the first is the control rail. Empty: every rail of
 * the platform, in order, at the rates of the platform's network cards (`platformRates`).
 */
export function parseSimRails(text: string, railCount: number, platformRates: readonly number[] = []): SimRailSpec[] {
  // The platform is the configuration: its rails, at the rates of their network cards.
  if (text.trim() === '') return Array.from({ length: railCount }, (_, rail) => ({ rail, rate: platformRates[rail] ?? 0 }));
  const names = Array.from({ length: railCount }, (_, i) => `rail${i}`).join(', ');
  const rails = text.split(',').map((entry) => {
    const [target = '', rate] = entry.trim().split('@');
    const m = /^(?:rail)?(\d+)$/.exec(target);
    const rail = m ? Number(m[1]) : NaN;
    if (!(rail >= 0 && rail < railCount)) {
      throw new TsmpiError(ErrorCode.Config, `TSMPI_RAILS: ${JSON.stringify(target)} is not a rail of the simulated platform (it has ${railCount}: ${names})`, {
        operation: 'configuration',
        hint: `name the platform's rails rail0 .. rail${railCount - 1} (or 0 .. ${railCount - 1}), or leave TSMPI_RAILS empty to use them all`,
      });
    }
    return { rail, rate: rate === undefined ? 0 : parseRailRate(rate) };
  });
  const seen = new Set<number>();
  for (const r of rails) {
    if (seen.has(r.rail)) throw new TsmpiError(ErrorCode.Config, `TSMPI_RAILS lists rail${r.rail} twice`, { operation: 'configuration', hint: 'each rail is a different network' });
    seen.add(r.rail);
  }
  return rails;
}
