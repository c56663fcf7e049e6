/**
 * Hosts the ranks of one process as worker threads: allocates their shared memory, starts them,
 * runs the address exchange when members live in other processes too, forwards their output,
 * and watches them. `tsmpi run` (every rank in one process) and `tsmpi exec` (this process's
 * share of a job started by `tsmpi run --procs` or SLURM) are both a RankHost.
 *
 * - Exit code (as mpirun's): the first failing rank's own code: 1 for an uncaught error,
 *   n for `process.exit(n)`, the code of `abort(code)`, 124 for a hang timeout; 0 when every rank
 *   ended with 0. Ranks terminated because another failed do not count.
 * - A rank that throws (or leaves a promise rejection unhandled) or exits with a non-zero code
 *   ends the process: its rank and stack (mapped to the .ts lines) are printed and the other
 *   ranks are terminated (worker termination interrupts even a busy loop), well within 2 s. The
 *   job manager (the launcher's rendezvous, or srun through PMI-2) hears of it first, so that it
 *   stops the other processes with this code; ranks in other processes see their links to this
 *   process close.
 * - Hangs: with a hang timeout S, when no local rank has made progress for S seconds while one
 *   waits in tsmpi, every local rank reports what it waits for and the process exits with 124.
 *   Without one, a report is printed once when every local rank has waited without progress for
 *   TSMPI_HANG_WARN seconds (default 60), and the job carries on.
 * The host's own thread never spins: it sleeps in the event loop and samples the ranks' control
 * words on one coarse timer.
 */
import { TracePartWriter, tracePartPath } from '../trace/trace-files.js';
import { mapProfileSites } from '../trace/rank-profile.js';
import type { TraceChunk } from '../trace/rank-trace.js';
import { realClock } from '../clock.js';
import { isOwnSource } from '../trace/call-tracing.js';
import { availableParallelism, hostname } from 'node:os';
import { Worker } from 'node:worker_threads';
import { allowedCpus, cpuForThread } from './cpu-binding.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { readSettings, type Settings } from '../config/tunables.js';
import { ControlArea, RankState } from '../transport/control-block.js';
import { allocateShmArena, type ArenaLayout } from '../transport/shm-arena.js';
import type { PreparedApp } from './app-loader.js';
import { HANG_EXIT_CODE, JobMonitor } from './job-monitor.js';
import { confirmedStall, stallHeadline, stallVerdict, type StallVerdict, type WaitLine } from './job-watch.js';
import { StdinFeed } from './stdin-feed.js';
import type { RendezvousServer } from './launcher-rendezvous.js';
import { nodeLocal, type JobInfo } from './job-info.js';
import { compact, whyNotMember, type Participation } from './participation.js';
import type { HostToRank, PeerGoneNotice, RankContext, RankToHost } from './rank-context.js';
import { compileOnRankThreads } from './rank-jit.js';
import { runtimeCacheFor } from './runtime-cache.js';
import { rankThreadSource, type RankThreadData } from './rank-thread.js';
import { decodeRecord, encodeRecord, rankKey, type RankRecord, type Rendezvous } from './rendezvous.js';

export interface RankHostOptions {
  app: PreparedApp;
  args: string[];
  /** Environment of the ranks (the launcher's own plus -x variables). */
  env: Record<string, string | undefined>;
  settings: Settings;
  job: JobInfo;
  participation: Participation;
  /** Prefix every output line with the rank, as mpirun --tag-output does. */
  tagOutput: boolean;
  layout: ArenaLayout;
  /**
   * When members live in other processes: the exchange, this node's address, and the job secret
   * (known to this process, or published at the exchange by resource 0 under `SECRET_KEY`).
   */
  remote?: { rendezvous: Rendezvous; listenHost: string; secret?: string; publish?: Record<string, string> };
  /** Under SLURM, in task 0's process: the job's coordinator, whose hang watch this host runs. */
  coordinator?: RendezvousServer;
  log: (line: string) => void;
}

