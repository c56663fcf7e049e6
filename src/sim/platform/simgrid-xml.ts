/**
 * Reads SimGrid platform XML (DTD version 4 / 4.1) into a {@link Platform}, so the files used with
 * SimGrid drive our simulator unchanged. One network, or several parallel ones with the
 * `tsmpi/rails` property (see railPlanes), which SimGrid ignores.
 *
 * Supported (SimGrid semantics, see zones.ts for routing):
 * - `<zone>`/`<AS>` with routing `Full`, `Floyd`, `Dijkstra`, `DijkstraCache` (hosts, routers,
 *   links, `<route>`, nested zones and clusters, `<zoneRoute>`/`<ASroute>` with gateways) and
 *   `Cluster` (`<host_link>`, `<backbone>`, `<cabinet>`);
 * - `<cluster>` FLAT (hosts prefix+N+suffix for N in radical; private link `<id>_link_<N>`,
 *   split into `_UP`/`_DOWN` under the default SPLITDUPLEX; optional backbone `<id>_backbone`
 *   crossed by every inter-host route; optional `limiter_link`) and FAT_TREE (`topo_parameters`);
 * - `<host id speed core pstate>` (speed lists per pstate), `<link id bandwidth latency
 *   sharing_policy>` (SHARED, FATPIPE, SPLITDUPLEX/FULLDUPLEX with `<link_ctn direction>`),
 *   symmetrical routes (reversed, UP and DOWN swapped).
 * `<config>` settings (`<prop id="network/model" value="SMPI"/>`) are kept for the simulator to read
 * (network-models.ts). Ignored: `<prop>` elsewhere (but `tsmpi/rails`), `<actor>`, disks and storage, loopback links and routes from a
 * host to itself (the platform's route from a host to itself is empty). As in SimGrid, a missing
 * route (e.g. a pair absent from a Full zone) is reported when it is first asked for. Refused with an error:
 * TORUS and DRAGONFLY clusters, Vivaldi/Wifi/None routing, bypass routes, `<include>`, `<peer>`,
 * profiles (`*_file`, `<trace>`): give background load through the JSON form instead.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { FatTreeLayout, parseFatTreeParameters } from './fat-tree.js';
import { Platform, configError, withRailPlanes, type Host, type Link, type NicLinks, type RailPlane } from './platform.js';
import { expandRadical, parseBandwidth, parseSpeed, parseTime } from './units.js';
import { FatTreeZone, FullZone, GraphZone, StarZone, globalRoute, isInside, type NetPoint, type Zone, type ZoneRoute } from './zones.js';

interface Element {
  readonly tag: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly Element[];
}

const IGNORED = new Set(['prop', 'config', 'actor', 'process', 'argument', 'random', 'storage_type', 'storage', 'mount', 'disk', 'model_prop']);
const REFUSED: Record<string, string> = {
  include: 'inline the included file',
  trace: 'profiles are not modelled from XML: give background load in the JSON platform form',
  trace_connect: 'profiles are not modelled from XML: give background load in the JSON platform form',
  bypassRoute: 'replace the bypass by the route itself',
  bypassZoneRoute: 'replace the bypass by the route itself',
  bypassASroute: 'replace the bypass by the route itself',
  peer: 'Vivaldi peers are not supported: describe the hosts and links explicitly',
};

function toElements(nodes: unknown): Element[] {
  const out: Element[] = [];
  for (const node of Array.isArray(nodes) ? (nodes as Record<string, unknown>[]) : []) {
    const tag = Object.keys(node).find((k) => k !== ':@');
    if (tag === undefined || tag === '#text' || tag.startsWith('?')) continue;
    out.push({ tag, attrs: (node[':@'] ?? {}) as Record<string, string>, children: toElements(node[tag]) });
  }
  return out;
}

/** Builds a {@link Platform} from the text of a SimGrid platform file; `source` names it in errors. */
export function platformFromSimGridXml(text: string, source: string): Platform {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw configError(`${source}:${valid.err.line}:${valid.err.col}: not well-formed XML: ${valid.err.msg}`, 'fix the XML syntax (SimGrid platform files are XML)');
  const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false, parseTagValue: false, trimValues: true });
  const platform = toElements(parser.parse(text)).find((e) => e.tag === 'platform');
  if (platform === undefined) throw configError(`${source}: no <platform> element`, 'a SimGrid platform file has a <platform version="4.1"> root');
  const version = Number(platform.attrs['version'] ?? '0');
  if (!(version >= 4)) throw configError(`${source}: platform version ${platform.attrs['version'] ?? '(none)'} is older than 4`, 'update the file with simgrid_update_xml, or write version="4.1"');
  return new Reader(source).read(platform);
}

