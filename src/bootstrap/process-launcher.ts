/**
 * `tsmpi run --procs` / `--ranks-per-proc K`: N ranks in ceil(N / K) processes of this machine,
 * each a `tsmpi exec` with K worker-thread ranks (shared memory inside a process, TCP between
 * processes). The launcher deals a fresh job secret, serves the rendezvous, and watches the
 * processes. The first failure sets the job's exit code (as mpirun): a process reports a failed
 * rank with its code through the rendezvous before it ends, or exits non-zero; the launcher then
 * takes the others down (SIGTERM, then SIGKILL after 1.5 s), and their own exits do not count.
 * Failures caused by another (a link to a dead peer) yield to their cause (first-failure.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as osConstantsAll } from 'node:os';
const osConstants = osConstantsAll as { signals: Record<string, number> };
import { fileURLToPath } from 'node:url';
import { secretKey } from './exec-host.js';
import { FailureArbiter } from './first-failure.js';
import { RendezvousServer } from './launcher-rendezvous.js';
import { withAllocatorDefaults } from './allocator-env.js';
import { HANG_EXIT_CODE, JobMonitor } from './job-monitor.js';
import { readSettings } from '../config/tunables.js';

export interface ProcessJobOptions {
  np: number;
  ranksPerProcess: number;
  program: string;
  args: string[];
  env: Record<string, string | undefined>;
  tagOutput: boolean;
  /** Process i runs in network namespace namespaces[i mod count] (`ip netns exec`). */
  namespaces?: readonly string[];
  /** Where the rendezvous listens. @default '127.0.0.1' */
  rendezvousAddress?: string;
  log?: (line: string) => void;
}

const cli = fileURLToPath(new URL('../cli/main.js', import.meta.url));
const KILL_GRACE_MS = 1500;
/** How long a rank's "link to a peer broke" waits for that peer's own failure (ms). */
const CONSEQUENCE_GRACE_MS = 1000;
/** How long the exit of a process waits for the rest of its rendezvous connection (ms). */
const DRAIN_WAIT_MS = 200;
/** The launcher's own failures (a hang) in the failure arbiter. */
const LAUNCHER_INDEX = -1;

export async function runProcessJob(options: ProcessJobOptions): Promise<number> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const processes = Math.ceil(options.np / options.ranksPerProcess);
  const secret = randomBytes(32).toString('hex');
  const jobId = `procs-${process.pid}-${Date.now()}`;
  // The processes hash the secret text the same way a user-supplied TSMPI_JOB_SECRET is hashed.
  const children: ChildProcess[] = [];
  const codes: (number | undefined)[] = new Array(processes).fill(undefined);
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  const killOthers = (except: number): void => {
    children.forEach((child, i) => {
      if (i !== except && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
    setTimeout(() => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }, KILL_GRACE_MS).unref();
  };
  const rankRange = (index: number): string => {
    const first = index * options.ranksPerProcess;
    const last = Math.min(first + options.ranksPerProcess, options.np) - 1;
    return first === last ? `rank ${first}` : `ranks ${first}..${last}`;
  };
  // The job's code is the first failure's own; a rank that failed because its link to a dying
  // peer broke waits a moment for that peer's own report (first-failure.ts).
  const arbiter = new FailureArbiter({
    graceMs: CONSEQUENCE_GRACE_MS,
    schedule: (callback, ms) => void setTimeout(callback, ms).unref(),
    onVerdict: ({ process: index, why }) => {
      // The launcher's own verdict (a hang) was said in its report.
      if (index !== LAUNCHER_INDEX) log(`tsmpi: process ${index} (${rankRange(index)}) ${why}; stopping the others`);
      killOthers(index);
    },
  });
  const server = new RendezvousServer(Buffer.from(secretKey(secret), 'hex'), jobId, processes, log, (index, code, consequence) =>
    arbiter.report(index, code, `reported a failed rank (exit code ${code})`, consequence),
  );
  const rendezvous = await server.listen(options.rendezvousAddress ?? '127.0.0.1');
  // One hang report for the whole job: the processes report their ranks' progress, the launcher
  // judges, and every rank of every process says what it waits for, in rank order.
  const settings = readSettings(options.env, { localRanks: options.ranksPerProcess });
  const monitor = new JobMonitor({
    server,
    hangTimeout: settings.hangTimeout,
    hangWarn: settings.hangWarn,
    size: options.np,
    processes,
    ranksOf: (index) => Array.from({ length: Math.min(options.ranksPerProcess, options.np - index * options.ranksPerProcess) }, (_, k) => index * options.ranksPerProcess + k),
    endOf: (index) => codes[index],
    log,
    onHang: () => arbiter.report(LAUNCHER_INDEX, HANG_EXIT_CODE, 'hang timeout', false),
    isOver: () => arbiter.verdict !== undefined,
  });
  for (let index = 0; index < processes; index++) {
    const first = index * options.ranksPerProcess;
    const env: Record<string, string | undefined> = {
      ...withAllocatorDefaults(options.env),
      TSMPI_LAUNCHER: 'processes',
      TSMPI_SIZE: String(options.np),
      TSMPI_PROC_FIRST: String(first),
      TSMPI_PROC_COUNT: String(Math.min(options.ranksPerProcess, options.np - first)),
      TSMPI_PROC_INDEX: String(index),
      TSMPI_RENDEZVOUS: rendezvous,
      TSMPI_JOB_SECRET: secret,
      TSMPI_JOB_ID: jobId,
    };
    const command = [process.execPath, cli, 'exec', ...(options.tagOutput ? ['--tag-output'] : []), options.program, ...options.args];
    const namespace = options.namespaces?.length ? options.namespaces[index % options.namespaces.length] : undefined;
    // `ip netns exec` execs the command: the child's pid is the rank process's.
    const child = namespace === undefined ? spawn(command[0]!, command.slice(1), { env, stdio: 'inherit' }) : spawn('ip', ['netns', 'exec', namespace, ...command], { env, stdio: 'inherit' });
    children.push(child);
    child.on('exit', (code, signal) => {
      const value = code ?? (signal ? 128 + (osConstants.signals[signal] ?? 15) : 1);
      // What the process said before it died arrives on its rendezvous connection: read it first.
      void server.drained(index, DRAIN_WAIT_MS).then(() => {
        codes[index] = value;
        monitor.ended(index);
        if (value !== 0) arbiter.exited(index, value, signal ? `was killed by ${signal}` : `exited with code ${value}`);
        if (codes.every((c) => c !== undefined)) resolveDone(arbiter.finish()?.code ?? 0);
      });
    });
  }
  const forward = (signal: NodeJS.Signals): void => {
    for (const child of children) child.kill(signal);
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
  }
}
