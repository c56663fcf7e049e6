/**
 * The job manager's resource list (the seed's "job information"): how many tasks, which one this
 * process hosts, the nodes, the node of every task, local ranks, pids and addresses. Built from
 * tsmpi's own launchers or from SLURM's variables; refined by the rendezvous, where every member
 * publishes its node, pid and address.
 */
import { hostname } from 'node:os';
import { ErrorCode, TsmpiError } from '../errors.js';
import { expandHostlist, expandTaskCounts } from './hostlist.js';

export interface JobInfo {
  /** Who started the job. */
  readonly launcher: 'threads' | 'processes' | 'hosts' | 'slurm' | 'singleton';
  readonly jobId: string;
  /** Tasks in the job (the seed's tasksize). */
  readonly size: number;
  /** Resource ids this process hosts (consecutive: first .. first + count - 1). */
  readonly first: number;
  readonly count: number;
  /** Node names, in node order. */
  readonly nodes: readonly string[];
  /** Node index of every task, in resource order. */
  readonly nodeOfRank: readonly number[];
  /** Task index within its node, in resource order. */
  readonly localRankOf: readonly number[];
  /** Process id of every task, in resource order (0 while unknown). */
  readonly pids: readonly number[];
  /** Network address of every task's endpoint, in resource order ('' while unknown). */
  readonly addresses: readonly string[];
}

function initError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Init, message, { operation: 'init', hint });
}

function intVar(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw initError(`${name}=${JSON.stringify(text)} is not a task number`, `check the job manager's ${name}`);
  return value;
}

/** Block distribution of tasks over nodes (SLURM's default, and `tsmpi run --procs`). */
export function blockLayout(countsPerNode: readonly number[]): { nodeOfRank: number[]; localRankOf: number[] } {
  const nodeOfRank: number[] = [];
  const localRankOf: number[] = [];
  countsPerNode.forEach((count, node) => {
    for (let i = 0; i < count; i++) {
      nodeOfRank.push(node);
      localRankOf.push(i);
    }
  });
  return { nodeOfRank, localRankOf };
}

/**
 * The job as SLURM describes it to one task, or undefined when this is not a SLURM job step.
 * Nodes come from SLURM_STEP_NODELIST (the step's nodes, not the allocation's), task counts from
 * SLURM_STEP_TASKS_PER_NODE; the node of each task assumes SLURM's default block distribution and
 * is replaced by what the tasks publish at the rendezvous.
 */
export function slurmJobInfo(env: NodeJS.ProcessEnv): JobInfo | undefined {
  const procId = intVar(env, 'SLURM_PROCID');
  const tasks = intVar(env, 'SLURM_STEP_NUM_TASKS') ?? intVar(env, 'SLURM_NTASKS') ?? intVar(env, 'SLURM_NPROCS');
  if (procId === undefined || tasks === undefined) return undefined;
  if (procId >= tasks) throw initError(`SLURM_PROCID=${procId} is not below the task count ${tasks}`, 'check the job manager environment');
  const nodes = expandHostlist(env.SLURM_STEP_NODELIST ?? env.SLURM_JOB_NODELIST ?? env.SLURM_NODELIST ?? hostname());
  const counts = expandTaskCounts(env.SLURM_STEP_TASKS_PER_NODE ?? env.SLURM_TASKS_PER_NODE ?? String(tasks));
  if (counts.length !== nodes.length || counts.reduce((a, b) => a + b, 0) !== tasks) {
    throw initError(
      `SLURM's node list (${nodes.length} nodes) and task counts (${counts.join(',')}) do not describe ${tasks} tasks`,
      'tsmpi reads SLURM_STEP_NODELIST and SLURM_STEP_TASKS_PER_NODE; run it with srun inside an allocation',
    );
  }
  const { nodeOfRank, localRankOf } = blockLayout(counts);
  return {
    launcher: 'slurm',
    jobId: `${env.SLURM_JOB_ID ?? '0'}.${env.SLURM_STEP_ID ?? '0'}`,
    size: tasks,
    first: procId,
    count: 1,
    nodes,
    nodeOfRank,
    localRankOf,
    pids: new Array<number>(tasks).fill(0),
    addresses: new Array<string>(tasks).fill(''),
  };
}

