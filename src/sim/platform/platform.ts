/**
 * The modelled cluster the simulator runs on: hosts (speed, cores, background load over time),
 * links (bandwidth, latency, sharing) and, per rail, the route a message takes between two hosts.
 * The network model asks for routes millions of times, so a {@link Platform} resolves each
 * (src, dst, rail) once through its {@link Router} and keeps the answer, with its summed latency,
 * in a bounded cache; routers themselves compute routes from the topology (arithmetic for
 * crossbars and fat trees, zone tables for SimGrid files) and never precompute all pairs.
 *
 * SimGrid counterpart: `s4u::Host`, `s4u::Link` and the netzone routing of
 * `src/kernel/routing/NetZoneImpl.cpp` (`get_global_route`), flattened to host indices.
 *
 * @example
 * ```ts
 * const p = crossbar({ hosts: 4, speed: 1e9, bandwidth: 1.25e9, latency: 1e-6 });
 * p.route(0, 3);          // [up(0), down(3)]
 * p.routeLatency(0, 3);   // 2e-6
 * ```
 */
import { ErrorCode, TsmpiError } from '../../errors.js';
import type { MachineCalibration } from './calibration.js';

/** From `time` (seconds) on, the host gives us `factor` (0..1) of its speed (until the next step). */
export interface LoadStep {
  readonly time: number;
  readonly factor: number;
}

/** Background load of a shared node: piecewise-constant steps, times increasing; factor 1 before the first. */
export type LoadProfile = readonly LoadStep[];

export interface Host {
  readonly name: string;
  /** Flop/s of one core. */
  readonly speed: number;
  readonly cores: number;
  readonly load?: LoadProfile;
}

/** `shared`: flows share the bandwidth (max-min); `fatpipe`: every flow gets all of it (SimGrid FATPIPE). */
export type LinkSharing = 'shared' | 'fatpipe';

export interface Link {
  readonly name: string;
  /** Bytes/s. */
  readonly bandwidth: number;
  /** Seconds, paid once per message per link crossed. */
  readonly latency: number;
  readonly sharing: LinkSharing;
  /** The rail (network plane) the link belongs to, when the platform knows. */
  readonly rail?: number;
  /** Graph ends (host or switch names), when the topology is known: used by bisection and checks. */
  readonly from?: string;
  readonly to?: string;
  /** One link carrying both directions of a cable (SimGrid SHARED or FATPIPE cable). */
  readonly bidirectional?: boolean;
}

/** The links of a host's network card on one rail: `up` leaves the host, `down` reaches it. */
export interface NicLinks {
  readonly up: readonly number[];
  readonly down: readonly number[];
}

/** Computes routes for a {@link Platform}; called once per (src, dst, rail) the cache misses. */
export interface Router {
  /** Link ids from host `src` to host `dst` (never equal) on `rail`; a fresh array the caller keeps. */
  route(src: number, dst: number, rail: number): number[];
  nic?(host: number, rail: number): NicLinks | undefined;
}

export interface PlatformInit {
  readonly hosts: readonly Host[];
  readonly links: readonly Link[];
  readonly router: Router;
  /** Number of separate network planes. @default 1 */
  readonly rails?: number;
  /** Where the platform came from (a file name, `crossbar`, ...), for messages. */
  readonly source?: string;
  /** Routes kept before the cache is emptied and refilled. @default 262144 */
  readonly routeCacheSize?: number;
  /** Per rail, its bandwidth over time (factor steps applied to every link of the rail). */
  readonly railProfiles?: readonly (LoadProfile | undefined)[];
  /** SimGrid configuration the file carries (`<config><prop id value/>`), in file order. */
  readonly config?: readonly ConfigEntry[];
  /** A calibrated machine's costs per link class (tsmpi calibrate), which its network model uses. */
  readonly calibration?: MachineCalibration;
}

/** One SimGrid configuration setting, e.g. network/model = SMPI. */
export interface ConfigEntry {
  readonly key: string;
  readonly value: string;
}

interface RouteEntry {
  readonly links: readonly number[];
  readonly latency: number;
}

const EMPTY_ROUTE: RouteEntry = Object.freeze({ links: Object.freeze([]) as readonly number[], latency: 0 });

/** A configuration error a user caused: names the file/field in `message`, says what to change in `hint`. */
export function configError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Config, message, { operation: 'platform', hint });
}

