/**
 * Runs a job whose ranks are worker threads of this process: allocates their shared memory,
 * starts them, forwards their output, and watches them.
 *
 * - Exit code: the highest rank exit code; 0 only when every rank succeeded.
 * - A rank that throws (or leaves a promise rejection unhandled) ends the job: its rank and stack
 *   are printed and the other ranks are terminated (worker termination interrupts even a busy
 *   loop), well within 2 s.
 * - Hangs: with a hang timeout S, when no rank has made progress for S seconds while some rank
 *   waits in tsmpi, every rank reports what it waits for and the job exits with code 124. Without
 *   one, a report is printed once when every rank has waited without progress for TSMPI_HANG_WARN
 *   seconds (default 60), and the job carries on.
 * The launcher's own thread never spins: it sleeps in the event loop and samples the ranks'
 * control words on one coarse timer.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { readSettings, type Settings } from '../config/tunables.js';
import { ControlArea, RankState } from '../transport/control-block.js';
import { allocateShmArena, type ArenaLayout } from '../transport/shm-arena.js';
import { prepareApp, type PreparedApp } from './app-loader.js';
import type { RankToLauncher, ThreadWorldContext } from './rank-context.js';
import { rankThreadSource, type RankThreadData } from './rank-thread.js';

export interface ThreadJobOptions {
  /** Number of ranks. */
  np: number;
  /** Path of the program (.ts or .js). */
  program: string;
  args: string[];
  /** Environment of the ranks (the launcher's own plus -x variables). */
  env: Record<string, string | undefined>;
  /** Prefix every output line with the rank, as mpirun --tag-output does. */
  tagOutput: boolean;
  /** Where the launcher writes its own messages. */
  log?: (line: string) => void;
  layout?: ArenaLayout;
}

export const HANG_EXIT_CODE = 124;
const MONITOR_INTERVAL_MS = 250;
const TERMINATE_GRACE_MS = 1500;

const RANK_STATE_NAMES = ['starting', 'running', 'waiting', 'finished'];

export async function runThreadJob(options: ThreadJobOptions): Promise<number> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const settings = readSettings(options.env, { localRanks: options.np, cores: availableParallelism() });
  const app = await prepareApp(options.program);
  try {
    return await new ThreadJob(options, settings, app, log).run();
  } finally {
    app.cleanup();
  }
}

class ThreadJob {
  private readonly options: ThreadJobOptions;
  private readonly settings: Settings;
  private readonly app: PreparedApp;
  private readonly log: (line: string) => void;
  private readonly workers: Worker[] = [];
  private readonly exitCodes: (number | undefined)[];
  private control!: ControlArea;
  private aborting = false;
  private abortCode = 0;
  private lastProgress = -1;
  private lastProgressAt = 0;
  private warned = false;
  private reporting = false;
  private readonly waitReports = new Map<number, RankToLauncher & { type: 'waits' }>();
  private finish!: (code: number) => void;

  constructor(options: ThreadJobOptions, settings: Settings, app: PreparedApp, log: (line: string) => void) {
    this.options = options;
    this.settings = settings;
    this.app = app;
    this.log = log;
    this.exitCodes = new Array(options.np).fill(undefined);
  }

