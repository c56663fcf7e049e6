/**
 * The planners of `comm.exchange` (TSMPI_BATCH_PLANNER or the call's `planner` option):
 *
 * - `direct`: the control group, one transfer per message in batch order.
 * - `reorder`: the paper's ordering alone: destinations sorted by node-pair distance |A - B|
 *   (shorter first), ties by process-pair weight max(bytes this rank sends, bytes the target
 *   receives) (larger first); one transfer per message. Messages to one destination keep their
 *   order (the sort is stable).
 * - `aggregate`: per destination, consecutive messages packed into transfers of about
 *   `bufferBytes` (a fixed buffer per peer, as Charm++ TRAM and Bale conveyors do).
 * - `pipelined`: the paper: the reorder above, then per destination windows that grow by
 *   alpha_ij = 1.5 + log2(max(out-degree of i, in-degree of j)): 1 message, then alpha, alpha^2,
 *   ... messages per packed transfer. The runtime packs window k+1 while window k travels and the
 *   receiver unpacks each as it lands. Deviation, stated: the paper aggregates per node pair
 *   (the processes of two nodes through one channel); here per process pair, ordered by node
 *   pair, with the degrees of the process graph.
 * - `adaptive` (ours): per destination, windows of the size that minimises a pipelined
 *   transfer's time for the measured per-message cost o and bandwidth B:
 *   W = sqrt(M * o * B) bytes for M bytes to that destination (M / W messages cost o each, the
 *   last window's W / B is not overlapped), at least one message and at most M.
 * Messages of `directBytes` or more always go alone (no copy into a pack).
 */
import type { BatchMessage, PlanInput, PlannerName, PlannerOptions, Transfer } from './types.js';

const DEFAULT_BUFFER = 64 * 1024;
const DEFAULT_DIRECT = 256 * 1024;
/** Pack format overhead per item (pack.ts): tag, kind, length. */
export const PACK_ITEM_OVERHEAD = 9;

/** Destinations with their messages in batch order, in first-use order. */
function byDestination(messages: readonly BatchMessage[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (let i = 0; i < messages.length; i++) {
    const d = messages[i]!.dest;
    const list = out.get(d);
    if (list) list.push(i);
    else out.set(d, [i]);
  }
  return out;
}

/** The paper's order of destinations: node distance ascending, then pair weight descending, then rank. */
export function reorderDestinations(input: PlanInput, groups: Map<number, number[]>): number[] {
  const myNode = input.nodeOf[input.rank] ?? 0;
  const sent = new Map<number, number>();
  let outBytes = 0;
  for (const [dest, items] of groups) {
    const b = items.reduce((n, i) => n + input.messages[i]!.bytes, 0);
    sent.set(dest, b);
    outBytes += b;
  }
  const weight = (dest: number): number => Math.max(outBytes, input.inBytes?.[dest] ?? sent.get(dest)!);
  const distance = (dest: number): number => Math.abs((input.nodeOf[dest] ?? 0) - myNode);
  return [...groups.keys()].sort((a, b) => distance(a) - distance(b) || weight(b) - weight(a) || a - b);
}

function alone(dest: number, index: number): Transfer {
  return { dest, items: [index], packed: false };
}

/** Cuts one destination's messages into transfers: windows of `limit(k)` (messages or bytes), big ones alone. */
function windows(input: PlanInput, dest: number, items: readonly number[], directBytes: number, fits: (k: number, count: number, bytes: number) => boolean): Transfer[] {
  const out: Transfer[] = [];
  let current: number[] = [];
  let bytes = 0;
  const close = (): void => {
    if (current.length === 0) return;
    out.push({ dest, items: current, packed: true });
    current = [];
    bytes = 0;
  };
  for (const i of items) {
    const size = input.messages[i]!.bytes;
    if (size >= directBytes) {
      close();
      out.push(alone(dest, i));
      continue;
    }
    if (current.length > 0 && !fits(out.length, current.length + 1, bytes + size + PACK_ITEM_OVERHEAD)) close();
    current.push(i);
    bytes += size + PACK_ITEM_OVERHEAD;
  }
  close();
  return out;
}

export function planBatch(name: PlannerName, input: PlanInput, options: PlannerOptions = {}): Transfer[] {
  const buffer = options.bufferBytes ?? DEFAULT_BUFFER;
  const directBytes = options.directBytes ?? DEFAULT_DIRECT;
  const groups = byDestination(input.messages);
  switch (name) {
    case 'direct':
      return input.messages.map((m, i) => alone(m.dest, i));
    case 'reorder':
      return reorderDestinations(input, groups).flatMap((d) => groups.get(d)!.map((i) => alone(d, i)));
    case 'aggregate':
      return [...groups].flatMap(([d, items]) => windows(input, d, items, directBytes, (_k, count, bytes) => count === 1 || bytes <= buffer));
    case 'pipelined': {
      const outDegree = groups.size;
      return reorderDestinations(input, groups).flatMap((d) => {
        const alpha = 1.5 + Math.log2(Math.max(1, outDegree, input.inDegree?.[d] ?? 1));
        return windows(input, d, groups.get(d)!, directBytes, (k, count) => count <= Math.max(1, Math.floor(alpha ** k)));
      });
    }
    case 'adaptive': {
      const perMessage = input.costs?.perMessage ?? 20e-6;
      const bandwidth = input.costs?.bandwidth ?? 1e9;
      return reorderDestinations(input, groups).flatMap((d) => {
        const items = groups.get(d)!;
        const total = items.reduce((n, i) => n + input.messages[i]!.bytes + PACK_ITEM_OVERHEAD, 0);
        const window = Math.max(1, Math.min(total, Math.sqrt(total * perMessage * bandwidth)));
        return windows(input, d, items, directBytes, (_k, count, bytes) => count === 1 || bytes <= window);
      });
    }
  }
}