/** Throws unless `value` is a finite number > 0 (or ≥ 0 with `allowZero`). */
export function checkPositive(value: unknown, field: string, what: string, allowZero = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) {
    throw configError(`${field} must be a finite number ${allowZero ? '>= 0' : '> 0'} (${what}); got ${JSON.stringify(value)}`, `set ${field} to ${allowZero ? 'a non-negative' : 'a positive'} number of ${what}`);
  }
  return value;
}

/** Throws unless `value` is an integer in [min, max]. */
export function checkInteger(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in ${min}..${max}`;
    throw configError(`${field} must be an integer ${range}; got ${JSON.stringify(value)}`, `set ${field} to an integer ${range}`);
  }
  return value;
}

/** Throws unless `profile` has steps with increasing times >= 0 and factors in 0..1. */
export function checkLoadProfile(profile: LoadProfile, field: string): LoadProfile {
  let last = -Infinity;
  profile.forEach((step, i) => {
    const t = checkPositive(step.time, `${field}[${i}].time`, 'seconds', true);
    if (t <= last) throw configError(`${field}[${i}].time ${t} is not after the previous step (${last})`, 'list the load steps in increasing time order');
    last = t;
    if (typeof step.factor !== 'number' || !(step.factor >= 0 && step.factor <= 1)) {
      throw configError(`${field}[${i}].factor must be in 0..1 (the fraction of the host's speed left to us); got ${JSON.stringify(step.factor)}`, 'use 1 for an idle host and 0.5 when half of it is taken by other work');
    }
  });
  return profile;
}

/** A modelled cluster: hosts, links and cached routes on every rail. */
export class Platform {
  readonly rails: number;
  readonly source: string;
  /** SimGrid configuration from the platform file (network model, factors, thresholds). */
  readonly config: readonly ConfigEntry[];
  readonly calibration: MachineCalibration | undefined;
  private readonly hostList: readonly Host[];
  private readonly linkList: readonly Link[];
  private readonly byName: Map<string, number>;
  private readonly router: Router;
  private readonly cache = new Map<number, RouteEntry>();
  private readonly cacheLimit: number;
  private readonly profiles: readonly (LoadProfile | undefined)[];

  constructor(init: PlatformInit) {
    this.source = init.source ?? 'platform';
    this.config = init.config ?? [];
    this.calibration = init.calibration;
    this.rails = checkInteger(init.rails ?? 1, `${this.source}: rails`, 1, 64);
    this.cacheLimit = checkInteger(init.routeCacheSize ?? 262144, `${this.source}: routeCacheSize`, 1);
    if (init.hosts.length === 0) throw configError(`${this.source}: the platform has no hosts`, 'declare at least one host');
    this.byName = new Map();
    init.hosts.forEach((h, i) => {
      const field = `${this.source}: host ${JSON.stringify(h.name)}`;
      if (typeof h.name !== 'string' || h.name === '') throw configError(`${this.source}: hosts[${i}] has no name`, 'give every host a unique name');
      if (this.byName.has(h.name)) throw configError(`${field} is declared twice`, 'host names must be unique');
      this.byName.set(h.name, i);
      checkPositive(h.speed, `${field} speed`, 'flop/s');
      checkInteger(h.cores, `${field} cores`, 1);
      if (h.load !== undefined) checkLoadProfile(h.load, `${field} load`);
    });
    init.links.forEach((l) => {
      const field = `${this.source}: link ${JSON.stringify(l.name)}`;
      checkPositive(l.bandwidth, `${field} bandwidth`, 'bytes/s');
      checkPositive(l.latency, `${field} latency`, 'seconds', true);
    });
    this.hostList = init.hosts;
    this.linkList = init.links;
    this.router = init.router;
    this.profiles = init.railProfiles ?? [];
  }

  /** The bandwidth profile of `rail` (factor steps over time), if it has one. */
  railProfile(rail: number): LoadProfile | undefined {
    return this.profiles[rail];
  }

  get hostCount(): number {
    return this.hostList.length;
  }

  get linkCount(): number {
    return this.linkList.length;
  }

  host(id: number): Host {
    const h = this.hostList[id];
    if (h === undefined) throw rangeError('host', id, this.hostList.length);
    return h;
  }

