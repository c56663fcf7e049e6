/**
 * Where each rank of a job without a job manager runs, as mpirun maps them: `--map-by slot`
 * (the default) fills each host's slots in turn, so consecutive ranks share a host;
 * `--map-by node` deals ranks to the hosts in turn, one each, skipping full hosts. More ranks
 * than slots is an error unless oversubscribing: then the extra ranks are dealt one per host in
 * turn, never past a host's max_slots. Then the ranks of a host become processes: a run of
 * consecutive ranks on one host is one process of worker-thread ranks (at most K with
 * `--ranks-per-proc K`).
 *
 * Pure: hosts with their slots in, host index per rank out.
 */
import { ErrorCode, TsmpiError } from '../errors.js';

export interface HostSlots {
  readonly name: string;
  readonly slots: number;
  readonly maxSlots: number | undefined;
}

export type MapBy = 'slot' | 'node';

export interface ProcessPlacement {
  /** The host's index in the host list. */
  readonly host: number;
  /** Its world ranks: first .. first + count - 1. */
  readonly first: number;
  readonly count: number;
}

function describeSlots(hosts: readonly HostSlots[]): string {
  const shown = hosts.slice(0, 8).map((h) => `${h.name}: ${h.slots}`);
  return `${shown.join(', ')}${hosts.length > 8 ? `, and ${hosts.length - 8} more` : ''}`;
}

/** The host index of every rank. */
export function mapRanks(hosts: readonly HostSlots[], np: number, mapBy: MapBy, oversubscribe: boolean): number[] {
  const total = hosts.reduce((sum, h) => sum + h.slots, 0);
  if (np > total && !oversubscribe) {
    throw new TsmpiError(ErrorCode.Arg, `${np} ranks asked for, but the hosts have ${total} slot${total === 1 ? '' : 's'} (${describeSlots(hosts)})`, {
      operation: 'tsmpi run',
      hint: `ask for ${total} or fewer with -n, give the hosts more slots (slots=N in the hostfile, host:N with -H), or add --oversubscribe`,
    });
  }
  const room = hosts.reduce((sum, h) => sum + (h.maxSlots ?? Infinity), 0);
  if (np > room) {
    throw new TsmpiError(ErrorCode.Arg, `${np} ranks asked for, but the hosts' max_slots allow ${room}`, { operation: 'tsmpi run', hint: 'raise max_slots in the hostfile, or ask for fewer ranks' });
  }
  const counts = hosts.map(() => 0);
  const hostOfRank: number[] = [];
  // Dealing one rank at a time to the hosts in turn, first up to slots, then up to max_slots.
  const deal = (limit: (h: HostSlots) => number, wanted: number, place: (host: number) => void): void => {
    let next = 0;
    while (wanted > 0) {
      let placed = false;
      for (let step = 0; step < hosts.length && wanted > 0; step++) {
        const host = (next + step) % hosts.length;
        if (counts[host]! < limit(hosts[host]!)) {
          counts[host]!++;
          place(host);
          wanted--;
          placed = true;
          next = host + 1;
          break;
        }
      }
      if (!placed) return;
    }
  };
  if (mapBy === 'node') {
    deal((h) => h.slots, Math.min(np, total), (host) => hostOfRank.push(host));
    deal((h) => h.maxSlots ?? Infinity, np - hostOfRank.length, (host) => hostOfRank.push(host));
    return hostOfRank;
  }
  let left = np;
  hosts.forEach((h, i) => {
    counts[i] = Math.min(h.slots, left);
    left -= counts[i]!;
  });
  deal((h) => h.maxSlots ?? Infinity, left, () => {});
  counts.forEach((c, host) => {
    for (let k = 0; k < c; k++) hostOfRank.push(host);
  });
  return hostOfRank;
}

/** Runs of consecutive ranks on one host, cut into processes of at most `ranksPerProcess`. */
export function placeProcesses(hostOfRank: readonly number[], ranksPerProcess = Infinity): ProcessPlacement[] {
  const out: ProcessPlacement[] = [];
  for (let rank = 0; rank < hostOfRank.length; ) {
    const host = hostOfRank[rank]!;
    let count = 1;
    while (rank + count < hostOfRank.length && hostOfRank[rank + count] === host && count < ranksPerProcess) count++;
    out.push({ host, first: rank, count });
    rank += count;
  }
  return out;
}
