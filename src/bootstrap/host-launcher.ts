/**
 * `tsmpi run --hostfile FILE` / `-H a:4,b:4`: a job on several machines without a job manager,
 * as mpirun starts one. Ranks are mapped to the hosts' slots (rank-mapping.ts); each run of
 * consecutive ranks on a host is one `tsmpi exec` process there, started over the launch agent
 * (ssh; on this machine, directly). The supervisor (job-supervisor.ts) serves the rendezvous on
 * this machine's address toward the hosts and watches the processes.
 *
 * The job secret travels on each process's stdin, never in a command line or an environment a
 * host could list; a process ends when its stdin closes (its launcher, or the ssh session, is
 * gone). Only TSMPI_* variables and those named with -x reach other hosts, as with mpirun.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';
import { withAllocatorDefaults } from './allocator-env.js';
import { isThisMachine, resolveIPv4, sourceAddressToward } from './host-addresses.js';
import { superviseJob, type SupervisedProcess } from './job-supervisor.js';
import { remoteCommand } from './launch-agent.js';
import type { HostEntry } from './mpirun-hosts.js';
import { cliPath } from './process-launcher.js';
import { mapRanks, placeProcesses, type MapBy } from './rank-mapping.js';

export interface HostJobOptions {
  /** Ranks; undefined: one per slot. */
  np: number | undefined;
  hosts: readonly HostEntry[];
  mapBy: MapBy;
  oversubscribe: boolean;
  /** At most this many ranks per process (undefined: a host's consecutive ranks share one). */
  ranksPerProcess: number | undefined;
  program: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** Variables named with -x: they reach the other hosts too. */
  exports: readonly string[];
  tagOutput: boolean;
  launchAgent: readonly string[];
  /** Where the rendezvous listens (undefined: this machine's address toward the hosts). */
  rendezvousAddress: string | undefined;
  log?: (line: string) => void;
}

/** How long asking a host for its cores may take (ms). */
const CORES_TIMEOUT_MS = 30_000;

interface Host {
  readonly entry: HostEntry;
  readonly local: boolean;
}

/** A host's cores, asked over the launch agent (`nproc`), for a hostfile line without slots. */
function remoteCores(agent: readonly string[], host: HostEntry): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(agent[0]!, [...agent.slice(1), host.target, 'nproc'], { timeout: CORES_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout, stderr) => {
      const cores = Number(stdout.trim());
      if (error === null && Number.isInteger(cores) && cores > 0) {
        resolve(cores);
        return;
      }
      reject(
        new TsmpiError(ErrorCode.Init, `cannot ask ${host.name} (${host.origin}) for its cores over \`${agent.join(' ')}\`: ${(stderr.trim() || error?.message) ?? `it answered ${JSON.stringify(stdout)}`}`, {
          operation: 'tsmpi run',
          hint: 'give its slots (slots=N in the hostfile, host:N with -H), and check that `ssh HOST true` works without a password (BatchMode)',
        }),
      );
    });
  });
}

/** The address each host reaches the rendezvous by, and where it listens. */
async function rendezvousPlan(hosts: readonly Host[], configured: string | undefined): Promise<{ listen: string; reach: (host: number) => string }> {
  const remote = hosts.map((h, i) => ({ h, i })).filter(({ h }) => !h.local);
  if (configured !== undefined) {
    const loop = configured.startsWith('127.') || configured === 'localhost';
    if (loop && remote.length > 0) {
      throw new TsmpiError(ErrorCode.Arg, `--rendezvous-address ${configured} is this machine's loopback, which ${remote[0]!.h.entry.name} cannot reach`, {
        operation: 'tsmpi run',
        hint: 'give an address of this machine that every host reaches, or leave --rendezvous-address out (then it is the address each host is reached from)',
      });
    }
    return { listen: configured, reach: () => configured };
  }
  if (remote.length === 0) return { listen: '127.0.0.1', reach: () => '127.0.0.1' };
  const toward = new Map<number, string>();
  for (const { h, i } of remote) {
    const address = await resolveIPv4(h.entry.name);
    const source = address === undefined ? undefined : await sourceAddressToward(address);
    if (source === undefined) {
      throw new TsmpiError(ErrorCode.Init, `${address === undefined ? `${h.entry.name} does not resolve to an IPv4 address` : `this machine has no route to ${h.entry.name} (${address})`}, so it cannot tell which of its addresses that host reaches`, {
        operation: 'tsmpi run',
        hint: 'give --rendezvous-address ADDR, an address of this machine that every host reaches',
      });
    }
    toward.set(i, source);
  }
  const distinct = new Set(toward.values());
  // One network: listen there alone. Several: every address, each host told its own.
  const listen = distinct.size === 1 ? [...distinct][0]! : '0.0.0.0';
  return { listen, reach: (host) => toward.get(host) ?? (listen === '0.0.0.0' ? '127.0.0.1' : listen) };
}