  link(id: number): Link {
    const l = this.linkList[id];
    if (l === undefined) throw rangeError('link', id, this.linkList.length);
    return l;
  }

  /** The id of the host with this name, or undefined. */
  hostByName(name: string): number | undefined {
    return this.byName.get(name);
  }

  /** The link ids a message crosses from host `src` to host `dst` on `rail`, in order; empty if src == dst. */
  route(src: number, dst: number, rail = 0): readonly number[] {
    return this.entry(src, dst, rail).links;
  }

  /** The summed latency of {@link route} in seconds. */
  routeLatency(src: number, dst: number, rail = 0): number {
    return this.entry(src, dst, rail).latency;
  }

  /** The network card of `host` on `rail`, when the topology has one per host (crossbar, fat tree, cluster). */
  nicLinks(host: number, rail = 0): NicLinks | undefined {
    this.checkEnds(host, host, rail);
    return this.router.nic?.(host, rail);
  }

  /** The fraction of `host`'s speed left to us at `time` (its load profile; 1 without one). */
  loadFactor(host: number, time: number): number {
    const load = this.host(host).load;
    if (load === undefined || load.length === 0 || time < load[0]!.time) return 1;
    let lo = 0;
    let hi = load.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (load[mid]!.time <= time) lo = mid;
      else hi = mid - 1;
    }
    return load[lo]!.factor;
  }

  /** Flop/s of one core of `host` at `time`, background load included. */
  speedAt(host: number, time: number): number {
    return this.host(host).speed * this.loadFactor(host, time);
  }

  private entry(src: number, dst: number, rail: number): RouteEntry {
    const n = this.hostList.length;
    this.checkEnds(src, dst, rail);
    const key = (rail * n + src) * n + dst;
    let e = this.cache.get(key);
    if (e === undefined) {
      if (src === dst) {
        e = EMPTY_ROUTE;
      } else {
        const links = this.router.route(src, dst, rail);
        let latency = 0;
        for (const id of links) latency += this.link(id).latency;
        e = { links: Object.freeze(links), latency };
      }
      if (this.cache.size >= this.cacheLimit) this.cache.clear();
      this.cache.set(key, e);
    }
    return e;
  }

  private checkEnds(src: number, dst: number, rail: number): void {
    const n = this.hostList.length;
    if (!((src >>> 0) === src && src < n)) throw rangeError('host', src, n);
    if (!((dst >>> 0) === dst && dst < n)) throw rangeError('host', dst, n);
    if (!((rail >>> 0) === rail && rail < this.rails)) throw rangeError('rail', rail, this.rails);
  }
}

function rangeError(what: string, id: number, count: number): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, `${what} ${id} does not exist (the platform has ${count})`, {
    operation: 'platform',
    hint: `use a ${what} id in 0..${count - 1}`,
  });
}

/** Rail r of a {@link withRailPlanes} platform: rail 0's links with their bandwidth and latency scaled. */
export interface RailPlane {
  readonly bandwidthFactor: number;
  readonly latencyFactor: number;
}

/**
 * Several network planes from one: rail r is a copy of every link of rail 0 (same routes, same
 * cards), bandwidth and latency scaled by `planes[r]` (planes[0] is rail 0 itself, factors 1).
 * What a SimGrid file describes as one network becomes several parallel ones.
 */
export function withRailPlanes(init: PlatformInit, planes: readonly RailPlane[]): PlatformInit {
  if (planes.length <= 1) return init;
  const base = init.links;
  const count = base.length;
  const links: Link[] = [];
  planes.forEach((plane, rail) => {
    for (const l of base) {
      links.push(rail === 0 ? { ...l, rail: 0 } : { ...l, name: `rail${rail}:${l.name}`, bandwidth: l.bandwidth * plane.bandwidthFactor, latency: l.latency * plane.latencyFactor, rail });
    }
  });
  const shift = (ids: readonly number[], rail: number): number[] => ids.map((id) => id + rail * count);
  const router: Router = {
    route: (src, dst, rail) => shift(init.router.route(src, dst, 0), rail),
    nic: (host, rail) => {
      const nic = init.router.nic?.(host, 0);
      return nic === undefined ? undefined : { up: shift(nic.up, rail), down: shift(nic.down, rail) };
    },
  };
  return { ...init, links, router, rails: planes.length };
}
