/**
 * The JSON form of a platform: a topology, homogeneous hosts, one entry per rail and optional
 * background load. Every field is checked; errors name the file and the field, and say what is
 * allowed. Numbers are SI (flop/s, bytes/s, seconds); strings take SimGrid units ("1Gf",
 * "10Gbps", "2us").
 *
 * ```json
 * {
 *   "topology": "crossbar",                      // or "fat-tree"
 *   "hosts": { "count": 16, "speed": 1e9, "cores": 1, "prefix": "node-", "suffix": "" },
 *   "rails": [ { "bandwidth": 1.25e9, "latency": 1e-6 },
 *              { "bandwidth": "2.5Gbps", "latency": "2us" } ],
 *   "load": { "node-3": [[0, 1], [10, 0.5]], "5": [[0, 0.25]] }
 * }
 * ```
 * - `hosts.count` is required for a crossbar; for a fat tree it is optional (and must match).
 *   `speed` is per core; `cores` defaults to 1, `prefix` to "node-".
 * - `rails[i]`: `bandwidth` of the host links, `latency` per link crossed, and for a fat tree
 *   `linkBandwidth` of the switch-to-switch links (default: `bandwidth`). Each rail is a separate
 *   copy of the topology.
 * - fat tree: `"fatTree": "2;4,4;1,2;1,2"` (SimGrid FAT_TREE topo_parameters), or
 *   `{ "levels": 2, "down": [4,4], "up": [1,2], "count": [1,2] }`, or `{ "k": 4, "levels": 3 }`
 *   (k-port switches); `"oversubscription": 2` makes the leaf uplinks carry linkBandwidth / 2.
 * - `load`: by host name or index, a list of [time s, factor 0..1] steps (factor = share of the
 *   host's speed left to us from that time on).
 * - `name` and `description` are free text.
 */
import { checkFatTreeShape, kAryFatTreeShape, parseFatTreeParameters, type FatTreeShape } from './fat-tree.js';
import { checkInteger, checkLoadProfile, checkPositive, configError, type LoadProfile, type Platform } from './platform.js';
import { crossbar, fatTree, type RailSpec } from './topologies.js';
import { parseBandwidth, parseSpeed, parseTime } from './units.js';

