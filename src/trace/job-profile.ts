/**
 * The job's profile (`--profile`), from every rank's: mpiP's summary for a tsmpi run. Per call
 * name its count, time, bytes and share of the ranks' time (with the figures of each rank); the
 * program's call sites by time; the communication matrix (bytes and messages from each rank to
 * each); and per collective how long its first rank waited for its last (the spread of the ranks'
 * arrival times at the same call), in total and at worst.
 */
import type { RankProfileData } from './rank-profile.js';

export interface JobProfile {
  ranks: number;
  /** Ranks that sent no profile (their process's part was not found). */
  missing: number[];
  perRank: { rank: number; span: number; inCalls: number }[];
  calls: { name: string; count: number; seconds: number; bytes: number; share: number; perRank: { rank: number; count: number; seconds: number; bytes: number }[] }[];
  sites: { site: string; name: string; count: number; seconds: number; ranks: number[] }[];
  matrix: { bytes: number[][]; messages: number[][] };
  imbalance: { communicator: string; name: string; calls: number; totalWaitSeconds: number; maxWaitSeconds: number; worstCall: number }[];
}

export function jobProfile(size: number, profiles: readonly (RankProfileData | undefined)[]): JobProfile {
  const present = profiles.filter((p): p is RankProfileData => p !== undefined);
  const missing = Array.from({ length: size }, (_, r) => r).filter((r) => profiles[r] === undefined);
  const totalSpan = present.reduce((s, p) => s + p.span, 0);
  const calls = new Map<string, JobProfile['calls'][number]>();
  for (const p of present) {
    for (const c of p.calls) {
      const entry = calls.get(c.name) ?? { name: c.name, count: 0, seconds: 0, bytes: 0, share: 0, perRank: [] };
      entry.count += c.count;
      entry.seconds += c.seconds;
      entry.bytes += c.bytes;
      entry.perRank.push({ rank: p.rank, count: c.count, seconds: c.seconds, bytes: c.bytes });
      calls.set(c.name, entry);
    }
  }
  for (const c of calls.values()) {
    c.share = totalSpan > 0 ? c.seconds / totalSpan : 0;
    c.perRank.sort((a, b) => a.rank - b.rank);
  }
  const sites = new Map<string, JobProfile['sites'][number]>();
  for (const p of present) {
    for (const s of p.sites) {
      const key = `${s.site}\u0000${s.name}`;
      const entry = sites.get(key) ?? { site: s.site, name: s.name, count: 0, seconds: 0, ranks: [] };
      entry.count += s.count;
      entry.seconds += s.seconds;
      entry.ranks.push(p.rank);
      sites.set(key, entry);
    }
  }
  const bytes = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  const messages = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  for (const p of present) {
    for (const row of p.sentTo) {
      if (row.peer < 0 || row.peer >= size) continue;
      bytes[p.rank]![row.peer] = row.bytes;
      messages[p.rank]![row.peer] = row.messages;
    }
  }
  // The same collective on every rank: same communicator, name and index.
  const arrivals = new Map<string, { communicator: string; name: string; index: number; begins: number[] }>();
  for (const p of present) {
    for (const c of p.collectives) {
      const key = `${c.communicator}\u0000${c.name}\u0000${c.index}`;
      const entry = arrivals.get(key) ?? { communicator: c.communicator, name: c.name, index: c.index, begins: [] };
      entry.begins.push(c.begin + p.epoch);
      arrivals.set(key, entry);
    }
  }
  const imbalance = new Map<string, JobProfile['imbalance'][number]>();
  for (const a of arrivals.values()) {
    if (a.begins.length < 2) continue;
    const wait = Math.max(...a.begins) - Math.min(...a.begins);
    const key = `${a.communicator}\u0000${a.name}`;
    const entry = imbalance.get(key) ?? { communicator: a.communicator, name: a.name, calls: 0, totalWaitSeconds: 0, maxWaitSeconds: 0, worstCall: 0 };
    entry.calls++;
    entry.totalWaitSeconds += wait;
    if (wait > entry.maxWaitSeconds) {
      entry.maxWaitSeconds = wait;
      entry.worstCall = a.index;
    }
    imbalance.set(key, entry);
  }
  return {
    ranks: size,
    missing,
    perRank: present.map((p) => ({ rank: p.rank, span: p.span, inCalls: p.inCalls })).sort((a, b) => a.rank - b.rank),
    calls: [...calls.values()].sort((a, b) => b.seconds - a.seconds),
    sites: [...sites.values()].sort((a, b) => b.seconds - a.seconds),
    matrix: { bytes, messages },
    imbalance: [...imbalance.values()].sort((a, b) => b.totalWaitSeconds - a.totalWaitSeconds),
  };
}

