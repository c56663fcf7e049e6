/**
 * Address exchange between the processes of a job: every process publishes a few key/value
 * pairs (its ranks' addresses), waits at a fence for every other process, then reads what it
 * needs. Under SLURM this is srun's PMI-2 key-value store (pmi2.ts: only the job's own tasks can
 * reach it); under `tsmpi run --procs` it is the launcher (launcher-rendezvous.ts, HMAC
 * authenticated); a single process needs none (LocalRendezvous).
 */
import type { ProcessProgress, WaitLine } from './job-watch.js';
import type { PeerGoneNotice } from './rank-context.js';
export interface Rendezvous {
  /** Publishes this process's entries and resolves once every process of the job has (a fence). */
  exchange(entries: Readonly<Record<string, string>>): Promise<void>;
  /** A value any process published (after exchange); undefined when nobody published the key. */
  get(key: string): Promise<string | undefined>;
  /**
   * Asks the job manager to end every process of the job (a rank failed with `code`;
   * `consequence`: because a link to another rank broke, so probably after that rank failed).
   */
  abort?(code: number, message: string, consequence?: boolean): void;
  /** Tells every other process that a rank of this one ended (see Endpoint.peerGone). */
  announce?(notice: PeerGoneNotice): void;
  /** Hears what other processes announce. */
  onNotice?(handler: (notice: PeerGoneNotice) => void): void;
  /** How far the job manager's wall clock is ahead of this machine's (timelines across hosts). */
  clockOffset?(): Promise<{ offsetMs: number; roundTripMs: number } | undefined>;
  /**
   * Present while the job manager watches the whole job for hangs (the launcher of `tsmpi run
   * --procs`, the coordinator under SLURM): the process reports its ranks' progress and answers
   * when asked what they wait for, instead of judging hangs by its own ranks alone.
   */
  readonly watch?: {
    progress(report: ProcessProgress): void;
    answer(lines: WaitLine[]): void;
  };
  /** Hears the job manager ask what this process's ranks wait for (answered with watch.answer). */
  onDescribe?(handler: () => void): void;
  /** Hears that the job manager itself is gone (`why`: its connection closed, or it went silent): the process must end. */
  onLost?(handler: (why: string) => void): void;
  close(): void;
}

/** One process: the fence is immediate and everything is local. */
export class LocalRendezvous implements Rendezvous {
  private readonly values = new Map<string, string>();

  async exchange(entries: Readonly<Record<string, string>>): Promise<void> {
    for (const [k, v] of Object.entries(entries)) this.values.set(k, v);
  }

  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }

  close(): void {}
}

/** What a member rank publishes about itself. */
export interface RankRecord {
  /** World rank (after on-demand init's renumbering). */
  rank: number;
  /** Resource id (the job manager's rank). */
  resourceId: number;
  host: string;
  port: number;
  /** Listeners per rail (TSMPI_RAILS), rail 0 first; absent without rails. */
  rails?: { host: string; port: number }[];
  node: string;
  pid: number;
}

export function rankKey(rank: number): string {
  return `tsmpi-rank-${rank}`;
}

/** Values travel as base64url (PMI-2 values must avoid ';' and '='). */
export function encodeRecord(record: RankRecord): string {
  return Buffer.from(JSON.stringify(record)).toString('base64url');
}

export function decodeRecord(text: string): RankRecord {
  return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as RankRecord;
}