class Reader {
  private readonly source: string;
  private readonly hosts: Host[] = [];
  private readonly hostPoints: NetPoint[] = [];
  private readonly links: Link[] = [];
  private readonly linkIds = new Map<string, number>();
  private readonly split = new Map<string, [number, number]>();
  private readonly points = new Map<string, NetPoint>();
  private readonly zonePoints = new Map<Zone, NetPoint>();
  private readonly nics = new Map<number, NicLinks>();
  private readonly deferred: (() => void)[] = [];

  constructor(source: string) {
    this.source = source;
  }

  read(platform: Element): Platform {
    const tops = platform.children.filter((e) => this.keep(e, ['zone', 'AS', 'cluster']));
    if (tops.length !== 1) throw configError(`${this.source}: <platform> must hold exactly one top-level <zone> or <cluster>; found ${tops.length}`, 'wrap the zones and clusters in one <zone id="AS0" routing="Full">');
    this.element(tops[0]!, undefined);
    for (const run of this.deferred) run();
    if (this.hosts.length === 0) throw configError(`${this.source}: the platform has no hosts`, 'declare <host> elements or a <cluster>');
    const router = {
      route: (src: number, dst: number): number[] => {
        const out: number[] = [];
        globalRoute(this.hostPoints[src]!, this.hostPoints[dst]!, out, this.zonePoints);
        return out;
      },
      nic: (host: number): NicLinks | undefined => this.nics.get(host),
    };
    const config = platform.children.filter((c) => c.tag === 'config').flatMap((c) => c.children.filter((p) => p.tag === 'prop').map((p) => ({ key: this.attr(p, 'id'), value: this.attr(p, 'value') })));
    const init = { hosts: this.hosts, links: this.links, router, source: this.source, ...(config.length > 0 ? { config } : {}) };
    return new Platform(withRailPlanes(init, this.railPlanes(platform, tops[0]!)));
  }

  /**
   * Several networks: `<prop id="tsmpi/rails" value="1, 0.25:2"/>` in the top-level zone (or the
   * platform) makes rail i a copy of the described network with its bandwidth times the i-th
   * factor (and its latency times the one after a colon). SimGrid ignores the property.
   */
  private railPlanes(platform: Element, top: Element): RailPlane[] {
    const prop = [...top.children, ...platform.children].find((c) => c.tag === 'prop' && c.attrs['id'] === 'tsmpi/rails');
    if (prop === undefined) return [];
    const text = prop.attrs['value'] ?? '';
    const planes = text.split(',').map((entry, i) => {
      const [bw = '', lat = '1'] = entry.trim().split(':');
      const plane = { bandwidthFactor: Number(bw), latencyFactor: Number(lat) };
      if (!(plane.bandwidthFactor > 0) || !(plane.latencyFactor >= 0) || bw === '') {
        throw configError(`${this.source}: <prop id="tsmpi/rails" value=${JSON.stringify(text)}>: rail ${i} is ${JSON.stringify(entry.trim())}`, 'write one bandwidth factor per rail, optionally :latency factor, e.g. value="1, 0.25:2" (rail 0 is the network as described: 1)');
      }
      return plane;
    });
    if (planes[0]!.bandwidthFactor !== 1 || planes[0]!.latencyFactor !== 1) {
      throw configError(`${this.source}: <prop id="tsmpi/rails">: rail 0 must be the network as described (factor 1)`, 'start the list with 1, e.g. value="1, 0.25"');
    }
    if (planes.length > 64) throw configError(`${this.source}: <prop id="tsmpi/rails"> lists ${planes.length} rails`, 'give at most 64 rails');
    return planes;
  }

  /** True for the tags wanted; throws for refused or unknown tags; false for ignored ones. */
  private keep(e: Element, wanted: readonly string[]): boolean {
    if (wanted.includes(e.tag)) return true;
    if (IGNORED.has(e.tag)) return false;
    const what = `<${e.tag}${e.attrs['id'] ? ` id="${e.attrs['id']}"` : ''}>`;
    const refused = REFUSED[e.tag];
    if (refused !== undefined) throw configError(`${this.source}: ${what} is not supported`, refused);
    throw configError(`${this.source}: ${what} is not allowed here`, `allowed here: ${wanted.map((t) => `<${t}>`).join(', ')}`);
  }