type Obj = Readonly<Record<string, unknown>>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Fields {
  constructor(readonly source: string) {}

  object(v: unknown, field: string, allowed: readonly string[]): Obj {
    if (!isObj(v)) throw configError(`${this.source}: ${field} must be an object; got ${describe(v)}`, `write ${field} as { ${allowed.map((k) => `"${k}": ...`).join(', ')} }`);
    for (const k of Object.keys(v)) {
      if (!allowed.includes(k)) throw configError(`${this.source}: unknown field ${field === '(top level)' ? k : `${field}.${k}`}`, `allowed fields here: ${allowed.join(', ')}`);
    }
    return v;
  }

  /** A positive number, or a string with a SimGrid unit parsed by `parse`. */
  quantity(v: unknown, field: string, unit: string, parse: (s: string, f: string) => number, allowZero = false): number {
    const f = `${this.source}: ${field}`;
    if (typeof v === 'string') return checkPositive(parse(v, f), f, unit, allowZero);
    if (typeof v !== 'number') throw configError(`${f} must be a number of ${unit} or a string with a SimGrid unit; got ${describe(v)}`, `e.g. ${unit === 'seconds' ? '1e-6 or "1us"' : unit === 'bytes/s' ? '1.25e9 or "10Gbps"' : '1e9 or "1Gf"'}`);
    return checkPositive(v, f, unit, allowZero);
  }

  integer(v: unknown, field: string, min: number): number {
    return checkInteger(v, `${this.source}: ${field}`, min);
  }

  string(v: unknown, field: string): string {
    if (typeof v !== 'string') throw configError(`${this.source}: ${field} must be a string; got ${describe(v)}`, `write ${field} as "..."`);
    return v;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** Builds a {@link Platform} from parsed JSON; `source` (a file name) prefixes every error. */
export function platformFromJson(value: unknown, source: string): Platform {
  const f = new Fields(source);
  const top = f.object(value, '(top level)', ['topology', 'hosts', 'rails', 'fatTree', 'oversubscription', 'load', 'name', 'description']);
  for (const k of ['name', 'description']) if (top[k] !== undefined) f.string(top[k], k);
  const topology = top['topology'];
  if (topology !== 'crossbar' && topology !== 'fat-tree') {
    throw configError(`${source}: topology must be "crossbar" or "fat-tree"; got ${describe(topology)}`, 'set "topology": "crossbar" or "fat-tree"');
  }
  const fat = topology === 'fat-tree';
  for (const k of ['fatTree', 'oversubscription']) {
    if (!fat && top[k] !== undefined) throw configError(`${source}: ${k} applies to "fat-tree" only`, `remove ${k}, or set "topology": "fat-tree"`);
  }
  const h = f.object(top['hosts'], 'hosts', ['count', 'speed', 'cores', 'prefix', 'suffix']);
  const count = h['count'] === undefined ? undefined : f.integer(h['count'], 'hosts.count', 1);
  if (count === undefined && !fat) throw configError(`${source}: hosts.count is required for a crossbar`, 'set "hosts": { "count": 16, "speed": 1e9 }');
  const speed = f.quantity(h['speed'], 'hosts.speed', 'flop/s', parseSpeed);
  const cores = h['cores'] === undefined ? 1 : f.integer(h['cores'], 'hosts.cores', 1);
  const prefix = h['prefix'] === undefined ? 'node-' : f.string(h['prefix'], 'hosts.prefix');
  const suffix = h['suffix'] === undefined ? '' : f.string(h['suffix'], 'hosts.suffix');

  const railList = top['rails'];
  if (!Array.isArray(railList) || railList.length === 0 || railList.length > 64) {
    throw configError(`${source}: rails must be a list of 1..64 rails; got ${describe(railList)}`, 'write "rails": [ { "bandwidth": 1.25e9, "latency": 1e-6 } ], one entry per network plane');
  }
  const rails: RailSpec[] = railList.map((r: unknown, i) => {
    const o = f.object(r, `rails[${i}]`, fat ? ['bandwidth', 'latency', 'linkBandwidth', 'profile'] : ['bandwidth', 'latency', 'profile']);
    const bandwidth = f.quantity(o['bandwidth'], `rails[${i}].bandwidth`, 'bytes/s', parseBandwidth);
    const latency = f.quantity(o['latency'], `rails[${i}].latency`, 'seconds', parseTime, true);
    const profile = o['profile'] === undefined ? undefined : steps(o['profile'], `${source}: rails[${i}].profile`, 'e.g. [[3, 0.5], [6, 1]]: half the bandwidth from t = 3 s, all of it again from 6 s');
    return {
      bandwidth,
      latency,
      ...(o['linkBandwidth'] !== undefined && { linkBandwidth: f.quantity(o['linkBandwidth'], `rails[${i}].linkBandwidth`, 'bytes/s', parseBandwidth) }),
      ...(profile !== undefined && { profile }),
    };
  });

  const shape = fat ? fatTreeShape(top['fatTree'], f) : undefined;
  const hostCount = count ?? (shape ? shape.down.reduce((a, b) => a * b, 1) : 0);
  const load = loads(top['load'], f, hostCount, prefix, suffix);
  const hostOpts = { speed, cores, prefix, suffix, source, ...(load.size > 0 && { load }) };
  const first = rails[0]!;
  if (shape === undefined) return crossbar({ ...hostOpts, hosts: hostCount, bandwidth: first.bandwidth!, latency: first.latency!, rails });
  return fatTree({
    ...hostOpts,
    shape,
    ...(count !== undefined && { hosts: count }),
    hostBandwidth: first.bandwidth!,
    latency: first.latency!,
    rails,
    ...(top['oversubscription'] !== undefined && { oversubscription: checkPositive(top['oversubscription'], `${source}: oversubscription`, 'a ratio, 2 for 2:1') }),
  });
}

function fatTreeShape(v: unknown, f: Fields): FatTreeShape {
  const field = `${f.source}: fatTree`;
  if (typeof v === 'string') return parseFatTreeParameters(v, field);
  if (isObj(v) && v['k'] !== undefined) {
    const o = f.object(v, 'fatTree', ['k', 'levels']);
    return kAryFatTreeShape(f.integer(o['k'], 'fatTree.k', 2), o['levels'] === undefined ? 3 : f.integer(o['levels'], 'fatTree.levels', 1), field);
  }
  if (isObj(v)) {
    const o = f.object(v, 'fatTree', ['levels', 'down', 'up', 'count']);
    return checkFatTreeShape({ levels: o['levels'] as number, down: o['down'] as number[], up: o['up'] as number[], count: o['count'] as number[] }, field);
  }
  throw configError(`${field} is required for a fat tree; got ${describe(v)}`, 'write "fatTree": "2;4,4;1,2;1,2" (SimGrid levels;down;up;count) or { "k": 4, "levels": 3 }');
}

function loads(v: unknown, f: Fields, hostCount: number, prefix: string, suffix: string): Map<number, LoadProfile> {
  const out = new Map<number, LoadProfile>();
  if (v === undefined) return out;
  if (!isObj(v)) throw configError(`${f.source}: load must be an object of host name or index -> [[time, factor], ...]; got ${describe(v)}`, 'e.g. "load": { "node-3": [[0, 1], [10, 0.5]] }');
  for (const key of Object.keys(v)) {
    const field = `load[${JSON.stringify(key)}]`;
    let id = /^\d+$/.test(key) ? Number(key) : NaN;
    if (Number.isNaN(id) && key.startsWith(prefix) && key.endsWith(suffix)) {
      const mid = key.slice(prefix.length, key.length - suffix.length);
      if (/^\d+$/.test(mid)) id = Number(mid);
    }
    if (!(id >= 0 && id < hostCount)) throw configError(`${f.source}: ${field} names no host`, `use a host index in 0..${hostCount - 1} or a name such as "${prefix}0${suffix}"`);
    if (out.has(id)) throw configError(`${f.source}: ${field} gives host ${id} a second load profile`, 'give each host one profile');
    out.set(id, steps(v[key], `${f.source}: ${field}`, 'e.g. [[0, 1], [10, 0.5]]: full speed, then half from t = 10 s'));
  }
  return out;
}

/** A list of [time, factor] pairs as a checked profile. */
function steps(v: unknown, field: string, example: string): LoadProfile {
  if (!Array.isArray(v) || !v.every((s) => Array.isArray(s) && s.length === 2)) throw configError(`${field} must be a list of [time, factor] pairs; got ${describe(v)}`, example);
  return checkLoadProfile(v.map(([time, factor]: unknown[]) => ({ time: time as number, factor: factor as number })), field);
}
