/**
 * `tsmpi exec app.ts`: this process's share of a job that something else started: SLURM (one
 * task per process, the world found through srun's PMI-2) or `tsmpi run --procs` (one or more
 * ranks per process, the world found through the launcher's rendezvous). Ranks of this process
 * talk through shared memory, the others through TCP.
 */
import { finishRecording, recording } from '../trace/trace-files.js';
import { createHash, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';
import { readSettings } from '../config/tunables.js';
import { APP_BUNDLE_ENV, loadPreparedApp, prepareApp } from './app-loader.js';
import { launcherJobInfo, slurmJobInfo, type JobInfo } from './job-info.js';
import { sourceAddressToward } from './host-addresses.js';
import { COORDINATOR_KEY, CoordinatedRendezvous } from './coordinated-rendezvous.js';
import { LauncherRendezvous, RendezvousServer } from './launcher-rendezvous.js';
import { listenAddress } from './listen-address.js';
import { participation, ruleFromEnv } from './participation.js';
import { Pmi2Rendezvous } from './pmi2.js';
import { RankHost, SECRET_KEY } from './rank-host.js';
import { runThreadJob } from './thread-launcher.js';
import type { Rendezvous } from './rendezvous.js';

export interface ExecOptions {
  program: string;
  args: string[];
  env: Record<string, string | undefined>;
  tagOutput: boolean;
  /**
   * The job secret is the first line of stdin (`tsmpi run --hostfile`: never in the arguments or
   * the environment of a process on another host), and stdin's end means the launcher is gone.
   */
  secretFromStdin?: boolean;
  log?: (line: string) => void;
}

/** The first line of stdin; then `onEnd` once stdin closes. */
function readSecretLine(onEnd: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let got = false;
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => {
      if (got) return;
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        got = true;
        // Still heard (its end), but no reason to keep the process alive.
        (process.stdin as { unref?: () => void }).unref?.();
        resolve(text.slice(0, nl).trim());
      }
    });
    process.stdin.once('end', () => {
      if (!got) reject(new TsmpiError(ErrorCode.Init, 'stdin closed before the job secret arrived', { operation: 'tsmpi exec', hint: '--secret-stdin is for processes started by `tsmpi run --hostfile`' }));
      else onEnd();
    });
  });
}