export async function runHostJob(options: HostJobOptions): Promise<number> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const agent = options.launchAgent;
  const hosts: Host[] = await Promise.all(options.hosts.map(async (entry) => ({ entry, local: await isThisMachine(entry.name) })));
  const slots = await Promise.all(hosts.map(async (h) => h.entry.slots ?? (h.local ? availableParallelism() : await remoteCores(agent, h.entry))));
  const np = options.np ?? slots.reduce((a, b) => a + b, 0);
  if (np < 1) throw new TsmpiError(ErrorCode.Arg, 'the hosts have no slots', { operation: 'tsmpi run', hint: 'give -n N, or slots=N in the hostfile' });
  const hostOfRank = mapRanks(
    hosts.map((h, i) => ({ name: h.entry.name, slots: slots[i]!, maxSlots: h.entry.maxSlots })),
    np,
    options.mapBy,
    options.oversubscribe,
  );
  const placements = placeProcesses(hostOfRank, options.ranksPerProcess);
  // The job's nodes: the hosts that have ranks, in the order of their first rank.
  const used = [...new Set(hostOfRank)];
  const usedHosts = used.map((i) => hosts[i]!);
  const plan = await rendezvousPlan(usedHosts, options.rendezvousAddress);
  const processes: SupervisedProcess[] = placements.map((p) => ({ first: p.first, count: p.count, host: hosts[p.host]!.entry.name }));
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) {
    if (value !== undefined && (name.startsWith('TSMPI_') || options.exports.includes(name)) && name !== 'TSMPI_JOB_SECRET') forwarded[name] = value;
  }
  const jobNodes = usedHosts.map((h) => h.entry.name).join(',');
  const nodeOfRank = hostOfRank.map((h) => used.indexOf(h)).join(',');
  const maxPerProcess = Math.max(...placements.map((p) => p.count));
  return superviseJob({
    np,
    processes,
    env: options.env,
    ranksPerProcess: maxPerProcess,
    listenAddress: plan.listen,
    log,
    explainExit: (index, code, signal) => {
      const p = placements[index]!;
      const name = hosts[p.host]!.entry.name;
      if (hosts[p.host]!.local || signal !== null) return undefined;
      if (code === 255) return `ended with ssh's 255: it could not connect, the connection dropped, or the process on ${name} was killed`;
      // The remote shell's codes for a command it could not find or run: the paths differ there.
      if (code === 126 || code === 127) {
        return `exited with code ${code}: ${name} could not run ${process.execPath} ${cliPath}; every host needs Node and tsmpi at the same paths as this machine (a shared file system, or the same install)`;
      }
      return undefined;
    },
    start: (index, job) => {
      const p = placements[index]!;
      const host = hosts[p.host]!;
      const jobVars: Record<string, string> = {
        TSMPI_LAUNCHER: 'hosts',
        TSMPI_SIZE: String(np),
        TSMPI_PROC_FIRST: String(p.first),
        TSMPI_PROC_COUNT: String(p.count),
        TSMPI_PROC_INDEX: String(index),
        TSMPI_RENDEZVOUS: `${plan.reach(used.indexOf(p.host))}:${job.port}`,
        TSMPI_JOB_ID: job.jobId,
        TSMPI_NODE: host.entry.name,
        TSMPI_JOB_NODES: jobNodes,
        TSMPI_JOB_NODE_OF_RANK: nodeOfRank,
      };
      const argv = [process.execPath, cliPath, 'exec', '--secret-stdin', ...(options.tagOutput ? ['--tag-output'] : []), options.program, ...options.args];
      let child: ChildProcess;
      if (host.local) {
        const env = { ...withAllocatorDefaults(options.env), ...jobVars };
        delete env.TSMPI_JOB_SECRET;
        child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['pipe', 'inherit', 'inherit'] });
      } else {
        // Another machine's clock: its timeline is moved onto the launcher's (measured at init).
        const env = { ...(withAllocatorDefaults(forwarded) as Record<string, string>), ...jobVars, TSMPI_CLOCK_SYNC: '1' };
        child = spawn(agent[0]!, [...agent.slice(1), host.entry.target, remoteCommand(process.cwd(), env, argv)], { stdio: ['pipe', 'inherit', 'inherit'] });
      }
      // The secret on stdin, which stays open: its end tells the process that the launcher is gone.
      child.stdin?.on('error', () => {});
      child.stdin?.write(`${job.secret}\n`);
      return child;
    },
  });
}
