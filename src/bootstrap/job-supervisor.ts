/**
 * What a launcher does for a job of several processes, wherever they run (`tsmpi run --procs` on
 * this machine, `--hostfile` over ssh): it serves the rendezvous, starts the processes, and
 * watches them. The first failure sets the job's exit code (as mpirun): a process reports a
 * failed rank with its code through the rendezvous before it ends, or exits non-zero; the
 * launcher then takes the others down (SIGTERM, then SIGKILL after 1.5 s), and their own exits
 * do not count. Failures caused by another (a link to a dead peer) yield to their cause
 * (first-failure.ts). A process not heard from for the host timeout is lost (its host's link is
 * down, or the host stopped): the job ends, naming it.
 */
import { finishRecording, recording } from '../trace/trace-files.js';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as osConstantsAll } from 'node:os';
import { secretKey } from './exec-host.js';
import { FailureArbiter } from './first-failure.js';
import { RendezvousServer } from './launcher-rendezvous.js';
import { HANG_EXIT_CODE, JobMonitor } from './job-monitor.js';
import { readSettings } from '../config/tunables.js';

const osConstants = osConstantsAll as { signals: Record<string, number> };

/** One process of the job: its world ranks, and where it runs. */
export interface SupervisedProcess {
  readonly first: number;
  readonly count: number;
  /** The host it runs on, for messages; undefined on this machine. */
  readonly host?: string;
}

export interface SupervisorOptions {
  readonly np: number;
  readonly processes: readonly SupervisedProcess[];
  /** The launcher's environment, for the job's settings (hang and host timeouts). */
  readonly env: Record<string, string | undefined>;
  /** Ranks per process at most (the settings' local ranks). */
  readonly ranksPerProcess: number;
  /** Where the rendezvous listens. */
  readonly listenAddress: string;
  /** Starts process `index`; its rendezvous is on `port`, and it proves itself with `secret`. */
  start(index: number, job: { port: number; secret: string; jobId: string }): ChildProcess;
  /** Words for a process's non-zero exit (e.g. what ssh's 255 means). */
  explainExit?(index: number, code: number, signal: NodeJS.Signals | null): string | undefined;
  readonly log?: (line: string) => void;
}

const KILL_GRACE_MS = 1500;
/** How long a rank's "link to a peer broke" waits for that peer's own failure (ms). */
const CONSEQUENCE_GRACE_MS = 1000;
/** How long the exit of a process waits for the rest of its rendezvous connection (ms). */
const DRAIN_WAIT_MS = 200;
/** The launcher's own failures (a hang, a lost host) in the failure arbiter. */
const LAUNCHER_INDEX = -1;
/** The job's code when a host is lost. */
export const LOST_HOST_EXIT_CODE = 1;

/** "ranks 6..7 on node4", "rank 0" */
export function describeProcess(p: SupervisedProcess): string {
  const last = p.first + p.count - 1;
  const ranks = p.first === last ? `rank ${p.first}` : `ranks ${p.first}..${last}`;
  return p.host === undefined ? ranks : `${ranks} on ${p.host}`;
}

export async function superviseJob(options: SupervisorOptions): Promise<number> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const count = options.processes.length;
  const secret = randomBytes(32).toString('hex');
  const jobId = `procs-${process.pid}-${Date.now()}`;
  const children: ChildProcess[] = [];
  const codes: (number | undefined)[] = new Array(count).fill(undefined);
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;
  const killOthers = (except: number): void => {
    children.forEach((child, i) => {
      if (i !== except && running(child)) child.kill('SIGTERM');
    });
    setTimeout(() => {
      for (const child of children) if (running(child)) child.kill('SIGKILL');
    }, KILL_GRACE_MS).unref();
  };
  const name = (index: number): string => `process ${index} (${describeProcess(options.processes[index]!)})`;
  // The job's code is the first failure's own; a rank that failed because its link to a dying
  // peer broke waits a moment for that peer's own report (first-failure.ts).
  const arbiter = new FailureArbiter({
    graceMs: CONSEQUENCE_GRACE_MS,
    schedule: (callback, ms) => void setTimeout(callback, ms).unref(),
    onVerdict: ({ process: index, why }) => {
      // The launcher's own verdicts (a hang, a lost host, a signal) were said when they were reached.
      if (index !== LAUNCHER_INDEX) log(`tsmpi: ${name(index)} ${why}; stopping the others`);
      killOthers(index);
    },
  });
  // The processes hash the secret text the same way a user-supplied TSMPI_JOB_SECRET is hashed.
  const server = new RendezvousServer(Buffer.from(secretKey(secret), 'hex'), jobId, count, log, (index, code, consequence) =>
    arbiter.report(index, code, `reported a failed rank (exit code ${code})`, consequence),
  );
  const address = await server.listen(options.listenAddress);
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  // One hang report for the whole job: the processes report their ranks' progress, the launcher
  // judges, and every rank of every process says what it waits for, in rank order.
  const settings = readSettings(options.env, { localRanks: options.ranksPerProcess });
  const monitor = new JobMonitor({
    server,
    hangTimeout: settings.hangTimeout,
    hangWarn: settings.hangWarn,
    hostTimeout: settings.hostTimeout,
    size: options.np,
    processes: count,
    ranksOf: (index) => Array.from({ length: options.processes[index]!.count }, (_, k) => options.processes[index]!.first + k),
    endOf: (index) => codes[index],
    describe: name,
    log,
    onHang: () => arbiter.report(LAUNCHER_INDEX, HANG_EXIT_CODE, 'hang timeout', false),
    onLost: () => arbiter.report(LAUNCHER_INDEX, LOST_HOST_EXIT_CODE, 'a lost host', false),
    isOver: () => arbiter.verdict !== undefined,
  });
  for (let index = 0; index < count; index++) {
    const child = options.start(index, { port, secret, jobId });
    children.push(child);
    let over = false;
    const ended = (value: number, why: string): void => {
      if (over) return;
      over = true;
      // What the process said before it died arrives on its rendezvous connection: read it first.
      void server.drained(index, DRAIN_WAIT_MS).then(() => {
        codes[index] = value;
        monitor.ended(index);
        if (value !== 0) arbiter.exited(index, value, why);
        if (codes.every((c) => c !== undefined)) resolveDone(arbiter.finish()?.code ?? 0);
      });
    };
    // A command that cannot start (not found) emits 'error' and never 'exit'.
    child.on('error', (error) => {
      if (child.pid === undefined) ended(127, `could not start: ${error.message}`);
    });
    child.on('exit', (code, signal) => {
      const value = code ?? (signal ? 128 + (osConstants.signals[signal] ?? 15) : 1);
      ended(value, options.explainExit?.(index, value, signal) ?? (signal ? `was killed by ${signal}` : `exited with code ${value}`));
    });
  }
  // Ctrl-C / SIGTERM: the job ends with the signal's code (128 + n), whatever the processes'
  // own exits say (an ssh client ends with 255 when interrupted).
  const forward = (signal: NodeJS.Signals): void => {
    for (const child of children) if (running(child)) child.kill(signal);
    arbiter.report(LAUNCHER_INDEX, 128 + (osConstants.signals[signal] ?? 15), `interrupted by ${signal}`, false);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    return await done;
  } finally {
    monitor.stop();
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
    server.close();
    const recorded = recording(options.env);
    if (recorded !== undefined) for (const line of finishRecording(recorded, jobId, options.np)) log(line);
  }
}