export { HANG_EXIT_CODE };
/** The rendezvous key under which resource 0 publishes a secret it generated. */
export const SECRET_KEY = 'tsmpi-secret';
const MONITOR_INTERVAL_MS = 250;
/** A watched process reports its progress at least this often, unchanged or not (ms). */
const HEARTBEAT_MS = 1000;
const TERMINATE_GRACE_MS = 1500;
/** How long a failing job waits for its ranks' last timeline chunks before stopping them (ms). */
const TRACE_FLUSH_MS = 500;
/** How long a rank's failure that another's likely caused waits for that one's own (ms). */
const CONSEQUENCE_GRACE_MS = 500;
const RANK_STATE_NAMES = ['starting', 'running', 'waiting', 'finished'];

interface HostedRank {
  resourceId: number;
  /** World rank for members, -1 for non-members. */
  rank: number;
  /** Control-area slot for members, -1 for non-members. */
  slot: number;
  worker: Worker;
  /** The ranks that share its thread (itself included; alone, just itself). */
  group: HostedRank[];
  exitCode: number | undefined;
  listening?: { host: string; port: number; rails?: { host: string; port: number }[] };
  /** Its end was told to the other ranks. */
  announced?: boolean;
  /** Its timeline's last chunk arrived (TSMPI_TRACE / TSMPI_PROFILE). */
  traced?: boolean;
  /** A failure of one of the ranks `among` (a range) that share a thread, not known which. */
  among?: string;
  /** Its program has returned (a live rank that waits in nothing of tsmpi then lingers). */
  returned?: boolean;
}

export class RankHost {
  private readonly options: RankHostOptions;
  private readonly ranks: HostedRank[] = [];
  private control: ControlArea | undefined;
  private aborting = false;
  /** The job's exit code once a rank failed: the first failure's own code. */
  private failureCode: number | undefined;
  private lastProgress = -1;
  private lastProgressAt = 0;
  private lastReportAt = 0;
  private warned = false;
  private reporting = false;
  private readonly waitReports = new Map<number, RankToHost & { type: 'waits' }>();
  /** Ranks whose failure was already reported (an error event comes before their exit). */
  private readonly failed = new Set<HostedRank>();
  /** A failure that is likely another's consequence, held back a moment for its cause. */
  private consequence: { rank: HostedRank; error: unknown; timer: NodeJS.Timeout } | undefined;
  private finish!: (code: number) => void;
  /** This process's part of the job's timeline (TSMPI_TRACE), once a rank sent some. */
  private traceWriter: TracePartWriter | undefined;
  /** Writing the timeline's part failed once: no more attempts. */
  private traceFailed = false;
  /** This machine's clock against the launcher's, once measured (TSMPI_CLOCK_SYNC). */
  private clockSync: { offsetMs: number; roundTripMs: number } | undefined;
  /** This process's stdin, read for the rank that takes it (TSMPI_STDIN). */
  private stdinFeed: StdinFeed | undefined;
  /** The address exchange, once started: the process stays until it is over (PMI-2 fences count every task). */
  private exchanging: Promise<void> | undefined;

  constructor(options: RankHostOptions) {
    this.options = options;
  }

