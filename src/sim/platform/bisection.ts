/**
 * Bisection bandwidth of a platform whose links know their ends (`from`/`to`): the maximum flow,
 * in bytes/s, from the first half of the hosts (by index) to the second half over the links of
 * one rail, every link a capacity in its direction (both directions for a bidirectional link,
 * unbounded for a fatpipe). For the trees built here the index halves are the natural cut (whole
 * subtrees on each side), so this is the usual bisection bandwidth: n/2 × host bandwidth for a
 * full-bisection tree, divided by r under r:1 oversubscription. With an odd host count the middle
 * host is on neither side.
 *
 * Max flow by Dinic's algorithm (BFS levels, DFS blocking flows), O(V² E) worst case; platforms of
 * a few thousand links take milliseconds.
 */
import { configError, type Platform } from './platform.js';

interface Arc {
  to: number;
  cap: number;
  rev: number;
}

export function bisectionBandwidth(platform: Platform, rail = 0): number {
  const nodes = new Map<string, number>();
  const id = (name: string): number => {
    let v = nodes.get(name);
    if (v === undefined) {
      v = nodes.size;
      nodes.set(name, v);
    }
    return v;
  };
  const arcs: Arc[][] = [];
  const addArc = (a: number, b: number, cap: number): void => {
    while (arcs.length <= Math.max(a, b)) arcs.push([]);
    arcs[a]!.push({ to: b, cap, rev: arcs[b]!.length });
    arcs[b]!.push({ to: a, cap: 0, rev: arcs[a]!.length - 1 });
  };
  const source = id('\0source');
  const sink = id('\0sink');
  const n = platform.hostCount;
  for (let h = 0; h < n; h++) {
    const v = id(platform.host(h).name);
    if (h < Math.floor(n / 2)) addArc(source, v, Infinity);
    else if (h >= n - Math.floor(n / 2)) addArc(v, sink, Infinity);
  }
  let seen = 0;
  for (let l = 0; l < platform.linkCount; l++) {
    const link = platform.link(l);
    if ((link.rail ?? 0) !== rail) continue;
    if (link.from === undefined || link.to === undefined) {
      throw configError(`${platform.source}: link ${JSON.stringify(link.name)} has no ends, so the bisection cannot be computed`, 'bisectionBandwidth needs a platform from a builder or a SimGrid fat-tree/cluster');
    }
    const cap = link.sharing === 'fatpipe' ? Infinity : link.bandwidth;
    addArc(id(link.from), id(link.to), cap);
    if (link.bidirectional === true) addArc(id(link.to), id(link.from), cap);
    seen++;
  }
  if (seen === 0) throw configError(`${platform.source}: rail ${rail} has no links`, 'ask for a rail of the platform');
  return maxFlow(arcs, source, sink);
}

function maxFlow(g: Arc[][], s: number, t: number): number {
  let total = 0;
  const level = new Int32Array(g.length);
  const next = new Int32Array(g.length);
  const bfs = (): boolean => {
    level.fill(-1);
    level[s] = 0;
    const queue = [s];
    for (let qi = 0; qi < queue.length; qi++) {
      const v = queue[qi]!;
      for (const a of g[v]!) {
        if (a.cap > 0 && level[a.to] === -1) {
          level[a.to] = level[v]! + 1;
          queue.push(a.to);
        }
      }
    }
    return level[t] !== -1;
  };
  const dfs = (v: number, pushed: number): number => {
    if (v === t) return pushed;
    for (; next[v]! < g[v]!.length; next[v]!++) {
      const a = g[v]![next[v]!]!;
      if (a.cap <= 0 || level[a.to] !== level[v]! + 1) continue;
      const got = dfs(a.to, Math.min(pushed, a.cap));
      if (got > 0) {
        a.cap -= got;
        g[a.to]![a.rev]!.cap += got;
        return got;
      }
    }
    return 0;
  };
  while (bfs()) {
    next.fill(0);
    for (let f = dfs(s, Infinity); f > 0; f = dfs(s, Infinity)) {
      if (f === Infinity) throw configError('the bisection is unbounded (fatpipe links all the way)', 'give the links between the halves a finite bandwidth');
      total += f;
    }
  }
  return total;
}
