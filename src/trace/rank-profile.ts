/**
 * A rank's profile (`--profile`), as mpiP keeps one: per call name its count, time and bytes;
 * per call site (the program's file:line) its time; per destination the messages and bytes sent
 * (a row of the communication matrix); and each collective call's begin and end, so that the
 * job's profile can say how long the first rank of each collective waited for the last.
 * Aggregated as the rank runs: memory stays small whatever the run's length.
 */

/** Collective calls kept per rank for the imbalance figures (older ones are counted, not kept). */
const MAX_COLLECTIVES = 100_000;

const COLLECTIVES = new Set(['barrier', 'bcast', 'bcastInto', 'reduce', 'allreduce', 'scan', 'exscan', 'gather', 'gatherv', 'scatter', 'scatterv', 'allgather', 'allgatherv', 'alltoall', 'alltoallv', 'reduceScatter', 'reduceScatterBlock', 'split', 'dup', 'create', 'createGroup', 'splitType']);

export interface CallFigures {
  name: string;
  count: number;
  seconds: number;
  bytes: number;
}

export interface SiteFigures {
  site: string;
  name: string;
  count: number;
  seconds: number;
}

export interface CollectiveCall {
  communicator: string;
  name: string;
  /** Its place among this rank's calls of `name` on `communicator` (the same call on every rank). */
  index: number;
  begin: number;
  end: number;
}

/** What a rank hands over at its end (plain data: it crosses threads and files). */
export interface RankProfileData {
  rank: number;
  /** Seconds from the rank's first call to the end of its last. */
  span: number;
  /** Seconds in calls (outermost ones: time spent inside tsmpi). */
  inCalls: number;
  calls: CallFigures[];
  sites: SiteFigures[];
  sentTo: { peer: number; messages: number; bytes: number }[];
  collectives: CollectiveCall[];
  collectivesDropped: number;
  /** Seconds to add to the rank's times for epoch seconds (0 for virtual time). */
  epoch: number;
}

interface Open {
  name: string;
  communicator: string;
  site: string;
  begin: number;
  bytes: number;
  outermost: boolean;
}

export class RankProfile {
  private readonly rank: number;
  private readonly calls = new Map<string, CallFigures>();
  private readonly sites = new Map<string, SiteFigures>();
  private readonly sentTo = new Map<number, { peer: number; messages: number; bytes: number }>();
  private readonly collectives: CollectiveCall[] = [];
  private collectivesDropped = 0;
  private readonly indices = new Map<string, number>();
  private readonly open = new Map<number, Open>();
  /** The call that most recently began and is still open: where message bytes are counted. */
  private current: Open | undefined;
  private depth = 0;
  private first = Number.NaN;
  private last = Number.NaN;
  private inCalls = 0;

  constructor(rank: number) {
    this.rank = rank;
  }

  begin(id: number, name: string, communicator: string, site: string, time: number): void {
    if (Number.isNaN(this.first)) this.first = time;
    const call: Open = { name, communicator, site, begin: time, bytes: 0, outermost: this.depth === 0 };
    this.depth++;
    this.open.set(id, call);
    if (!name.startsWith('round ')) this.current = call;
  }

  end(id: number, time: number): void {
    const call = this.open.get(id);
    if (call === undefined) return;
    this.open.delete(id);
    this.depth = Math.max(0, this.depth - 1);
    this.last = Number.isNaN(this.last) ? time : Math.max(this.last, time);
    if (this.current === call) this.current = undefined;
    if (call.name.startsWith('round ')) return;
    const seconds = time - call.begin;
    if (call.outermost) this.inCalls += seconds;
    const figures = this.calls.get(call.name) ?? { name: call.name, count: 0, seconds: 0, bytes: 0 };
    figures.count++;
    figures.seconds += seconds;
    figures.bytes += call.bytes;
    this.calls.set(call.name, figures);
    if (call.site !== '') {
      const key = `${call.site}\u0000${call.name}`;
      const site = this.sites.get(key) ?? { site: call.site, name: call.name, count: 0, seconds: 0 };
      site.count++;
      site.seconds += seconds;
      this.sites.set(key, site);
    }
    if (COLLECTIVES.has(call.name)) {
      const key = `${call.communicator}\u0000${call.name}`;
      const index = this.indices.get(key) ?? 0;
      this.indices.set(key, index + 1);
      if (this.collectives.length < MAX_COLLECTIVES) this.collectives.push({ communicator: call.communicator, name: call.name, index, begin: call.begin, end: time });
      else this.collectivesDropped++;
    }
  }

  sent(dest: number, bytes: number): void {
    const row = this.sentTo.get(dest) ?? { peer: dest, messages: 0, bytes: 0 };
    row.messages++;
    row.bytes += bytes;
    this.sentTo.set(dest, row);
    if (this.current !== undefined) this.current.bytes += bytes;
  }

  matched(bytes: number): void {
    if (this.current !== undefined) this.current.bytes += bytes;
  }

  data(epoch: number): RankProfileData {
    return {
      rank: this.rank,
      span: Number.isNaN(this.first) ? 0 : this.last - this.first,
      inCalls: this.inCalls,
      calls: [...this.calls.values()],
      sites: [...this.sites.values()],
      sentTo: [...this.sentTo.values()].sort((a, b) => a.peer - b.peer),
      collectives: this.collectives,
      collectivesDropped: this.collectivesDropped,
      epoch,
    };
  }
}

/**
 * Rewrites a profile's call sites with `mapStack` (the launcher's map from the compiled program
 * to its .ts sources) and makes them relative to `cwd`.
 */
export function mapProfileSites(profile: RankProfileData, mapStack: (stack: string) => string, cwd: string, isOwn: (path: string) => boolean): RankProfileData {
  const mapped = new Map<string, string>();
  // A site is the candidate frames, innermost first: the first that maps outside tsmpi is the program's.
  const map = (site: string): string => {
    let out = mapped.get(site);
    if (out === undefined) {
      out = '';
      for (const frame of site.split('\n')) {
        const line = mapStack(`    at call (${frame})`).split('\n')[0] ?? '';
        const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):\d+\)?\s*$/.exec(line.trim());
        if (m === null || isOwn(m[1]!)) continue;
        out = `${m[1]!.replace(/^file:\/\//, '').replace(`${cwd}/`, '')}:${m[2]}`;
        break;
      }
      mapped.set(site, out);
    }
    return out;
  };
  return { ...profile, sites: profile.sites.map((s) => ({ ...s, site: s.site === '' ? '' : map(s.site) })) };
}