  run(): Promise<number> {
    const { np } = this.options;
    const arena = allocateShmArena(np, this.settings.ringBytes, this.options.layout ?? 'per-receiver');
    this.control = new ControlArea(arena.control, np);
    const worldOfSlot = Array.from({ length: np }, (_, i) => i);
    const launchTime = performance.timeOrigin + performance.now();
    const done = new Promise<number>((resolve) => {
      this.finish = resolve;
    });
    for (let rank = 0; rank < np; rank++) {
      const context: ThreadWorldContext = { kind: 'threads', rank, size: np, localRank: rank, localSize: np, arena, slot: rank, worldOfSlot };
      const data: RankThreadData = { context, appUrl: this.app.url, appPath: this.app.path, args: this.options.args, sourceMaps: this.settings.sourceMaps };
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(this.options.env)) if (v !== undefined) env[k] = v;
      Object.assign(env, {
        TSMPI_RANK: String(rank),
        TSMPI_SIZE: String(np),
        TSMPI_LOCAL_RANK: String(rank),
        TSMPI_LOCAL_SIZE: String(np),
        TSMPI_LAUNCH_TIME_MS: String(launchTime),
      });
      const worker = new Worker(rankThreadSource, {
        eval: true,
        workerData: data,
        env,
        stdout: this.options.tagOutput,
        stderr: this.options.tagOutput,
        name: `tsmpi rank ${rank}`,
      });
      this.workers.push(worker);
      if (this.options.tagOutput) {
        tagLines(worker.stdout, `[1,${rank}]<stdout>:`, process.stdout);
        tagLines(worker.stderr, `[1,${rank}]<stderr>:`, process.stderr);
      }
      worker.on('message', (message: RankToLauncher) => this.onMessage(message));
      worker.on('error', (error) => this.onRankError(rank, error));
      worker.on('exit', (code) => this.onExit(rank, code));
    }
    const monitor = setInterval(() => this.monitor(), MONITOR_INTERVAL_MS);
    this.lastProgressAt = performance.now();
    return done.finally(() => clearInterval(monitor));
  }

  private onMessage(message: RankToLauncher): void {
    if (message.type === 'abort') {
      this.log(`tsmpi: rank ${message.rank} called abort(${message.code}): ${message.message}`);
      this.abort(message.code || 1);
    } else if (message.type === 'waits') {
      this.waitReports.set(message.rank, message);
    }
  }

  private onRankError(rank: number, error: unknown): void {
    const text = this.app.mapStack(error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error));
    if (!this.aborting) {
      this.log(`tsmpi: rank ${rank} failed:\n${text}`);
      this.log(`tsmpi: aborting the job (${this.options.np} ranks) because rank ${rank} failed`);
    }
    this.exitCodes[rank] = Math.max(this.exitCodes[rank] ?? 1, 1);
    this.abort(1);
  }

  private onExit(rank: number, code: number): void {
    if (this.exitCodes[rank] === undefined || code > this.exitCodes[rank]!) this.exitCodes[rank] = code;
    if (code !== 0 && !this.aborting) {
      this.log(`tsmpi: rank ${rank} exited with code ${code}`);
    }
    if (this.exitCodes.every((c) => c !== undefined)) {
      const worst = Math.max(this.abortCode, ...(this.exitCodes as number[]));
      this.finish(worst);
    }
  }

  /** Terminates every rank; the job's exit code is at least `code`. */
  private abort(code: number): void {
    this.abortCode = Math.max(this.abortCode, code);
    if (this.aborting) return;
    this.aborting = true;
    const running = this.workers.filter((_, rank) => this.exitCodes[rank] === undefined);
    void Promise.race([
      Promise.all(running.map((w) => w.terminate())),
      new Promise((resolve) => setTimeout(resolve, TERMINATE_GRACE_MS).unref()),
    ]).then(() => {
      for (let rank = 0; rank < this.exitCodes.length; rank++) {
        if (this.exitCodes[rank] === undefined) this.exitCodes[rank] = code;
      }
      this.finish(Math.max(this.abortCode, ...(this.exitCodes as number[])));
    });
  }

  private monitor(): void {
    if (this.aborting || this.reporting) return;
    const np = this.options.np;
    let progress = 0;
    let live = 0;
    let waiting = 0;
    for (let slot = 0; slot < np; slot++) {
      progress += this.control.progress(slot) + this.control.state(slot);
      if (this.exitCodes[slot] !== undefined) continue;
      const state = this.control.state(slot);
      if (state === RankState.Finished) continue;
      live++;
      if (state === RankState.Waiting) waiting++;
    }
    const now = performance.now();
    if (progress !== this.lastProgress) {
      this.lastProgress = progress;
      this.lastProgressAt = now;
      return;
    }
    const stalled = (now - this.lastProgressAt) / 1000;
    const timeout = this.settings.hangTimeout;
    if (timeout > 0 && waiting > 0 && stalled >= timeout) {
      void this.reportHang(`tsmpi: no rank made progress for ${timeout} s (--hang-timeout ${timeout}); what each rank waits for:`, true);
    } else if (!this.warned && this.settings.hangWarn > 0 && live > 0 && waiting === live && stalled >= this.settings.hangWarn) {
      this.warned = true;
      void this.reportHang(`tsmpi: every rank has waited ${Math.round(stalled)} s without progress (a deadlock?); what each rank waits for:`, false);
    }
  }

  private async reportHang(headline: string, fatal: boolean): Promise<void> {
    this.reporting = true;
    this.waitReports.clear();
    const live = this.workers.filter((_, rank) => this.exitCodes[rank] === undefined);
    for (const worker of live) worker.postMessage({ type: 'describe-waits' });
    const deadline = performance.now() + 1000;
    while (this.waitReports.size < live.length && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lines = [headline];
    for (let rank = 0; rank < this.options.np; rank++) {
      if (this.exitCodes[rank] !== undefined) {
        lines.push(`  rank ${rank}: exited with code ${this.exitCodes[rank]}`);
        continue;
      }
      const report = this.waitReports.get(rank);
      const state = RANK_STATE_NAMES[this.control.state(rank)] ?? 'unknown';
      if (report === undefined) lines.push(`  rank ${rank}: ${state}, busy (did not answer: a long computation or a busy loop)`);
      else if (report.waits.length === 0) lines.push(`  rank ${rank}: ${state}, not waiting in tsmpi`);
      else for (const wait of report.waits) lines.push(`  rank ${rank}: waiting in ${wait}`);
    }
    if (fatal) lines.push(`tsmpi: aborting the job (exit code ${HANG_EXIT_CODE}); raise --hang-timeout if the ranks were just slow`);
    else lines.push('tsmpi: the job keeps running; set --hang-timeout S to abort such jobs');
    this.log(lines.join('\n'));
    this.reporting = false;
    if (fatal) this.abort(HANG_EXIT_CODE);
  }
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
