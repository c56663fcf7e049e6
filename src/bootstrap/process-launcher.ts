/**
 * `tsmpi run --procs` / `--ranks-per-proc K`: N ranks in ceil(N / K) processes of this machine,
 * each a `tsmpi exec` with K worker-thread ranks (shared memory inside a process, TCP between
 * processes). The supervisor (job-supervisor.ts) serves the rendezvous and watches them. The
 * program is compiled once, here, before any process starts: the processes import its bundle
 * (TSMPI_APP_BUNDLE), and a program that does not compile fails the job once, with no rank started.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withAllocatorDefaults } from './allocator-env.js';
import { APP_BUNDLE_ENV, prepareApp } from './app-loader.js';
import { rankProcessFlags } from './node-flags.js';
import { superviseJob, type SupervisedProcess } from './job-supervisor.js';

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

export const cliPath = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export async function runProcessJob(options: ProcessJobOptions): Promise<number> {
  const app = await prepareApp(options.program);
  try {
    return await superviseProcesses(options, app.bundle);
  } finally {
    app.cleanup();
  }
}

async function superviseProcesses(options: ProcessJobOptions, bundle: string | undefined): Promise<number> {
  const processes: SupervisedProcess[] = [];
  for (let first = 0; first < options.np; first += options.ranksPerProcess) processes.push({ first, count: Math.min(options.ranksPerProcess, options.np - first) });
  const rendezvousAddress = options.rendezvousAddress ?? '127.0.0.1';
  return superviseJob({
    np: options.np,
    processes,
    env: options.env,
    ranksPerProcess: options.ranksPerProcess,
    listenAddress: rendezvousAddress,
    ...(options.log ? { log: options.log } : {}),
    start: (index, job) => {
      const { first, count } = processes[index]!;
      const env: Record<string, string | undefined> = {
        ...withAllocatorDefaults(options.env),
        TSMPI_LAUNCHER: 'processes',
        TSMPI_SIZE: String(options.np),
        TSMPI_PROC_FIRST: String(first),
        TSMPI_PROC_COUNT: String(count),
        TSMPI_PROC_INDEX: String(index),
        TSMPI_RENDEZVOUS: `${rendezvousAddress}:${job.port}`,
        TSMPI_JOB_SECRET: job.secret,
        TSMPI_JOB_ID: job.jobId,
      };
      // Never a bundle from an enclosing job's environment: a JavaScript program is imported as it is.
      if (bundle !== undefined) env[APP_BUNDLE_ENV] = bundle;
      else delete env[APP_BUNDLE_ENV];
      const command = [process.execPath, ...rankProcessFlags(process.execArgv), cliPath, 'exec', ...(options.tagOutput ? ['--tag-output'] : []), options.program, ...options.args];
      const namespace = options.namespaces?.length ? options.namespaces[index % options.namespaces.length] : undefined;
      // `ip netns exec` execs the command: the child's pid is the rank process's.
      return namespace === undefined ? spawn(command[0]!, command.slice(1), { env, stdio: 'inherit' }) : spawn('ip', ['netns', 'exec', namespace, ...command], { env, stdio: 'inherit' });
    },
  });
}
