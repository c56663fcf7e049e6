/**
 * The arithmetic of a SimGrid FAT_TREE: the shape `levels;down;up;count` (as in a cluster's
 * `topo_parameters`, e.g. `2;4,4;1,2;1,2`), the node labels, the cables and D-mod-k routing.
 * Shared by the `fatTree` builder and by SimGrid XML clusters, so a SimGrid file and the builder
 * give the same routes.
 *
 * Shape, for levels 0 (hosts) .. L (top switches), 0 <= l < L:
 * - `down[l]`: children of a level-(l+1) switch; `up[l]`: parents of a level-l node;
 *   `count[l]`: parallel cables between a level-l node and each of its parents.
 * - Level l holds prod(up[0..l-1]) * prod(down[l..L-1]) nodes (level 0: prod(down) hosts).
 * - Node (l, p) has the label p written in mixed radix, digit 0 first, with radix up[j] for j < l
 *   and down[j] for j >= l. A level-l node and a level-(l+1) node are connected when their labels
 *   differ at most in digit l; switch (l, s) is above host h when their digits j >= l agree.
 *
 * Routing (SimGrid `FatTreeZone::get_local_route`): going up from (l, p) toward host d, take the
 * parent port t = floor(d / prod_{i<l}(up[i]*count[i])) mod (up[l]*count[l]) (D-mod-k), i.e.
 * parent digit t mod up[l] over cable floor(t / up[l]), until the switch is above d; going down,
 * take cable (src mod count) toward d's digit. The down loop below reproduces SimGrid's loop
 * literally (it can keep walking after a step), so parallel-cable choices match SimGrid.
 *
 * Cables are numbered level by level: cable(l, p, t) = offset[l] + p * up[l] * count[l] + t,
 * where t = parentDigit + j * up[l] is the child's port to its j-th cable to that parent.
 */
import { configError } from './platform.js';

export interface FatTreeShape {
  readonly levels: number;
  readonly down: readonly number[];
  readonly up: readonly number[];
  readonly count: readonly number[];
}

/** Parses SimGrid's `topo_parameters` for FAT_TREE: `levels;down,..;up,..;count,..`. */
export function parseFatTreeParameters(text: string, field: string): FatTreeShape {
  const hint = 'write it as SimGrid does: "levels;down counts;up counts;link counts", e.g. "2;4,4;1,2;1,2"';
  const parts = text.split(';').map((s) => s.trim());
  if (parts.length !== 4) throw configError(`${field} ${JSON.stringify(text)} must have 4 parts separated by ';'`, hint);
  const num = (s: string): number => (/^\d+$/.test(s) ? Number(s) : NaN);
  const levels = num(parts[0]!);
  const vec = (s: string): number[] => s.split(',').map((x) => num(x.trim()));
  const shape = { levels, down: vec(parts[1]!), up: vec(parts[2]!), count: vec(parts[3]!) };
  return checkFatTreeShape(shape, field);
}

/** Throws unless the shape is well formed (levels >= 1, three vectors of `levels` positive integers). */
export function checkFatTreeShape(shape: FatTreeShape, field: string): FatTreeShape {
  const hint = 'a fat tree needs levels >= 1 and down/up/count vectors of that many positive integers, e.g. "2;4,4;1,2;1,2"';
  if (!Number.isInteger(shape.levels) || shape.levels < 1 || shape.levels > 16) {
    throw configError(`${field}: levels must be an integer in 1..16; got ${shape.levels}`, hint);
  }
  for (const name of ['down', 'up', 'count'] as const) {
    const v = shape[name];
    if (!Array.isArray(v) || v.length !== shape.levels || !v.every((x) => Number.isInteger(x) && x >= 1)) {
      throw configError(`${field}: ${name} must hold ${shape.levels} positive integers; got ${JSON.stringify(v)}`, hint);
    }
  }
  return shape;
}

/**
 * The shape of a fat tree of k-port switches with `levels` switch levels: every switch but the
 * top ones has k/2 ports down and k/2 up, the top ones k down; (k/2)^(levels-1) * k hosts.
 * `kAryFatTreeShape(4, 3)` is the classic k = 4 tree (16 hosts, 8 edge, 8 aggregation, 4 core):
 * SimGrid `3;2,2,4;1,2,2;1,1,1`.
 */
