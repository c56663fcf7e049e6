/**
 * SimGrid's hierarchical routing, for platforms read from XML: netpoints (hosts, routers, zones)
 * live in zones, each zone routes between its own netpoints, and a route between netpoints of
 * different zones climbs to their common ancestor, takes the zone route there and recurses through
 * its gateways (`NetZoneImpl::get_global_route`, without bypass routes).
 *
 * Zones: {@link FullZone} (a table of routes), {@link GraphZone} (Floyd/Dijkstra: shortest path
 * counting links, as SimGrid does; ties go to the earlier declared route, which may differ from
 * SimGrid's choice), {@link StarZone} (SimGrid's flat cluster: each netpoint has a route to and
 * from the centre, a link appears once per route) and {@link FatTreeZone} (routes of
 * {@link FatTreeLayout}; its router has empty routes, as in SimGrid).
 */
import type { FatTreeLayout } from './fat-tree.js';
import { configError } from './platform.js';

export interface NetPoint {
  readonly name: string;
  readonly kind: 'host' | 'router' | 'zone';
  /** The zone the netpoint is in (undefined only for the root zone's own netpoint). */
  readonly zone: Zone | undefined;
  /** Host index, for hosts. */
  readonly host?: number;
  /** The zone it stands for, for zone netpoints. */
  readonly inner?: Zone;
}

export interface ZoneRoute {
  readonly links: readonly number[];
  readonly gwSrc?: NetPoint;
  readonly gwDst?: NetPoint;
}

/** Appends the global route from `src` to `dst` to `out`. */
export type Resolve = (src: NetPoint, dst: NetPoint, out: number[]) => void;

export abstract class Zone {
  readonly id: string;
  readonly parent: Zone | undefined;
  readonly source: string;

  constructor(id: string, parent: Zone | undefined, source: string) {
    this.id = id;
    this.parent = parent;
    this.source = source;
  }

  abstract localRoute(src: NetPoint, dst: NetPoint, resolve: Resolve): ZoneRoute;

  protected noRoute(src: NetPoint, dst: NetPoint, hint: string): Error {
    return configError(`${this.source}: no route from ${JSON.stringify(src.name)} to ${JSON.stringify(dst.name)} in zone ${JSON.stringify(this.id)}`, hint);
  }
}

/** Routes listed for every pair (SimGrid `routing="Full"`). */
export class FullZone extends Zone {
  private readonly table = new Map<NetPoint, Map<NetPoint, ZoneRoute>>();

  addRoute(src: NetPoint, dst: NetPoint, route: ZoneRoute): void {
    let row = this.table.get(src);
    if (row === undefined) this.table.set(src, (row = new Map()));
    if (row.has(dst)) throw configError(`${this.source}: the route from ${JSON.stringify(src.name)} to ${JSON.stringify(dst.name)} is declared twice in zone ${JSON.stringify(this.id)}`, 'routes are symmetrical by default: declare one direction, or set symmetrical="NO" on both');
    row.set(dst, route);
  }

  localRoute(src: NetPoint, dst: NetPoint): ZoneRoute {
    const r = this.table.get(src)?.get(dst);
    if (r === undefined) throw this.noRoute(src, dst, `a Full zone needs a <route> (or <zoneRoute>) for every pair: add one from ${JSON.stringify(src.name)} to ${JSON.stringify(dst.name)}`);
    return r;
  }
}

/** Routes between neighbours; a path is the one crossing the fewest links (SimGrid Floyd/Dijkstra). */
export class GraphZone extends Zone {
  private readonly edges = new Map<NetPoint, Map<NetPoint, ZoneRoute>>();
  private readonly order = new Map<NetPoint, number>();
  private readonly paths = new Map<NetPoint, Map<NetPoint, NetPoint>>();

  addRoute(src: NetPoint, dst: NetPoint, route: ZoneRoute): void {
    for (const p of [src, dst]) if (!this.order.has(p)) this.order.set(p, this.order.size);
    let row = this.edges.get(src);
    if (row === undefined) this.edges.set(src, (row = new Map()));
    if (row.has(dst)) throw configError(`${this.source}: the route from ${JSON.stringify(src.name)} to ${JSON.stringify(dst.name)} is declared twice in zone ${JSON.stringify(this.id)}`, 'routes are symmetrical by default: declare one direction, or set symmetrical="NO" on both');
    row.set(dst, route);
  }

  localRoute(src: NetPoint, dst: NetPoint, resolve: Resolve): ZoneRoute {
    const pred = this.predecessors(src);
    const hops: ZoneRoute[] = [];
    for (let v = dst; v !== src; ) {
      const u = pred.get(v);
      if (u === undefined) throw this.noRoute(src, dst, `connect them through <route> elements between neighbours in zone ${JSON.stringify(this.id)}`);
      hops.push(this.edges.get(u)!.get(v)!);
      v = u;
    }
    hops.reverse();
    const links: number[] = [];
    let prevGw: NetPoint | undefined;
    for (const hop of hops) {
      if (prevGw !== undefined && hop.gwSrc !== undefined && prevGw !== hop.gwSrc) resolve(prevGw, hop.gwSrc, links);
      links.push(...hop.links);
      prevGw = hop.gwDst;
    }
    const first = hops[0];
    const last = hops[hops.length - 1];
    return { links, ...(first?.gwSrc && { gwSrc: first.gwSrc }), ...(last?.gwDst && { gwDst: last.gwDst }) };
  }