function ms(seconds: number): string {
  const v = seconds * 1e3;
  return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(4);
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

/** The profile as text, mpiP's sections in order. */
export function formatProfile(p: JobProfile, topSites = 10): string[] {
  const lines: string[] = [];
  const spans = p.perRank.map((r) => r.span);
  const meanSpan = spans.reduce((a, b) => a + b, 0) / Math.max(1, spans.length);
  const inCalls = p.perRank.reduce((a, r) => a + r.inCalls, 0) / Math.max(1e-12, spans.reduce((a, b) => a + b, 0));
  lines.push(`tsmpi profile: ${p.ranks} ranks, ${ms(meanSpan)} ms per rank from its first call to its last, ${(inCalls * 100).toFixed(1)}% of it inside tsmpi calls`);
  if (p.missing.length > 0) lines.push(`  (no profile from rank(s) ${p.missing.join(', ')})`);
  lines.push('Time in calls, all ranks (share: of the ranks\' time):');
  lines.push(`  ${pad('call', 18)} ${pad('count', 9, true)} ${pad('time ms', 12, true)} ${pad('share', 7, true)} ${pad('bytes', 14, true)}  slowest rank`);
  for (const c of p.calls) {
    const slowest = c.perRank.reduce((a, b) => (b.seconds > a.seconds ? b : a));
    lines.push(`  ${pad(c.name, 18)} ${pad(String(c.count), 9, true)} ${pad(ms(c.seconds), 12, true)} ${pad(`${(c.share * 100).toFixed(1)}%`, 7, true)} ${pad(String(c.bytes), 14, true)}  rank ${slowest.rank} (${ms(slowest.seconds)} ms)`);
  }
  if (p.sites.length > 0) {
    lines.push(`Top call sites by time:`);
    for (const s of p.sites.slice(0, topSites)) lines.push(`  ${pad(s.site, 40)} ${pad(s.name, 14)} ${pad(String(s.count), 8, true)} calls ${pad(ms(s.seconds), 12, true)} ms  on ${s.ranks.length} rank(s)`);
  }
  if (p.imbalance.length > 0) {
    lines.push('Collective imbalance (how long the first rank waited for the last to arrive):');
    for (const c of p.imbalance) lines.push(`  ${pad(`${c.name} on ${c.communicator}`, 32)} ${pad(String(c.calls), 7, true)} calls  total ${ms(c.totalWaitSeconds)} ms, worst ${ms(c.maxWaitSeconds)} ms (call ${c.worstCall + 1})`);
  }
  if (p.ranks <= 16) {
    lines.push('Communication matrix, bytes sent (row: sender, column: receiver):');
    lines.push(`  ${pad('', 6)}${p.matrix.bytes.map((_, r) => pad(String(r), 10, true)).join('')}`);
    p.matrix.bytes.forEach((row, r) => lines.push(`  ${pad(String(r), 6)}${row.map((b) => pad(String(b), 10, true)).join('')}`));
  } else {
    lines.push(`Communication matrix: ${p.ranks} x ${p.ranks}, in the JSON profile (--profile-json FILE)`);
  }
  return lines;
}
