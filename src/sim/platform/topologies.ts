/**
 * Platform builders: a crossbar (every host has a private up/down link pair to a non-blocking
 * switch) and a fat tree (SimGrid's FAT_TREE shape with D-mod-k routing), each with one
 * independent copy of the network per rail (separate links, one NIC per host per rail).
 *
 * Latencies are per link, as in SimGrid clusters: a crossbar route crosses two links, so its
 * end-to-end latency is 2 × latency; a fat-tree route crosses 2 × (levels climbed) links.
 * Cables are split-duplex (SimGrid's default for clusters): separate `up` and `down` links.
 *
 * @example
 * ```ts
 * const xbar = crossbar({ hosts: 16, speed: 1e9, bandwidth: 1.25e9, latency: 1e-6, rails: 2 });
 * const tree = fatTree({ shape: '2;4,4;1,2;1,2', speed: 1e9, hostBandwidth: 1.25e9, latency: 1e-6 });
 * const k4 = fatTree({ shape: kAryFatTreeShape(4), speed: 1e9, hostBandwidth: 1.25e9, latency: 1e-6, oversubscription: 2 });
 * ```
 */
import type { MachineCalibration } from './calibration.js';
import { FatTreeLayout, checkFatTreeShape, parseFatTreeParameters, type FatTreeShape } from './fat-tree.js';
import { Platform, checkInteger, checkLoadProfile, checkPositive, configError, type Host, type Link, type LoadProfile, type NicLinks } from './platform.js';

export { bisectionBandwidth } from './bisection.js';
export { kAryFatTreeShape, parseFatTreeParameters, type FatTreeShape } from './fat-tree.js';

/** Per-rail overrides of a builder's bandwidth and latency. */
export interface RailSpec {
  /** Bytes/s of the host links on this rail. */
  readonly bandwidth?: number;
  /**
   * The rail's bandwidth over time: [time s, factor 0..1] steps (a rail that loses half its rate
   * at t = 3 s and recovers at 6 s: [[3, 0.5], [6, 1]]); every link of the rail follows it.
   */
  readonly profile?: LoadProfile;
  /** Seconds per link on this rail. */
  readonly latency?: number;
  /** Bytes/s of the switch-to-switch links (fat tree). */
  readonly linkBandwidth?: number;
}

export interface HostOptions {
  /** Flop/s of one core. */
  readonly speed: number;
  /** @default 1 */
  readonly cores?: number;
  /** Host names are prefix + index + suffix. @default 'node-' */
  readonly prefix?: string;
  /** @default '' */
  readonly suffix?: string;
  /** Background load per host index. */
  readonly load?: ReadonlyMap<number, LoadProfile>;
  /** A name for messages (e.g. the file the options came from). */
  readonly source?: string;
}

export interface CrossbarOptions extends HostOptions {
  readonly hosts: number;
  /** Bytes/s of each host link. */
  readonly bandwidth: number;
  /** Seconds per link. */
  readonly latency: number;
  /** Number of rails, or one entry per rail. @default 1 */
  readonly rails?: number | readonly RailSpec[];
  /** What the machine costs per link class, when the crossbar is a calibrated machine's hosts. */
  readonly calibration?: MachineCalibration;
}

export interface FatTreeOptions extends HostOptions {
  /** SimGrid FAT_TREE `topo_parameters` ("2;4,4;1,2;1,2") or the parsed shape (see {@link kAryFatTreeShape}). */
  readonly shape: string | FatTreeShape;
  /** If given, must equal the shape's host count (prod of down). */
  readonly hosts?: number;
  /** Bytes/s of the host-to-leaf links. */
  readonly hostBandwidth: number;
  /** Bytes/s of the switch-to-switch links. @default hostBandwidth */
  readonly linkBandwidth?: number;
  /** Seconds per link. */
  readonly latency: number;
  /** r: the leaf uplinks carry linkBandwidth / r, so a tree that is 1:1 by structure becomes r:1. @default 1 */
  readonly oversubscription?: number;
  readonly rails?: number | readonly RailSpec[];
}

interface Rail {
  bandwidth: number;
  latency: number;
  linkBandwidth: number;
}

/** The bandwidth profile of each rail, checked (undefined where a rail has none). */
function railProfiles(rails: number | readonly RailSpec[] | undefined, source: string): (LoadProfile | undefined)[] | undefined {
  if (rails === undefined || typeof rails === 'number') return undefined;
  return rails.map((r, i) => (r.profile === undefined ? undefined : checkLoadProfile(r.profile, `${source}: rails[${i}].profile`)));
}

function resolveRails(rails: number | readonly RailSpec[] | undefined, base: Rail, source: string): Rail[] {
  const specs: readonly RailSpec[] = typeof rails === 'number' ? new Array<RailSpec>(checkInteger(rails, `${source}: rails`, 1, 64)).fill({}) : (rails ?? [{}]);
  if (specs.length === 0 || specs.length > 64) throw configError(`${source}: rails must list 1..64 rails; got ${specs.length}`, 'give one entry per network plane');
  return specs.map((s, r) => ({
    bandwidth: checkPositive(s.bandwidth ?? base.bandwidth, `${source}: rails[${r}].bandwidth`, 'bytes/s'),
    latency: checkPositive(s.latency ?? base.latency, `${source}: rails[${r}].latency`, 'seconds', true),
    linkBandwidth: checkPositive(s.linkBandwidth ?? s.bandwidth ?? base.linkBandwidth, `${source}: rails[${r}].linkBandwidth`, 'bytes/s'),
  }));
}