  private attr(e: Element, name: string, fallback?: string): string {
    const v = e.attrs[name] ?? fallback;
    if (v === undefined) throw configError(`${this.source}: <${e.tag}${e.attrs['id'] ? ` id="${e.attrs['id']}"` : ''}> has no ${name} attribute`, `add ${name}="..." (required by the SimGrid DTD)`);
    return v;
  }

  private where(e: Element, name: string): string {
    return `${this.source}: <${e.tag} id="${e.attrs['id'] ?? '?'}"> ${name}`;
  }

  private noProfiles(e: Element): void {
    for (const a of ['speed_file', 'availability_file', 'state_file', 'bandwidth_file', 'latency_file']) {
      if ((e.attrs[a] ?? '') !== '') throw configError(`${this.where(e, a)} is not supported`, REFUSED['trace']!);
    }
  }

  private point(name: string, kind: NetPoint['kind'], zone: Zone | undefined, extra: { host?: number; inner?: Zone } = {}): NetPoint {
    if (this.points.has(name)) throw configError(`${this.source}: the name ${JSON.stringify(name)} is used twice (hosts, routers and zones share one namespace)`, 'rename one of them');
    const p: NetPoint = { name, kind, zone, ...extra };
    this.points.set(name, p);
    return p;
  }

  private addHost(name: string, speed: number, cores: number, zone: Zone): NetPoint {
    const id = this.hosts.length;
    this.hosts.push({ name, speed, cores });
    const p = this.point(name, 'host', zone, { host: id });
    this.hostPoints.push(p);
    return p;
  }

  private addLink(link: Link): number {
    if (this.linkIds.has(link.name)) throw configError(`${this.source}: link ${JSON.stringify(link.name)} is declared twice`, 'link names must be unique over the whole platform');
    this.links.push(link);
    this.linkIds.set(link.name, this.links.length - 1);
    return this.links.length - 1;
  }

  /** Adds a link with a SimGrid sharing policy; returns [up, down] (the same id unless split). */
  private addPolicyLink(name: string, bandwidth: number, latency: number, policy: string, field: string, ends?: [string, string]): [number, number] {
    const e = ends === undefined ? {} : { from: ends[0], to: ends[1] };
    switch (policy) {
      case 'SPLITDUPLEX':
      case 'FULLDUPLEX': {
        const up = this.addLink({ name: `${name}_UP`, bandwidth, latency, sharing: 'shared', ...e });
        const down = this.addLink({ name: `${name}_DOWN`, bandwidth, latency, sharing: 'shared', ...(ends && { from: ends[1], to: ends[0] }) });
        this.split.set(name, [up, down]);
        return [up, down];
      }
      case 'SHARED':
      case 'FATPIPE': {
        const id = this.addLink({ name, bandwidth, latency, sharing: policy === 'SHARED' ? 'shared' : 'fatpipe', ...e, ...(ends && { bidirectional: true }) });
        return [id, id];
      }
      default:
        throw configError(`${field} ${JSON.stringify(policy)} is not supported`, 'use SHARED, FATPIPE or SPLITDUPLEX');
    }
  }

  private element(e: Element, parent: Zone | undefined): void {
    if (e.tag === 'cluster') this.cluster(e, parent);
    else this.zone(e, parent);
  }

  private zoneShell(id: string, parent: Zone | undefined, make: () => Zone): Zone {
    const zone = make();
    this.zonePoints.set(zone, this.point(id, 'zone', parent, { inner: zone }));
    return zone;
  }