  /** Runs the ranks to their end; resolves with the process's exit code. */
  run(): Promise<number> {
    const { job, participation, settings } = this.options;
    const localIds = Array.from({ length: job.count }, (_, i) => job.first + i);
    const localMembers = localIds.filter((id) => participation.rankOf[id]! >= 0);
    const worldOfSlot = localMembers.map((id) => participation.rankOf[id]!);
    const arena = allocateShmArena(Math.max(1, localMembers.length), settings.ringBytes, this.options.layout);
    this.control = new ControlArea(arena.control, Math.max(1, localMembers.length));
    const compacted: JobInfo = {
      ...job,
      size: participation.members.length,
      nodeOfRank: compact(job.nodeOfRank, participation),
      localRankOf: compact(job.localRankOf, participation),
      pids: compact(job.pids, participation),
      addresses: compact(job.addresses, participation),
    };
    const onNode = nodeLocal(compacted.nodeOfRank);
    const launchTime = performance.timeOrigin + performance.now();
    const done = new Promise<number>((resolve) => {
      this.finish = resolve;
    });
    // Members share threads TSMPI_RANKS_PER_THREAD at a time, in local order; a non-member has its own.
    const perThread = Math.max(1, settings.ranksPerThread);
    const cpus = settings.bind === 'none' ? [] : allowedCpus();
    const cores = availableParallelism();
    // The ranks' threads compile in place when the job's ranks on this machine fill its cores
    // (rank-jit.ts); their isolates take the flags as they are created.
    const hostRanks = localMembers.length > 0 ? onNode.localSize[worldOfSlot[0]!]! : localIds.length;
    const v8Flags = compileOnRankThreads(readSettings(this.options.env, { localRanks: Math.max(1, localMembers.length), cores, hostRanks }).jitOnRank);
    // Under flags of its own, a rank thread takes the runtime's code cache made under them (made
    // once, ~0.2 s; the build makes the one for the default flags): compiling the runtime from
    // source made 8 rank threads on 2 cores ready in ~470 ms against ~380.
    const runtimeScript = this.options.app.runtimeScript;
    const runtimeCache = runtimeScript !== undefined && v8Flags.length > 0 ? runtimeCacheFor(runtimeScript, [...process.execArgv, ...v8Flags]) : undefined;
    const groups: number[][] = [];
    for (const id of localIds) {
      const last = groups.at(-1);
      const member = participation.rankOf[id]! >= 0;
      if (member && last !== undefined && last.length < perThread && participation.rankOf[last[0]!]! >= 0) last.push(id);
      else groups.push([id]);
    }
    for (const ids of groups) {
      const contexts: RankContext[] = [];
      const group: HostedRank[] = [];
      for (const id of ids) {
        const rank = participation.rankOf[id]!;
        const slot = rank >= 0 ? localMembers.indexOf(id) : -1;
        if (rank >= 0) {
          contexts.push({
            kind: 'member',
            rank,
            size: participation.members.length,
            resourceId: id,
            localRank: slot,
            localSize: localMembers.length,
            arena,
            slot,
            worldOfSlot,
            job: compacted,
            ...(this.options.remote ? { tcp: { jobId: job.jobId, listenHost: this.options.remote.listenHost } } : {}),
            ...(ids.length > 1 ? { threadRanks: ids.length } : {}),
            cores,
          });
        } else {
          contexts.push({ kind: 'non-member', resourceId: id, size: participation.members.length, reason: whyNotMember(participation, id), job });
        }
        group.push({ resourceId: id, rank, slot, worker: undefined as unknown as Worker, group, exitCode: undefined });
      }
      const first = group[0]!;
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(this.options.env)) if (v !== undefined) env[k] = v;
      // TSMPI_LOCAL_*: the rank's place on its node, as mpirun's LOCAL_RANK (not in its process).
      Object.assign(env, {
        TSMPI_SIZE: String(participation.members.length),
        TSMPI_LAUNCH_TIME_MS: String(launchTime),
      });
      // Ranks that share a thread share its environment: no one rank's numbers in it.
      if (group.length === 1) {
        env.TSMPI_RESOURCE_ID = String(first.resourceId);
        if (first.rank >= 0) Object.assign(env, { TSMPI_RANK: String(first.rank), TSMPI_LOCAL_RANK: String(onNode.localRank[first.rank]), TSMPI_LOCAL_SIZE: String(onNode.localSize[first.rank]) });
        else Object.assign(env, { TSMPI_RANK: '-1', TSMPI_LOCAL_RANK: '-1', TSMPI_LOCAL_SIZE: String(localMembers.length) });
      }
      const cpu = first.rank >= 0 ? cpuForThread(settings.bind, Math.floor(onNode.localRank[first.rank]! / perThread), Math.ceil(onNode.localSize[first.rank]! / perThread), cpus) : undefined;
      const takesStdin = settings.stdin >= 0 && group.some((hosted) => hosted.rank === settings.stdin);
      if (takesStdin) this.stdinFeed = new StdinFeed();
      const data: RankThreadData = {
        contexts,
        ...(takesStdin ? { stdin: { rank: settings.stdin, port: this.stdinFeed!.rankPort } } : {}),
        appUrl: this.options.app.url,
        ...(runtimeScript !== undefined ? { runtimeScript } : {}),
        ...(runtimeCache !== undefined ? { runtimeCache } : {}),
        appPath: this.options.app.path,
        args: this.options.args,
        sourceMaps: settings.sourceMaps,
        ...(cpu !== undefined ? { cpu, warnUnbound: settings.bind === 'core' } : {}),
      };
      const label = group.length > 1 ? `${first.rank}-${group.at(-1)!.rank}` : first.rank >= 0 ? String(first.rank) : `r${first.resourceId}`;
      const worker = new Worker(rankThreadSource, {
        eval: true,
        workerData: data,
        ...(takesStdin ? { transferList: [this.stdinFeed!.rankPort] } : {}),
        env,
        stdout: this.options.tagOutput,
        stderr: this.options.tagOutput,
        name: group.length > 1 ? `tsmpi ranks ${label}` : `tsmpi rank ${first.rank >= 0 ? first.rank : `resource ${first.resourceId}`}`,
      });
      for (const hosted of group) {
        hosted.worker = worker;
        this.ranks.push(hosted);
      }
      if (this.options.tagOutput) {
        tagLines(worker.stdout, `[1,${label}]<stdout>:`, process.stdout);
        tagLines(worker.stderr, `[1,${label}]<stderr>:`, process.stderr);
      }
      const byRank = new Map(group.map((hosted) => [hosted.rank, hosted]));
      let failing: HostedRank | undefined;
      worker.on('message', (message: RankToHost) => {
        const rank = message.type === 'trace' ? message.chunk.rank : message.rank;
        const from = byRank.get(rank) ?? first;
        if (message.type === 'failed') failing = from;
        else this.onMessage(from, message);
      });
      // An error from outside a rank's own top-level evaluation (a floating rejection) does not say
      // which of the thread's ranks it came from: the report names them all.
      worker.on('error', (error) => {
        const thrower = (error as { tsmpiRank?: unknown } | null)?.tsmpiRank;
        const named = failing ?? (typeof thrower === 'number' ? byRank.get(thrower) : undefined);
        this.onRankError(named ?? (group.length > 1 ? { ...first, among: label } : first), error);
      });
      worker.on('exit', (code) => {
        for (const hosted of group) this.onExit(hosted, code);
      });
    }
    if (this.options.remote && localMembers.length === 0) this.exchanging = this.exchange();
    this.options.remote?.rendezvous.onNotice?.((notice) => this.tellLocal(notice));
    const rendezvous = this.options.remote?.rendezvous;
    rendezvous?.onDescribe?.(() => void this.waitLines().then((lines) => rendezvous.watch?.answer(lines)));
    const coordinator = this.options.coordinator;
    const jobMonitor =
      coordinator === undefined
        ? undefined
        : new JobMonitor({
            server: coordinator,
            hangTimeout: settings.hangTimeout,
            hangWarn: settings.hangWarn,
            hostTimeout: settings.hostTimeout,
            size: participation.members.length,
            processes: job.size,
            ranksOf: (index) => (participation.rankOf[index]! >= 0 ? [participation.rankOf[index]!] : []),
            endOf: (index) => (coordinator.isConnected(index) ? undefined : 'ended'),
            log: this.options.log,
            describe: (index) => `task ${index} (${participation.rankOf[index]! >= 0 ? `rank ${participation.rankOf[index]} ` : ''}on ${job.nodes[job.nodeOfRank[index] ?? 0] ?? 'its node'})`,
            onHang: () => this.fail(HANG_EXIT_CODE, 'hang timeout'),
            onLost: () => this.fail(1, 'a lost host'),
            isOver: () => this.aborting,
          });
    this.options.remote?.rendezvous.onLost?.((why) => {
      if (this.aborting || this.ranks.every((r) => r.exitCode !== undefined)) return;
      this.options.log(`tsmpi: the launcher is gone (${why}): ending the ranks of this process`);
      this.stop(1);
    });
    // Stopped by a signal (the launcher stopping the others, srun, Ctrl-C): end the ranks so that
    // what they printed still reaches the terminal, then exit as the signal would (128 + n).
    const onSignal = (signal: NodeJS.Signals): void => this.stop(signal === 'SIGINT' ? 130 : 143);
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    const monitor = setInterval(() => this.monitor(), MONITOR_INTERVAL_MS);
    this.lastProgressAt = performance.now();
    return done
      .then(async (code) => {
        if (!this.aborting) await this.exchanging;
        return code;
      })
      .finally(() => {
        // A terminal or pipe that never ends must not keep this process alive.
        this.stdinFeed?.close();
        jobMonitor?.stop();
        clearInterval(monitor);
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        this.options.remote?.rendezvous.close();
      });
  }

  /**
   * A local rank ended (finalized, or exited with code 0): every other rank of the job hears of it,
   * here directly and elsewhere through the job manager, so that a wait for it fails at once
   * instead of hanging (Endpoint.peerGone).
   */
  private announceEnd(r: HostedRank, how: string, linked?: number[]): void {
    if (r.rank < 0 || this.aborting || r.announced === true) return;
    r.announced = true;
    const notice: PeerGoneNotice = { type: 'peer-gone', rank: r.rank, how, ...(linked !== undefined ? { linked } : {}) };
    this.tellLocal(notice, r);
    this.options.remote?.rendezvous.announce?.(notice);
  }

  private tellLocal(notice: PeerGoneNotice, except?: HostedRank): void {
    for (const worker of threadsOf(this.ranks.filter((other) => other !== except && other.rank >= 0 && other.exitCode === undefined))) worker.postMessage(notice);
  }

  private describeLocalRanks(): string {
    const ranks = this.ranks.filter((r) => r.rank >= 0).map((r) => r.rank);
    return ranks.length === 0 ? '(none)' : ranks.length === 1 ? String(ranks[0]) : `${Math.min(...ranks)}..${Math.max(...ranks)}`;
  }

  private describe(r: HostedRank): string {
    if (r.among !== undefined) return `one of ranks ${r.among} (they share a thread)`;
    return r.rank >= 0 ? `rank ${r.rank}` : `resource ${r.resourceId} (not a member)`;
  }

  private onMessage(from: HostedRank, message: RankToHost): void {
    if (message.type === 'abort') {
      if (!this.aborting) this.options.log(`tsmpi: rank ${message.rank} called abort(${message.code}): ${message.message}`);
      this.fail(message.code || 1, `rank ${message.rank} called abort(${message.code})`);
    } else if (message.type === 'finalized') {
      this.announceEnd(from, 'finalized', message.linked);
    } else if (message.type === 'trace') {
      const { job, settings, env, app } = this.options;
      if (message.chunk.last) from.traced = true;
      if (this.traceFailed) return;
      try {
        if (this.traceWriter === undefined) {
          this.traceWriter = new TracePartWriter(tracePartPath({ trace: settings.trace, profile: settings.profile }, job.jobId, job.first), env.SLURMD_NODENAME ?? env.TSMPI_NODE ?? job.nodes[job.nodeOfRank[job.first] ?? 0] ?? hostname());
          if (this.clockSync !== undefined) this.traceWriter.clock(this.clockSync.offsetMs, this.clockSync.roundTripMs);
        }
        this.traceWriter.add(oneAnchor(message.chunk), (profile) => mapProfileSites(profile, (stack) => app.mapStack(stack), process.cwd(), isOwnSource));
      } catch (error) {
        // A full disk, a directory removed meanwhile: the job goes on, its timeline will say what is missing.
        this.traceFailed = true;
        this.options.log(`tsmpi: cannot write this process's part of the timeline (${(error as Error).message}); ranks ${this.describeLocalRanks()} will be missing from it`);
      }
    } else if (message.type === 'waits') {
      this.waitReports.set(from.resourceId, message);
    } else if (message.type === 'returned') {
      from.returned = true;
    } else if (message.type === 'listening') {
      from.listening = { host: message.host, port: message.port, ...(message.rails ? { rails: message.rails } : {}) };
      const members = this.ranks.filter((r) => r.rank >= 0);
      if (members.every((r) => r.listening !== undefined)) this.exchanging = this.exchange();
    }
  }

  /** Publishes the local members' addresses, waits for everyone's, and hands them to the ranks. */
  private async exchange(): Promise<void> {
    const remote = this.options.remote!;
    const { participation } = this.options;
    try {
      const entries: Record<string, string> = {};
      const node = this.options.env.SLURMD_NODENAME ?? this.options.job.nodes[this.options.job.nodeOfRank[this.options.job.first] ?? 0] ?? '';
      for (const r of this.ranks) {
        if (r.rank < 0) continue;
        const record: RankRecord = { rank: r.rank, resourceId: r.resourceId, host: r.listening!.host, port: r.listening!.port, ...(r.listening!.rails ? { rails: r.listening!.rails } : {}), node, pid: process.pid };
        entries[rankKey(r.rank)] = encodeRecord(record);
      }
      Object.assign(entries, remote.publish ?? {});
      await remote.rendezvous.exchange(entries);
      if (!this.ranks.some((r) => r.rank >= 0)) return;
      const secret = remote.secret ?? (await remote.rendezvous.get(SECRET_KEY));
      if (secret === undefined) {
        throw new TsmpiError(ErrorCode.Init, 'no job secret was published', { operation: 'init', hint: 'set TSMPI_JOB_SECRET to the same value for every task' });
      }
      const records: RankRecord[] = [];
      for (let rank = 0; rank < participation.members.length; rank++) {
        const text = await remote.rendezvous.get(rankKey(rank));
        if (text === undefined) {
          throw new TsmpiError(ErrorCode.Init, `world rank ${rank} (resource ${participation.members[rank]}) published no address`, {
            operation: 'init',
            hint: 'every process of the job must run `tsmpi exec` with the same TSMPI_CG_PER_PROCESS / TSMPI_MAPPING_FILE',
          });
        }
        records.push(decodeRecord(text));
      }
      const message: HostToRank = { type: 'world', records, secret };
      for (const worker of threadsOf(this.ranks.filter((r) => r.rank >= 0 && r.exitCode === undefined))) worker.postMessage(message);
      // On another host than the launcher, a timeline needs this machine's clock against the launcher's.
      const { job } = this.options;
      const otherMachine = this.options.env.TSMPI_CLOCK_SYNC === '1' || (job.launcher === 'slurm' && job.nodeOfRank[job.first] !== job.nodeOfRank[0]);
      if (otherMachine && this.options.settings.trace !== '') {
        void remote.rendezvous.clockOffset?.().then((clock) => {
          this.clockSync = clock;
          if (clock !== undefined) this.traceWriter?.clock(clock.offsetMs, clock.roundTripMs);
        });
      }
    } catch (error) {
      if (!this.aborting) this.options.log(`tsmpi: the address exchange failed: ${(error as Error).message}`);
      this.fail(1, 'the address exchange failed');
    }
  }

  private onRankError(r: HostedRank, error: unknown): void {
    this.failed.add(r);
    // A broken link to another rank, or a wait for a rank that ended, is most likely another
    // rank's mistake seen from here: wait a moment for that rank's own failure, and report it.
    const code = (error as { code?: unknown } | null)?.code;
    const consequence = code === ErrorCode.Transport || code === ErrorCode.PeerGone;
    if (consequence && !this.aborting) {
      if (this.consequence === undefined) {
        this.consequence = { rank: r, error, timer: setTimeout(() => this.reportFailure(r, error, true), CONSEQUENCE_GRACE_MS) };
      }
      return;
    }
    this.reportFailure(r, error, false);
  }

  private reportFailure(r: HostedRank, error: unknown, consequence: boolean): void {
    if (this.consequence !== undefined) {
      clearTimeout(this.consequence.timer);
      this.consequence = undefined;
    }
    const text = this.options.app.mapStack(error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error));
    if (!this.aborting) {
      this.options.log(`tsmpi: ${this.describe(r)} failed:\n${text}`);
      const count = this.ranks.length === 1 ? '1 rank' : `${this.ranks.length} ranks`;
      this.options.log(`tsmpi: aborting the job (${count}${this.options.remote ? ' in this process' : ''}) because ${this.describe(r)} failed`);
    }
    this.fail(1, `${this.describe(r)} failed`, consequence);
  }

  private onExit(r: HostedRank, code: number): void {
    r.exitCode = code;
    if (code === 0) this.announceEnd(r, 'exited (code 0)');
    if (code !== 0 && !this.aborting && !this.failed.has(r)) {
      // Its own failure (an exit code) is a cause: it goes before a consequence waiting to be told.
      if (this.consequence !== undefined) {
        clearTimeout(this.consequence.timer);
        this.consequence = undefined;
      }
      this.options.log(`tsmpi: ${this.describe(r)} exited with code ${code}`);
      this.fail(code, `${this.describe(r)} exited with code ${code}`);
    }
    if (!this.ranks.every((x) => x.exitCode !== undefined)) return;
    // Every rank is gone: a failure held back for its cause is the job's after all.
    const held = this.consequence;
    if (held !== undefined) this.reportFailure(held.rank, held.error, true);
    else this.finish(this.failureCode ?? 0);
  }

  /**
   * A rank failed with `code`: the first failure sets the job's code, tells the job manager (so
   * that it stops the other processes with that code: the launcher's rendezvous, PMI-2 abort
   * under SLURM) and terminates every local rank. Later failures, often caused by the first
   * (links closing), change nothing.
   */
  private fail(code: number, why: string, consequence = false): void {
    if (this.aborting) return;
    this.options.remote?.rendezvous.abort?.(code, `tsmpi: ${why}`, consequence);
    this.stop(code);
  }

  /** Terminates every local rank; the process then exits with `code` (unless a failure came first). */
  private stop(code: number): void {
    if (this.aborting) return;
    this.aborting = true;
    this.failureCode = code;
    const running = this.ranks.filter((r) => r.exitCode === undefined);
    void this.flushTraces(running)
      .then(() =>
        Promise.race([
          Promise.all(threadsOf(running).map((worker) => worker.terminate())),
          new Promise((resolve) => setTimeout(resolve, TERMINATE_GRACE_MS).unref()),
        ]),
      )
      .then(() => this.finish(code));
  }

  /**
   * A failing job's timeline is what its user looks at next: ranks that can still answer hand
   * over what they recorded (a rank stuck in a loop cannot, and is stopped anyway after a moment).
   */
  private async flushTraces(running: HostedRank[]): Promise<void> {
    const { settings } = this.options;
    if (settings.trace === '' && settings.profile === '') return;
    const members = running.filter((r) => r.rank >= 0 && r.traced !== true);
    if (members.length === 0) return;
    const message: HostToRank = { type: 'flush-trace' };
    for (const worker of threadsOf(members)) worker.postMessage(message);
    const until = performance.now() + TRACE_FLUSH_MS;
    while (performance.now() < until && members.some((r) => r.traced !== true)) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  private monitor(): void {
    if (this.aborting || this.reporting || this.control === undefined) return;
    let progress = 0;
    let live = 0;
    let waiting = 0;
    let lingering = 0;
    for (const r of this.ranks) {
      if (r.slot < 0) continue;
      const state = this.control.state(r.slot);
      progress += this.control.progress(r.slot) + state + (r.returned === true ? 1 : 0);
      if (r.exitCode !== undefined || state === RankState.Finished) continue;
      live++;
      if (state === RankState.Waiting) waiting++;
      else if (r.returned === true) lingering++;
    }
    const now = performance.now();
    const watch = this.options.remote?.rendezvous.watch;
    if (watch !== undefined) {
      // The job manager judges hangs job-wide: report (on change, and now and then), decide nothing here.
      if (progress !== this.lastProgress || now - this.lastReportAt >= HEARTBEAT_MS) {
        this.lastProgress = progress;
        this.lastReportAt = now;
        watch.progress({ total: progress, live, waiting, lingering });
      }
      return;
    }
    if (progress !== this.lastProgress) {
      this.lastProgress = progress;
      this.lastProgressAt = now;
      return;
    }
    const { hangTimeout, hangWarn } = this.options.settings;
    const verdict = stallVerdict({ live, waiting, lingering }, (now - this.lastProgressAt) / 1000, { hangTimeout, hangWarn }, this.warned);
    if (verdict.act !== 'none') void this.reportHang(verdict);
  }

  private async reportHang(verdict: StallVerdict): Promise<void> {
    this.reporting = true;
    const fatal = verdict.act === 'abort';
    const ended = (): number => this.ranks.filter((r) => r.exitCode !== undefined).length;
    const endedBefore = ended();
    const answers = await this.waitLines();
    if (!confirmedStall(verdict, answers) || ended() !== endedBefore || this.aborting) {
      // A rank taken for lingering was at work, or one ended meanwhile: no stall; judge again a full period on.
      this.lastProgressAt = performance.now();
      this.reporting = false;
      return;
    }
    if (verdict.act === 'warn') this.warned = true;
    const headline = stallHeadline(verdict, this.options.settings.hangTimeout, this.options.remote ? 'every rank of this process' : 'every rank');
    const lines = [headline, ...answers.map(([, line]) => line)];
    if (fatal) lines.push(`tsmpi: aborting the job (exit code ${HANG_EXIT_CODE}); raise --hang-timeout if the ranks were just slow`);
    else lines.push('tsmpi: the job keeps running; set --hang-timeout S to abort such jobs');
    this.options.log(lines.join('\n'));
    this.reporting = false;
    if (fatal) this.fail(HANG_EXIT_CODE, 'hang timeout');
  }

  /** What each local rank waits for, a line each (rank order), after asking them (1 s at most). */
  private async waitLines(): Promise<WaitLine[]> {
    this.waitReports.clear();
    const live = this.ranks.filter((r) => r.exitCode === undefined && r.rank >= 0);
    for (const worker of threadsOf(live)) worker.postMessage({ type: 'describe-waits' } satisfies HostToRank);
    const deadline = performance.now() + 1000;
    while (this.waitReports.size < live.length && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lines: WaitLine[] = [];
    for (const r of [...this.ranks].sort((a, b) => a.rank - b.rank)) {
      if (r.rank < 0) continue;
      if (r.exitCode !== undefined) {
        lines.push([r.rank, `  rank ${r.rank}: exited with code ${r.exitCode}`]);
        continue;
      }
      const report = this.waitReports.get(r.resourceId);
      const state = RANK_STATE_NAMES[this.control!.state(r.slot)] ?? 'unknown';
      if (report === undefined) lines.push([r.rank, `  rank ${r.rank}: ${state}, busy (did not answer: a long computation or a busy loop)`, true]);
      else if (report.waits.length === 0 && r.returned === true && report.idle === true) lines.push([r.rank, `  rank ${r.rank}: ${lingeringLine(report.resources ?? [])}`]);
      else if (report.waits.length === 0 && r.returned === true) lines.push([r.rank, `  rank ${r.rank}: its program's top level has returned, and its thread is at work outside tsmpi (a function the program started without awaiting it)`, true]);
      else if (report.waits.length === 0) lines.push([r.rank, `  rank ${r.rank}: ${state}, not waiting in tsmpi`, true]);
      else for (const wait of report.waits) lines.push([r.rank, `  rank ${r.rank}: waiting in ${wait}`]);
    }
    return lines;
  }
}

/**
 * What a rank whose program returned, yet whose thread lives on, is kept by: its event loop's
 * active resources (Node's names, counted), and what to do about them.
 */
export function lingeringLine(resources: readonly string[]): string {
  const counts = new Map<string, number>();
  // tsmpi's own: the reply itself, and the host's port.
  for (const name of resources) if (name !== 'MessagePort' && name !== 'Immediate' && name !== 'CloseReq') counts.set(name, (counts.get(name) ?? 0) + 1);
  const held = [...counts].map(([name, n]) => (n > 1 ? `${name} x${n}` : name)).join(', ');
  return (
    `its program returned, but its thread has not ended: ${held === '' ? 'something the program started' : `the program's ${held}`} keeps it alive` +
    ' (a timer not cleared, a socket or server not closed); clear or close it, or end the rank with process.exit(0)'
  );
}

/** The threads of `ranks`, each once (ranks may share one: a message to a thread reaches all its ranks). */
function threadsOf(ranks: readonly HostedRank[]): Worker[] {
  return [...new Set(ranks.map((r) => r.worker))];
}

/** Copies `stream` to `out` line by line, each line prefixed. */
function tagLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WritableStream): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      out.write(`${prefix}${pending.slice(0, nl)}\n`);
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
    }
  });
  stream.on('end', () => {
    if (pending.length > 0) out.write(`${prefix}${pending}\n`);
  });
}

/**
 * A rank thread's chunk on this process's anchor of the wall clock. The threads of a process read
 * one monotonic clock, so one anchor makes their times agree exactly; each thread's own anchor is
 * right only within the time its reads took, and a thread descheduled while it read it (ranks
 * ending together on 2 cores) put a message's receive 0.2 ms before its send on the timeline.
 * Virtual times (epoch 0) stay as they are.
 */
function oneAnchor(chunk: TraceChunk): TraceChunk {
  if (chunk.epoch === 0) return chunk;
  const epoch = realClock.epoch ?? chunk.epoch;
  return { ...chunk, epoch, ...(chunk.profile !== undefined ? { profile: { ...chunk.profile, epoch } } : {}) };
}