function makeHosts(count: number, o: HostOptions, source: string): Host[] {
  const prefix = o.prefix ?? 'node-';
  const suffix = o.suffix ?? '';
  const cores = checkInteger(o.cores ?? 1, `${source}: cores`, 1);
  const speed = checkPositive(o.speed, `${source}: speed`, 'flop/s');
  for (const id of o.load?.keys() ?? []) checkInteger(id, `${source}: load host index`, 0, count - 1);
  return Array.from({ length: count }, (_, i) => {
    const load = o.load?.get(i);
    const name = `${prefix}${i}${suffix}`;
    return load === undefined ? { name, speed, cores } : { name, speed, cores, load };
  });
}

/** Hosts with a private up/down link pair per rail to a non-blocking switch; route = [up(src), down(dst)]. */
export function crossbar(o: CrossbarOptions): Platform {
  const source = o.source ?? 'crossbar';
  const n = checkInteger(o.hosts, `${source}: hosts`, 1);
  const hosts = makeHosts(n, o, source);
  const rails = resolveRails(o.rails, { bandwidth: o.bandwidth, latency: o.latency, linkBandwidth: o.bandwidth }, source);
  const links: Link[] = [];
  rails.forEach((rail, r) => {
    const tag = rails.length > 1 ? `rail${r}:` : '';
    const sw = 'switch';
    for (const h of hosts) {
      const common = { bandwidth: rail.bandwidth, latency: rail.latency, sharing: 'shared', rail: r } as const;
      links.push({ ...common, name: `${tag}${h.name}->${sw}`, from: h.name, to: sw });
      links.push({ ...common, name: `${tag}${sw}->${h.name}`, from: sw, to: h.name });
    }
  });
  const router = {
    route: (src: number, dst: number, rail: number): number[] => [rail * 2 * n + 2 * src, rail * 2 * n + 2 * dst + 1],
    nic: (host: number, rail: number): NicLinks => ({ up: [rail * 2 * n + 2 * host], down: [rail * 2 * n + 2 * host + 1] }),
  };
  return new Platform({ hosts, links, router, rails: rails.length, source, railProfiles: railProfiles(o.rails, source), ...(o.calibration !== undefined ? { calibration: o.calibration } : {}) });
}

/** A SimGrid-shaped fat tree (see {@link FatTreeLayout}) with D-mod-k routing, one copy per rail. */
export function fatTree(o: FatTreeOptions): Platform {
  const source = o.source ?? 'fat tree';
  const shape = typeof o.shape === 'string' ? parseFatTreeParameters(o.shape, `${source}: shape`) : checkFatTreeShape(o.shape, `${source}: shape`);
  const layout = new FatTreeLayout(shape);
  const n = layout.hostCount;
  if (o.hosts !== undefined && o.hosts !== n) {
    throw configError(`${source}: hosts is ${o.hosts} but the shape has ${n} hosts (the product of the down counts)`, 'drop hosts or change the shape');
  }
  const over = checkPositive(o.oversubscription ?? 1, `${source}: oversubscription`, 'a ratio such as 2 for 2:1');
  if (over !== 1 && shape.levels < 2) throw configError(`${source}: oversubscription needs a tree with 2 or more levels`, 'a one-level tree has no leaf uplinks');
  const hosts = makeHosts(n, o, source);
  const rails = resolveRails(o.rails, { bandwidth: o.hostBandwidth, latency: o.latency, linkBandwidth: o.linkBandwidth ?? o.hostBandwidth }, source);
  const perRail = 2 * layout.cableCount;
  const links: Link[] = [];
  const nodeName = (level: number, pos: number): string => (level === 0 ? hosts[pos]!.name : `sw${level}.${pos}`);
  rails.forEach((rail, r) => {
    const tag = rails.length > 1 ? `rail${r}:` : '';
    for (let c = 0; c < layout.cableCount; c++) {
      const { level, child, parent, j } = layout.cableEnds(c);
      const bandwidth = level === 0 ? rail.bandwidth : level === 1 ? rail.linkBandwidth / over : rail.linkBandwidth;
      const lo = nodeName(level, child);
      const hi = nodeName(level + 1, parent);
      const par = shape.count[level]! > 1 ? `#${j}` : '';
      const common = { bandwidth, latency: rail.latency, sharing: 'shared', rail: r } as const;
      links.push({ ...common, name: `${tag}${lo}->${hi}${par}`, from: lo, to: hi });
      links.push({ ...common, name: `${tag}${hi}->${lo}${par}`, from: hi, to: lo });
    }
  });
  const ports = shape.up[0]! * shape.count[0]!;
  const router = {
    route: (src: number, dst: number, rail: number): number[] => layout.route(src, dst).map((h) => rail * perRail + 2 * h.cable + (h.up ? 0 : 1)),
    nic: (host: number, rail: number): NicLinks => {
      const cables = Array.from({ length: ports }, (_, t) => rail * perRail + 2 * layout.cable(0, host, t));
      return { up: cables, down: cables.map((id) => id + 1) };
    },
  };
  return new Platform({ hosts, links, router, rails: rails.length, source, railProfiles: railProfiles(o.rails, source) });
}