  private zone(e: Element, parent: Zone | undefined): void {
    const id = this.attr(e, 'id');
    const routing = this.attr(e, 'routing');
    const r = routing.toLowerCase();
    const zone = this.zoneShell(id, parent, () => {
      if (r === 'full') return new FullZone(id, parent, this.source);
      if (r === 'floyd' || r === 'dijkstra' || r === 'dijkstracache') return new GraphZone(id, parent, this.source);
      if (r === 'cluster') return new StarZone(id, parent, this.source);
      throw configError(`${this.where(e, 'routing')} ${JSON.stringify(routing)} is not supported`, 'use Full, Floyd, Dijkstra, DijkstraCache or Cluster');
    });
    const star = zone instanceof StarZone ? zone : undefined;
    const allowed = ['zone', 'AS', 'cluster', 'host', 'router', 'link', 'route', 'zoneRoute', 'ASroute', ...(star ? ['backbone', 'host_link', 'cabinet'] : [])];
    let backbone: number | undefined;
    for (const c of e.children) {
      if (!this.keep(c, allowed)) continue;
      if (c.tag === 'zone' || c.tag === 'AS' || c.tag === 'cluster') this.element(c, zone);
      else if (c.tag === 'host') this.host(c, zone);
      else if (c.tag === 'router') {
        const p = this.point(this.attr(c, 'id'), 'router', zone);
        star?.setRoutes(p, [], []);
      } else if (c.tag === 'link') this.link(c);
      else if (c.tag === 'backbone') backbone = this.addLink({ name: this.attr(c, 'id'), bandwidth: parseBandwidth(this.attr(c, 'bandwidth'), this.where(c, 'bandwidth')), latency: parseTime(this.attr(c, 'latency'), this.where(c, 'latency')), sharing: 'shared' });
      else if (c.tag === 'cabinet') this.cabinet(c, star!, () => backbone);
      else if (c.tag === 'host_link') this.deferred.push(() => this.hostLink(c, star!, backbone));
      else if (star !== undefined) throw configError(`${this.source}: <${c.tag}> in Cluster zone ${JSON.stringify(id)} is not supported`, 'connect the hosts of a Cluster zone with <host_link>, or use routing="Full"');
      else this.deferred.push(() => this.route(c, zone as FullZone | GraphZone));
    }
  }

  private host(e: Element, zone: Zone): NetPoint {
    this.noProfiles(e);
    const speeds = this.attr(e, 'speed').split(',');
    const pstate = Number(this.attr(e, 'pstate', '0'));
    const speed = speeds[pstate];
    if (!Number.isInteger(pstate) || speed === undefined) throw configError(`${this.where(e, 'pstate')} ${pstate} has no speed`, `use a pstate in 0..${speeds.length - 1}`);
    return this.addHost(this.attr(e, 'id'), parseSpeed(speed, this.where(e, 'speed')), this.cores(e), zone);
  }

  private cores(e: Element): number {
    const text = this.attr(e, 'core', '1');
    if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw configError(`${this.where(e, 'core')} ${JSON.stringify(text)} is not a positive integer`, 'core is the number of cores, e.g. core="4"');
    return Number(text);
  }

  private link(e: Element): void {
    this.noProfiles(e);
    const bw = this.attr(e, 'bandwidth');
    if (/[,;]/.test(bw)) throw configError(`${this.where(e, 'bandwidth')} lists several values (WIFI)`, 'give one bandwidth; WIFI links are not supported');
    this.addPolicyLink(this.attr(e, 'id'), parseBandwidth(bw, this.where(e, 'bandwidth')), parseTime(this.attr(e, 'latency', '0'), this.where(e, 'latency')), this.attr(e, 'sharing_policy', 'SHARED'), this.where(e, 'sharing_policy'));
  }

  /** The forward and backward link lists of a route's <link_ctn> children. */
  private linkList(e: Element): [number[], number[]] {
    const fwd: number[] = [];
    const back: number[] = [];
    for (const c of e.children) {
      if (!this.keep(c, ['link_ctn'])) continue;
      const id = this.attr(c, 'id');
      const dir = (c.attrs['direction'] ?? 'NONE').toUpperCase();
      const pair = this.split.get(id);
      if (pair !== undefined) {
        if (dir !== 'UP' && dir !== 'DOWN') throw configError(`${this.source}: link ${JSON.stringify(id)} is SPLITDUPLEX, so <link_ctn id="${id}"> needs direction="UP" or "DOWN"`, 'add the direction the route crosses the link in');
        fwd.push(dir === 'UP' ? pair[0] : pair[1]);
        back.push(dir === 'UP' ? pair[1] : pair[0]);
        continue;
      }
      const l = this.linkIds.get(id);
      if (l === undefined) throw configError(`${this.source}: <link_ctn id="${id}"> names no declared link`, 'declare the <link> before the routes that use it, or fix the id');
      fwd.push(l);
      back.push(l);
    }
    return [fwd, back.reverse()];
  }