  /** Dijkstra from src with cost = links per hop; cached per source. */
  private predecessors(src: NetPoint): Map<NetPoint, NetPoint> {
    let pred = this.paths.get(src);
    if (pred !== undefined) return pred;
    pred = new Map();
    const cost = new Map<NetPoint, number>([[src, 0]]);
    const done = new Set<NetPoint>();
    for (;;) {
      let best: NetPoint | undefined;
      for (const [p, c] of cost) {
        if (done.has(p)) continue;
        if (best === undefined || c < cost.get(best)! || (c === cost.get(best)! && this.order.get(p)! < this.order.get(best)!)) best = p;
      }
      if (best === undefined) break;
      done.add(best);
      for (const [next, route] of this.edges.get(best) ?? []) {
        const c = cost.get(best)! + route.links.length;
        if (!cost.has(next) || c < cost.get(next)!) {
          cost.set(next, c);
          pred.set(next, best);
        }
      }
    }
    this.paths.set(src, pred);
    return pred;
  }
}

/** SimGrid's flat cluster: route(a, b) = out(a) then in(b), each link at most once. */
export class StarZone extends Zone {
  private readonly out = new Map<NetPoint, readonly number[]>();
  private readonly in = new Map<NetPoint, readonly number[]>();

  setRoutes(point: NetPoint, out: readonly number[], into: readonly number[]): void {
    this.out.set(point, out);
    this.in.set(point, into);
  }

  localRoute(src: NetPoint, dst: NetPoint): ZoneRoute {
    const a = this.out.get(src);
    const b = this.in.get(dst);
    if (a === undefined || b === undefined) throw this.noRoute(src, dst, 'give every host of a Cluster zone a <host_link>');
    const links = [...a];
    for (const l of b) if (!links.includes(l)) links.push(l);
    return { links };
  }
}

/** A SimGrid FAT_TREE cluster: hosts by position, cable c is links (base + per*c, + 1 down if split). */
export class FatTreeZone extends Zone {
  private readonly layout: FatTreeLayout;
  private readonly base: number;
  private readonly split: boolean;
  private readonly positions: ReadonlyMap<NetPoint, number>;

  constructor(id: string, parent: Zone | undefined, source: string, layout: FatTreeLayout, base: number, split: boolean, positions: ReadonlyMap<NetPoint, number>) {
    super(id, parent, source);
    this.layout = layout;
    this.base = base;
    this.split = split;
    this.positions = positions;
  }

  localRoute(src: NetPoint, dst: NetPoint): ZoneRoute {
    const a = this.positions.get(src);
    const b = this.positions.get(dst);
    if (a === undefined || b === undefined || a === b) return { links: [] };
    const per = this.split ? 2 : 1;
    return { links: this.layout.route(a, b).map((h) => this.base + per * h.cable + (this.split && !h.up ? 1 : 0)) };
  }
}

/** The common ancestor of src and dst and the first zones below it on each side (SimGrid's find_common_ancestors). */
function commonAncestors(src: NetPoint, dst: NetPoint): [Zone, Zone, Zone] {
  if (src.zone === dst.zone) return [src.zone!, src.zone!, src.zone!];
  const path = (p: NetPoint): Zone[] => {
    const out: Zone[] = [];
    for (let z = p.zone; z !== undefined; z = z.parent) out.push(z);
    return out;
  };
  const ps = path(src);
  const pd = path(dst);
  let parent: Zone | undefined;
  while (ps.length > 1 && pd.length > 1 && ps[ps.length - 1] === pd[pd.length - 1]) {
    parent = ps.pop();
    pd.pop();
  }
  const sa = ps[ps.length - 1]!;
  const da = pd[pd.length - 1]!;
  return [sa === da ? sa : parent!, sa, da];
}

/** Appends to `out` the links from `src` to `dst` across zones. `points` maps a zone to its netpoint. */
export function globalRoute(src: NetPoint, dst: NetPoint, out: number[], points: ReadonlyMap<Zone, NetPoint>): void {
  const resolve: Resolve = (a, b, o) => globalRoute(a, b, o, points);
  const [common, sa, da] = commonAncestors(src, dst);
  if (sa === da) {
    out.push(...common.localRoute(src, dst, resolve).links);
    return;
  }
  const r = common.localRoute(points.get(sa)!, points.get(da)!, resolve);
  if (r.gwSrc === undefined || r.gwDst === undefined) {
    throw configError(`${common.source}: the route from zone ${JSON.stringify(sa.id)} to zone ${JSON.stringify(da.id)} has no gateways`, 'declare it with <zoneRoute src dst gw_src gw_dst>');
  }
  if (src !== r.gwSrc) globalRoute(src, r.gwSrc, out, points);
  out.push(...r.links);
  if (r.gwDst !== dst) globalRoute(r.gwDst, dst, out, points);
}

/** True when netpoint `p` is inside zone `z` (directly or below). */
export function isInside(p: NetPoint, z: Zone): boolean {
  for (let y = p.zone; y !== undefined; y = y.parent) if (y === z) return true;
  return false;
}