/** Any secret text becomes a 32-byte key (hex), the same in every process. */
export function secretKey(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Where this process's ranks listen: TSMPI_TCP_ADDRESS when set; with hosts, the address this
 * host reaches the launcher from (the one its peers reach it by, on the same network); else
 * loopback for --procs and the first non-loopback address under SLURM.
 */
async function rankAddress(configured: string, launcher: JobInfo['launcher'], rendezvous: string | undefined): Promise<string> {
  if (configured !== '' || launcher !== 'hosts' || rendezvous === undefined) return listenAddress(configured, launcher === 'processes');
  return (await sourceAddressToward(rendezvous.slice(0, rendezvous.lastIndexOf(':')))) ?? listenAddress('', false);
}

export async function runExec(options: ExecOptions): Promise<number> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const env = options.env;
  const job = slurmJobInfo(env) ?? launcherJobInfo(env);
  if (job === undefined) {
    // Not started by a job manager: a world of one rank.
    return runThreadJob({ np: 1, program: options.program, args: options.args, env, tagOutput: options.tagOutput, log });
  }
  const part = participation(ruleFromEnv(env, job.size), job.size);
  const localMembers = Array.from({ length: job.count }, (_, i) => job.first + i).filter((id) => part.rankOf[id]! >= 0).length;
  // Over ssh, stdin is the launcher's channel (the secret, then its end): no rank's input.
  const settings = readSettings(options.secretFromStdin ? { ...env, TSMPI_STDIN: 'none' } : env, { localRanks: Math.max(1, localMembers), cores: availableParallelism(), remotePeers: true });
  let rendezvous: Rendezvous;
  let coordinator: RendezvousServer | undefined;
  let launcherGone: ((why: string) => void) | undefined;
  let goneEarly = false;
  const stdinSecret = options.secretFromStdin
    ? await readSecretLine(() => {
        if (launcherGone !== undefined) launcherGone('its channel, stdin, closed');
        else goneEarly = true;
      })
    : undefined;
  const secretText = stdinSecret ?? env.TSMPI_JOB_SECRET;
  let secret: string | undefined = secretText ? secretKey(secretText) : undefined;
  const publish: Record<string, string> = {};
  if (job.launcher === 'slurm') {
    const pmi = await Pmi2Rendezvous.connect(env);
    if (pmi === undefined) {
      if (job.size > 1) {
        throw new TsmpiError(ErrorCode.Init, `SLURM started ${job.size} tasks without PMI-2, so they cannot find each other`, {
          rank: job.first,
          operation: 'tsmpi exec',
          hint: 'run `srun --mpi=pmi2 tsmpi exec app.ts`, or set MpiDefault=pmi2 in slurm.conf',
        });
      }
      return runThreadJob({ np: 1, program: options.program, args: options.args, env, tagOutput: options.tagOutput, log });
    }
    if (pmi.size !== job.size || pmi.rank !== job.first) {
      throw new TsmpiError(ErrorCode.Init, `PMI-2 says task ${pmi.rank} of ${pmi.size}, SLURM's variables say ${job.first} of ${job.size}`, {
        rank: job.first,
        operation: 'tsmpi exec',
        hint: 'run one tsmpi exec per srun task',
      });
    }
    if (secret === undefined && job.first === 0) {
      // Only the job's own tasks can read srun's key-value store: resource 0 deals the secret.
      publish[SECRET_KEY] = randomBytes(32).toString('hex');
    }
    const key = secret ?? publish[SECRET_KEY];
    if (job.first === 0 && key !== undefined) {
      // Task 0's process also serves the job's coordinator: notices of ranks that end, and the
      // job-wide hang watch (coordinated-rendezvous.ts).
      coordinator = new RendezvousServer(Buffer.from(key, 'hex'), job.jobId, job.size, log);
      publish[COORDINATOR_KEY] = await coordinator.listen(listenAddress(settings.tcpAddress, false));
    }
    const known = secret;
    rendezvous = new CoordinatedRendezvous(pmi, job.jobId, job.first, async () => known ?? (await pmi.get(SECRET_KEY)), log, settings.hostTimeout);
  } else {
    if (secret === undefined || env.TSMPI_RENDEZVOUS === undefined) {
      throw new TsmpiError(ErrorCode.Init, 'TSMPI_RENDEZVOUS and TSMPI_JOB_SECRET are missing', { operation: 'tsmpi exec', hint: 'processes of a tsmpi job are started by `tsmpi run --procs` or `tsmpi run --hostfile`' });
    }
    const client = new LauncherRendezvous(env.TSMPI_RENDEZVOUS, Buffer.from(secret, 'hex'), job.jobId, Number(env.TSMPI_PROC_INDEX ?? 0), {
      silenceSeconds: settings.hostTimeout,
      ...(env.TSMPI_NODE ? { host: env.TSMPI_NODE } : {}),
      ...(job.launcher === 'hosts' ? { hint: 'the launcher serves the rendezvous on --rendezvous-address (default: its address toward each host); it must be reachable from every host: check routes and firewalls' } : {}),
    });
    launcherGone = (why) => client.lost(why);
    if (goneEarly) client.lost('its channel, stdin, closed');
    rendezvous = client;
  }
  // A process of `tsmpi run --procs` imports the bundle its launcher compiled (process-launcher.ts).
  const bundle = env.TSMPI_LAUNCHER === 'processes' ? env[APP_BUNDLE_ENV] : undefined;
  const app = bundle !== undefined && bundle !== '' ? loadPreparedApp(bundle, options.program) : await prepareApp(options.program, 'tsmpi exec');
  try {
    const code = await new RankHost({
      app,
      args: options.args,
      env,
      settings,
      job,
      participation: part,
      tagOutput: options.tagOutput,
      layout: settings.memoryBalance === 'shared' ? 'node-shared' : 'per-receiver',
      remote: { rendezvous, listenHost: await rankAddress(settings.tcpAddress, job.launcher, env.TSMPI_RENDEZVOUS), ...(secret ? { secret } : {}), publish },
      ...(coordinator !== undefined ? { coordinator } : {}),
      log,
    }).run();
    // The coordinator stays until every task's process has ended (they talk through it).
    await coordinator?.allClosed();
    // Under srun no launcher outlives the tasks: task 0 merges the job's timeline once all ended.
    const recorded = recording(env);
    if (coordinator !== undefined && recorded !== undefined) for (const line of finishRecording(recorded, job.jobId, part.members.length)) log(line);
    return code;
  } finally {
    coordinator?.close();
    app.cleanup();
  }
}
