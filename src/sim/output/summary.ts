/**
 * The summary of a simulation: makespan, per-rank compute and blocked time, message counts,
 * per-link and per-rail utilisation, and how fast the simulator ran.
 */
import type { SimRunResult } from '../program-runner.js';

export interface SimSummary {
  makespan: number;
  ranks: number;
  events: number;
  wallSeconds: number;
  eventsPerSecond: number;
  compute: { min: number; mean: number; max: number };
  blocked: { min: number; mean: number; max: number };
  /** Per-message CPU overhead (--message-overhead); compute + blocked + overhead = end, per rank. */
  overhead: { min: number; mean: number; max: number };
  messages: number;
  bytes: number;
  perRank: { rank: number; compute: number; blocked: number; overhead: number; end: number; messages: number; bytes: number }[];
  links?: { name: string; bytes: number; busy: number; utilisation: number }[];
  /**
   * Per rail: bytes sent on it (frames, headers included; a byte counts once, however many links
   * it crosses), the links it used, and their mean and highest utilisation.
   */
  rails?: { rail: number; bytes: number; linksUsed: number; meanUtilisation: number; maxUtilisation: number }[];
}

type LinkSummary = NonNullable<SimSummary['links']>[number] & { rail?: number };

function railSummary(links: readonly LinkSummary[], railBytes: readonly number[]): NonNullable<SimSummary['rails']> {
  const byRail = new Map<number, LinkSummary[]>();
  for (const l of links) {
    const rail = l.rail ?? 0;
    const list = byRail.get(rail);
    if (list) list.push(l);
    else byRail.set(rail, [l]);
  }
  return [...byRail.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([rail, list]) => ({
      rail,
      bytes: railBytes[rail] ?? 0,
      linksUsed: list.length,
      meanUtilisation: list.reduce((n, l) => n + l.utilisation, 0) / list.length,
      maxUtilisation: Math.max(...list.map((l) => l.utilisation)),
    }));
}

function stats(values: number[]): { min: number; mean: number; max: number } {
  if (values.length === 0) return { min: 0, mean: 0, max: 0 };
  return { min: Math.min(...values), mean: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) };
}

export function summarize(result: SimRunResult): SimSummary {
  const perRank = result.ranks.map((r, rank) => ({ rank, compute: r.compute, blocked: r.blocked, overhead: r.overhead, end: r.end, messages: r.messagesSent, bytes: r.bytesSent }));
  const links: LinkSummary[] | undefined = result.network.linkReport?.().map((l) => ({
    name: l.name,
    bytes: l.bytes,
    busy: l.busy,
    utilisation: result.makespan > 0 ? l.bytes / l.bandwidth / result.makespan : 0,
    ...(l.rail !== undefined ? { rail: l.rail } : {}),
  }));
  return {
    makespan: result.makespan,
    ranks: perRank.length,
    events: result.events,
    wallSeconds: result.wallSeconds,
    eventsPerSecond: result.events / Math.max(result.wallSeconds, 1e-9),
    compute: stats(perRank.map((r) => r.compute)),
    blocked: stats(perRank.map((r) => r.blocked)),
    overhead: stats(perRank.map((r) => r.overhead)),
    messages: perRank.reduce((n, r) => n + r.messages, 0),
    bytes: perRank.reduce((n, r) => n + r.bytes, 0),
    perRank,
    ...(links ? { links, rails: railSummary(links, result.world.railBytes) } : {}),
  };
}

/** A duration for people: us, ms or s with the digits that matter. */
export function formatSeconds(s: number): string {
  if (s === 0) return '0 s';
  if (s < 1e-3) return `${(s * 1e6).toFixed(2)} us`;
  if (s < 1) return `${(s * 1e3).toFixed(3)} ms`;
  return `${s.toFixed(4)} s`;
}

export function printSummary(summary: SimSummary, out: (line: string) => void = (l) => void process.stdout.write(`${l}\n`)): void {
  out(`makespan ${formatSeconds(summary.makespan)} (${summary.makespan} s) on ${summary.ranks} rank${summary.ranks === 1 ? '' : 's'}`);
  out(`compute per rank: min ${formatSeconds(summary.compute.min)}, mean ${formatSeconds(summary.compute.mean)}, max ${formatSeconds(summary.compute.max)}`);
  out(`blocked per rank: min ${formatSeconds(summary.blocked.min)}, mean ${formatSeconds(summary.blocked.mean)}, max ${formatSeconds(summary.blocked.max)}`);
  if (summary.overhead.max > 0) out(`message overhead per rank: min ${formatSeconds(summary.overhead.min)}, mean ${formatSeconds(summary.overhead.mean)}, max ${formatSeconds(summary.overhead.max)}`);
  out(`messages ${summary.messages} (frames, protocol included), ${summary.bytes} payload bytes`);
  if (summary.links && summary.links.length > 0) {
    const busiest = [...summary.links].sort((a, b) => b.utilisation - a.utilisation).slice(0, 5);
    out(`busiest links: ${busiest.map((l) => `${l.name} ${(l.utilisation * 100).toFixed(1)}%`).join(', ')}`);
  }
  if (summary.rails && summary.rails.length > 1) {
    for (const r of summary.rails) out(`rail ${r.rail}: ${r.bytes} bytes sent, ${r.linksUsed} links, utilisation mean ${(r.meanUtilisation * 100).toFixed(1)}%, max ${(r.maxUtilisation * 100).toFixed(1)}%`);
  }
  out(`simulated ${summary.events} events in ${summary.wallSeconds.toFixed(2)} s (${Math.round(summary.eventsPerSecond)} events/s)`);
}