  private route(e: Element, zone: FullZone | GraphZone): void {
    const zoneRoute = e.tag !== 'route';
    const src = this.lookup(this.attr(e, 'src'), e);
    const dst = this.lookup(this.attr(e, 'dst'), e);
    for (const p of [src, dst]) {
      if (p.zone !== zone || (p.kind === 'zone') !== zoneRoute) {
        throw configError(`${this.source}: <${e.tag} src="${src.name}" dst="${dst.name}">: ${JSON.stringify(p.name)} is not a ${zoneRoute ? 'zone' : 'host or router'} directly in zone ${JSON.stringify(zone.id)}`, zoneRoute ? 'zone routes join sibling zones' : 'routes join hosts and routers of the zone; use <zoneRoute> between zones');
      }
    }
    const [fwd, back] = this.linkList(e);
    if (!zoneRoute && fwd.length === 0) throw configError(`${this.source}: <route src="${src.name}" dst="${dst.name}"> has no links`, 'list the links with <link_ctn id="..."/>');
    if (src === dst) return; // loopback: the platform's self route is empty
    let gw: [NetPoint, NetPoint] | undefined;
    if (zoneRoute) {
      gw = [this.lookup(this.attr(e, 'gw_src'), e), this.lookup(this.attr(e, 'gw_dst'), e)];
      if (!isInside(gw[0], src.inner!) || !isInside(gw[1], dst.inner!)) throw configError(`${this.source}: <${e.tag} src="${src.name}" dst="${dst.name}">: gw_src must be inside zone ${src.name} and gw_dst inside ${dst.name}`, 'name a host or router of each zone as gateway (a cluster router is <prefix><id>_router<suffix>)');
    }
    const mk = (links: number[], a?: NetPoint, b?: NetPoint): ZoneRoute => (a && b ? { links, gwSrc: a, gwDst: b } : { links });
    zone.addRoute(src, dst, mk(fwd, gw?.[0], gw?.[1]));
    if (!/^no$/i.test(e.attrs['symmetrical'] ?? 'YES')) zone.addRoute(dst, src, mk(back, gw?.[1], gw?.[0]));
  }

  private lookup(name: string, e: Element): NetPoint {
    const p = this.points.get(name);
    if (p === undefined) throw configError(`${this.source}: <${e.tag}> refers to ${JSON.stringify(name)}, which is not a declared host, router or zone`, 'check the spelling, or declare it first');
    return p;
  }

  private hostLink(e: Element, zone: StarZone, backbone: number | undefined): void {
    const host = this.lookup(this.attr(e, 'id'), e);
    const id = (name: string): number => {
      const l = this.linkIds.get(name);
      if (l === undefined) throw configError(`${this.source}: <host_link id="${host.name}"> names no declared link ${JSON.stringify(name)}`, 'declare the link first (a SPLITDUPLEX link "x" gives "x_UP" and "x_DOWN")');
      return l;
    };
    const [up, down] = [id(this.attr(e, 'up')), id(this.attr(e, 'down'))];
    const bb = backbone === undefined ? [] : [backbone];
    zone.setRoutes(host, [up, ...bb], [...bb, down]);
    if (host.host !== undefined) this.nics.set(host.host, { up: [up], down: [down] });
  }

  private cabinet(e: Element, zone: StarZone, backbone: () => number | undefined): void {
    const bw = parseBandwidth(this.attr(e, 'bw'), this.where(e, 'bw'));
    const lat = parseTime(this.attr(e, 'lat'), this.where(e, 'lat'));
    const speed = parseSpeed(this.attr(e, 'speed'), this.where(e, 'speed'));
    for (const n of expandRadical(this.attr(e, 'radical'), this.where(e, 'radical'))) {
      const name = `${this.attr(e, 'prefix')}${n}${this.attr(e, 'suffix')}`;
      const p = this.addHost(name, speed, 1, zone);
      const [up, down] = this.addPolicyLink(`link_${name}`, bw, lat, 'SPLITDUPLEX', '');
      this.deferred.push(() => {
        const bb = backbone();
        const b = bb === undefined ? [] : [bb];
        zone.setRoutes(p, [up, ...b], [...b, down]);
      });
      this.nics.set(p.host!, { up: [up], down: [down] });
    }
  }