export function kAryFatTreeShape(k: number, levels = 3, field = 'fat tree'): FatTreeShape {
  if (!Number.isInteger(k) || k < 2 || k % 2 !== 0) throw configError(`${field}: k must be an even integer >= 2; got ${k}`, 'k is the number of ports per switch, e.g. 4, 8, 16');
  if (!Number.isInteger(levels) || levels < 1 || levels > 8) throw configError(`${field}: levels must be an integer in 1..8; got ${levels}`, 'use 2 (leaf/spine) or 3 (edge/aggregation/core)');
  const half = k / 2;
  const down = Array.from({ length: levels }, (_, l) => (l === levels - 1 ? k : half));
  const up = Array.from({ length: levels }, (_, l) => (l === 0 ? 1 : half));
  return { levels, down, up, count: new Array<number>(levels).fill(1) };
}

/** One hop of a route: the cable and the direction it is crossed in. */
export interface FatTreeHop {
  readonly cable: number;
  readonly up: boolean;
}

/** The nodes, cables and routes of one fat tree. */
export class FatTreeLayout {
  readonly shape: FatTreeShape;
  /** Nodes per level, 0 (hosts) .. levels. */
  readonly nodes: readonly number[];
  /** First cable of each level 0 .. levels-1 (cables between level l and l+1). */
  readonly cableOffset: readonly number[];
  readonly cableCount: number;

  constructor(shape: FatTreeShape) {
    this.shape = shape;
    const { levels, down, up, count } = shape;
    const nodes: number[] = [];
    for (let l = 0; l <= levels; l++) {
      let n = 1;
      for (let j = 0; j < levels; j++) n *= j < l ? up[j]! : down[j]!;
      nodes.push(n);
    }
    this.nodes = nodes;
    const offset: number[] = [];
    let c = 0;
    for (let l = 0; l < levels; l++) {
      offset.push(c);
      c += nodes[l]! * up[l]! * count[l]!;
    }
    this.cableOffset = offset;
    this.cableCount = c;
  }

  get hostCount(): number {
    return this.nodes[0]!;
  }

  /** The label digits of node (level, pos). */
  label(level: number, pos: number): number[] {
    const { levels, down, up } = this.shape;
    const out = new Array<number>(levels);
    for (let j = 0; j < levels; j++) {
      const r = j < level ? up[j]! : down[j]!;
      out[j] = pos % r;
      pos = Math.floor(pos / r);
    }
    return out;
  }

  /** The position of the level-`level` node with these label digits. */
  position(level: number, label: readonly number[]): number {
    const { levels, down, up } = this.shape;
    let pos = 0;
    let mult = 1;
    for (let j = 0; j < levels; j++) {
      pos += label[j]! * mult;
      mult *= j < level ? up[j]! : down[j]!;
    }
    return pos;
  }

  /** The cable between child (level, pos) and its parent through the child's port t. */
  cable(level: number, pos: number, port: number): number {
    const { up, count } = this.shape;
    return this.cableOffset[level]! + pos * up[level]! * count[level]! + port;
  }

  /** The ends of a cable: child (level, pos), parent position at level+1, parallel index j. */
  cableEnds(cable: number): { level: number; child: number; parent: number; j: number } {
    const { levels, up, count } = this.shape;
    let level = levels - 1;
    while (cable < this.cableOffset[level]!) level--;
    const ports = up[level]! * count[level]!;
    const rel = cable - this.cableOffset[level]!;
    const child = Math.floor(rel / ports);
    const port = rel % ports;
    const label = this.label(level, child);
    label[level] = port % up[level]!;
    return { level, child, parent: this.position(level + 1, label), j: Math.floor(port / up[level]!) };
  }

  /** The hops from host src to host dst (src != dst). */
  route(src: number, dst: number): FatTreeHop[] {
    const { levels, down, up, count } = this.shape;
    const hops: FatTreeHop[] = [];
    const dstLabel = this.label(0, dst);
    let level = 0;
    let pos = src;
    let label = this.label(0, src);
    const above = (): boolean => {
      if (level === 0) return false;
      for (let j = level; j < levels; j++) if (label[j] !== dstLabel[j]) return false;
      return true;
    };
    while (!above()) {
      let d = dst;
      for (let i = 0; i < level; i++) d = Math.floor(d / (up[i]! * count[i]!));
      const port = d % (up[level]! * count[level]!);
      hops.push({ cable: this.cable(level, pos, port), up: true });
      label[level] = port % up[level]!;
      level++;
      pos = this.position(level, label);
    }
    while (level > 0) {
      let i = (src % count[level - 1]!) * down[level - 1]!;
      for (; level > 0 && i < down[level - 1]! * count[level - 1]!; i++) {
        const l1 = level - 1;
        if (i % down[l1]! !== dstLabel[l1]) continue;
        const j = Math.floor(i / down[l1]!);
        const port = label[l1]! + j * up[l1]!;
        label[l1] = dstLabel[l1]!;
        level = l1;
        pos = this.position(level, label);
        hops.push({ cable: this.cable(level, pos, port), up: false });
      }
    }
    return hops;
  }
}