/**
 * The job as `tsmpi run --procs` or `--hostfile` describes it to one process (TSMPI_* variables):
 * with hosts, TSMPI_JOB_NODES names them and TSMPI_JOB_NODE_OF_RANK gives each rank's, so that
 * local ranks are known before the rendezvous.
 */
export function launcherJobInfo(env: NodeJS.ProcessEnv): JobInfo | undefined {
  const launcher = env.TSMPI_LAUNCHER;
  if (launcher !== 'processes' && launcher !== 'hosts') return undefined;
  const size = intVar(env, 'TSMPI_SIZE');
  const first = intVar(env, 'TSMPI_PROC_FIRST');
  const count = intVar(env, 'TSMPI_PROC_COUNT');
  if (size === undefined || first === undefined || count === undefined) {
    throw initError(`TSMPI_LAUNCHER=${launcher} without TSMPI_SIZE, TSMPI_PROC_FIRST and TSMPI_PROC_COUNT`, 'start processes with `tsmpi run --procs` or `tsmpi run --hostfile`');
  }
  const named = env.TSMPI_JOB_NODES?.split(',').filter((n) => n !== '');
  const given = env.TSMPI_JOB_NODE_OF_RANK?.split(',').map(Number);
  if (named !== undefined && given !== undefined && (given.length !== size || given.some((n) => !Number.isInteger(n) || n < 0 || n >= named.length))) {
    throw initError(`TSMPI_JOB_NODE_OF_RANK does not give one of ${named.length} nodes for each of ${size} ranks`, 'start processes with `tsmpi run --hostfile`');
  }
  // Without the node lists (--procs), every process is on this machine.
  const hosts = named !== undefined && given !== undefined;
  const nodeOfRank = hosts ? given : new Array<number>(size).fill(0);
  return {
    launcher,
    jobId: env.TSMPI_JOB_ID ?? '0',
    size,
    first,
    count,
    nodes: hosts ? named : [env.TSMPI_NODE ?? hostname()],
    nodeOfRank,
    localRankOf: nodeLocal(nodeOfRank).localRank,
    pids: new Array<number>(size).fill(0),
    addresses: new Array<string>(size).fill(''),
  };
}

/** A job of `size` worker-thread ranks in this process. */
export function threadJobInfo(size: number, jobId: string): JobInfo {
  return {
    launcher: 'threads',
    jobId,
    size,
    first: 0,
    count: size,
    nodes: [hostname()],
    nodeOfRank: new Array<number>(size).fill(0),
    localRankOf: Array.from({ length: size }, (_, i) => i),
    pids: new Array<number>(size).fill(process.pid),
    addresses: new Array<string>(size).fill(''),
  };
}

/**
 * The process of every task as an index (tasks of one process share it: same node, same pid), in
 * resource order; empty while some pid is unknown.
 */
export function processIndexes(job: JobInfo): number[] {
  if (job.pids.some((pid) => pid === 0)) return [];
  const seen = new Map<string, number>();
  return job.pids.map((pid, i) => {
    const key = `${job.nodeOfRank[i] ?? 0}:${pid}`;
    let index = seen.get(key);
    if (index === undefined) seen.set(key, (index = seen.size));
    return index;
  });
}

/**
 * Each rank's place among the ranks of its node, and how many its node has (what MPI launchers
 * export as OMPI_COMM_WORLD_LOCAL_RANK / LOCAL_SIZE, e.g. to pick a device per rank).
 */
export function nodeLocal(nodeOfRank: readonly number[]): { localRank: number[]; localSize: number[] } {
  const seen = new Map<number, number>();
  const localRank = nodeOfRank.map((node) => {
    const index = seen.get(node) ?? 0;
    seen.set(node, index + 1);
    return index;
  });
  return { localRank, localSize: nodeOfRank.map((node) => seen.get(node)!) };
}