  private cluster(e: Element, parent: Zone | undefined): void {
    const id = this.attr(e, 'id');
    const prefix = this.attr(e, 'prefix');
    const suffix = this.attr(e, 'suffix');
    const radicals = expandRadical(this.attr(e, 'radical'), this.where(e, 'radical'));
    const speed = parseSpeed(this.attr(e, 'speed').split(',')[0]!, this.where(e, 'speed'));
    const cores = this.cores(e);
    const bw = parseBandwidth(this.attr(e, 'bw'), this.where(e, 'bw'));
    const lat = parseTime(this.attr(e, 'lat'), this.where(e, 'lat'));
    const policy = this.attr(e, 'sharing_policy', 'SPLITDUPLEX');
    const topology = this.attr(e, 'topology', 'FLAT');
    const routerName = this.attr(e, 'router_id', '') || `${prefix}${id}_router${suffix}`;
    const names = radicals.map((n) => `${prefix}${n}${suffix}`);
    if (topology === 'FAT_TREE') {
      if ((e.attrs['limiter_link'] ?? '') !== '') throw configError(`${this.where(e, 'limiter_link')} is not supported on FAT_TREE clusters`, 'drop limiter_link');
      const layout = new FatTreeLayout(parseFatTreeParameters(this.attr(e, 'topo_parameters'), this.where(e, 'topo_parameters')));
      if (layout.hostCount !== names.length) throw configError(`${this.where(e, 'radical')} gives ${names.length} hosts but topo_parameters needs ${layout.hostCount} (the product of the down counts)`, 'make the radical and the fat-tree shape agree');
      const positions = new Map<NetPoint, number>();
      const base = this.links.length;
      const split = /^(SPLIT|FULL)DUPLEX$/.test(policy);
      const zone = this.zoneShell(id, parent, () => new FatTreeZone(id, parent, this.source, layout, base, split, positions));
      const hostIds = names.map((name, i) => {
        const p = this.addHost(name, speed, cores, zone);
        positions.set(p, i);
        return p.host!;
      });
      this.point(routerName, 'router', zone);
      const node = (level: number, pos: number): string => (level === 0 ? names[pos]! : `${id}_switch_${level}_${pos}`);
      for (let c = 0; c < layout.cableCount; c++) {
        const { level, child, parent: up, j } = layout.cableEnds(c);
        const ends: [string, string] = [node(level, child), node(level + 1, up)];
        this.addPolicyLink(`${id}_link_${ends[0]}_${ends[1]}_${j}`, bw, lat, policy, this.where(e, 'sharing_policy'), ends);
      }
      const per = split ? 2 : 1;
      const ports = layout.shape.up[0]! * layout.shape.count[0]!;
      hostIds.forEach((hostId, h) => {
        const ids = Array.from({ length: ports }, (_, t) => base + per * layout.cable(0, h, t));
        this.nics.set(hostId, { up: ids, down: split ? ids.map((x) => x + 1) : ids });
      });
      return;
    }
    if (topology !== 'FLAT') throw configError(`${this.where(e, 'topology')} ${topology} is not supported`, 'use FLAT (with or without backbone) or FAT_TREE');
    const zone = this.zoneShell(id, parent, () => new StarZone(id, parent, this.source)) as StarZone;
    const bbBw = e.attrs['bb_bw'] ?? '';
    const backbone = bbBw === '' ? [] : [this.addPolicyLink(`${id}_backbone`, parseBandwidth(bbBw, this.where(e, 'bb_bw')), parseTime(this.attr(e, 'bb_lat', '0s'), this.where(e, 'bb_lat')), this.attr(e, 'bb_sharing_policy', 'SHARED'), this.where(e, 'bb_sharing_policy'))[0]];
    const limiter = e.attrs['limiter_link'] ?? '';
    radicals.forEach((n, i) => {
      const host = this.addHost(names[i]!, speed, cores, zone);
      const link = `${id}_link_${n}`;
      const lim = limiter === '' ? [] : [this.addLink({ name: `${link}_limiter`, bandwidth: parseBandwidth(limiter, this.where(e, 'limiter_link')), latency: 0, sharing: 'shared' })];
      const [up, down] = this.addPolicyLink(link, bw, lat, policy, this.where(e, 'sharing_policy'));
      zone.setRoutes(host, [...lim, up, ...backbone], [...backbone, down, ...lim]);
      this.nics.set(host.host!, { up: [up], down: [down] });
    });
    zone.setRoutes(this.point(routerName, 'router', zone), [], []);
  }
}
