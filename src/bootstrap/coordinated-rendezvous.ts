/**
 * Under SLURM, srun's PMI-2 store forms the world but carries nothing afterwards. The process of
 * task 0 also serves a coordinator (the launcher's rendezvous server: launcher-rendezvous.ts) on
 * its node's address, published in the PMI-2 store; every task's process connects to it once the
 * world is formed, so that ranks that end are announced to every process and the job is watched
 * for hangs as one (job-monitor.ts), as under `tsmpi run --procs`.
 */
import type { ProcessProgress, WaitLine } from './job-watch.js';
import { LauncherRendezvous } from './launcher-rendezvous.js';
import type { PeerGoneNotice } from './rank-context.js';
import type { Rendezvous } from './rendezvous.js';

/** The PMI-2 key of the coordinator's address. */
export const COORDINATOR_KEY = 'tsmpi-coordinator';

export class CoordinatedRendezvous implements Rendezvous {
  private client: LauncherRendezvous | undefined;
  private noticeHandler: ((notice: PeerGoneNotice) => void) | undefined;
  private describeHandler: (() => void) | undefined;
  private lostHandler: ((why: string) => void) | undefined;

  /**
   * `store`: the PMI-2 exchange; `secret`: the job key once known (hex; read from the store
   * otherwise); `index`: this task's id.
   */
  constructor(
    private readonly store: Rendezvous,
    private readonly jobId: string,
    private readonly index: number,
    private readonly secret: () => Promise<string | undefined>,
    private readonly log: (line: string) => void,
    /** Seconds without a word from the coordinator after which this node counts as cut off (0: never). */
    private readonly silenceSeconds = 0,
  ) {}

  async exchange(entries: Readonly<Record<string, string>>): Promise<void> {
    await this.store.exchange(entries);
    const address = await this.store.get(COORDINATOR_KEY);
    const secret = await this.secret();
    if (address === undefined || secret === undefined) return;
    const client = new LauncherRendezvous(address, Buffer.from(secret, 'hex'), this.jobId, this.index, { silenceSeconds: this.silenceSeconds });
    try {
      await client.exchange({});
    } catch (error) {
      // Without it, each process judges its own ranks (the world itself is formed).
      this.log(`tsmpi: task ${this.index} cannot reach the job's coordinator at ${address}: ${(error as Error).message}`);
      return;
    }
    if (this.noticeHandler !== undefined) client.onNotice(this.noticeHandler);
    if (this.describeHandler !== undefined) client.onDescribe(this.describeHandler);
    // Cut off from the coordinator (its node's link down): end this process's ranks, as srun
    // cannot reach them either. Its connection closing is not that: task 0 ends when the job does.
    client.onLost((why) => {
      if (why.startsWith('no word')) this.lostHandler?.(`the job's coordinator: ${why}`);
    });
    this.client = client;
  }

  get(key: string): Promise<string | undefined> {
    return this.store.get(key);
  }

  /** This node's clock against task 0's (the coordinator answers the probes). */
  clockOffset(): Promise<{ offsetMs: number; roundTripMs: number } | undefined> {
    return this.client?.clockOffset() ?? Promise.resolve(undefined);
  }

  abort(code: number, message: string, consequence?: boolean): void {
    this.store.abort?.(code, message, consequence);
  }

  announce(notice: PeerGoneNotice): void {
    this.client?.announce(notice);
  }

  onNotice(handler: (notice: PeerGoneNotice) => void): void {
    this.noticeHandler = handler;
    this.client?.onNotice(handler);
  }

  get watch(): { progress(report: ProcessProgress): void; answer(lines: WaitLine[]): void } | undefined {
    return this.client?.watch;
  }

  onDescribe(handler: () => void): void {
    this.describeHandler = handler;
    this.client?.onDescribe(handler);
  }

  onLost(handler: (why: string) => void): void {
    this.lostHandler = handler;
  }

  close(): void {
    this.client?.close();
    this.store.close();
  }
}
