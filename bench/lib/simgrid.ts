/**
 * Runs SimGrid 3.32's trace replayer (`smpirun -replay ... smpireplaymain`, Debian's
 * libsimgrid-dev) and tsmpi's simulator on the same platform file and TI trace, for the comparison
 * in docs/simulator.md (bench sim-simgrid) and its test (test/integration/sim-simgrid.test.ts).
 *
 * What SimGrid is asked to model, and why (each is the closest match to what tsmpi simulates):
 * - `network/model:CM02`: max-min sharing with no latency or bandwidth correction factors
 *   (SimGrid's default SMPI model applies piecewise factors measured on a real cluster);
 * - `network/crosstraffic:0`: no reverse-direction acknowledgement flow per message;
 * - `smpi/send-is-detached-thresh` and `smpi/async-small-thresh` at 65537: messages up to 64 KiB
 *   are eager (the sender goes on at once and the bytes start at once), larger ones rendezvous
 *   (the transfer starts when both sides are there and the send completes when it arrives), which
 *   is tsmpi's TSMPI_EAGER_LIMIT;
 * - collectives pinned to tsmpi's algorithms: pairwise-shift alltoall(v) (SimGrid `ring`),
 *   recursive-doubling allreduce (`rdb`), binomial bcast, reduce, gather and scatter,
 *   Bruck allgather, dissemination barrier (`ompi_bruck`).
 * SimGrid's TCP-gamma (4194304) is left at its default; tsmpi's flow model has the same default.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const SIMGRID_REPLAYER_PATHS = ['/usr/lib/x86_64-linux-gnu/simgrid/smpireplaymain', '/usr/lib/aarch64-linux-gnu/simgrid/smpireplaymain', '/usr/lib/simgrid/smpireplaymain'];

export const SIMGRID_MATCHING_CONFIG: readonly string[] = [
  'network/model:CM02',
  'network/crosstraffic:0',
  'smpi/send-is-detached-thresh:65537',
  'smpi/async-small-thresh:65537',
  'smpi/alltoall:ring',
  'smpi/alltoallv:ring',
  'smpi/allreduce:rdb',
  'smpi/bcast:binomial_tree',
  'smpi/reduce:binomial',
  'smpi/gather:ompi_binomial',
  'smpi/scatter:ompi_binomial',
  'smpi/allgather:bruck',
  'smpi/barrier:ompi_bruck',
];

export interface SimgridTools {
  smpirun: string;
  replayer: string;
  version: string;
}

/** SimGrid's smpirun and trace replayer, if installed. */
export function findSimgrid(): SimgridTools | undefined {
  const which = spawnSync('sh', ['-c', 'command -v smpirun'], { encoding: 'utf8' });
  const smpirun = which.stdout.trim();
  const replayer = SIMGRID_REPLAYER_PATHS.find((p) => existsSync(p));
  if (which.status !== 0 || smpirun === '' || replayer === undefined) return undefined;
  const v = spawnSync(smpirun, ['-version'], { encoding: 'utf8' });
  const version = /SimGrid version ([\d.]+)/.exec(`${v.stdout}${v.stderr}`)?.[1] ?? 'unknown';
  return { smpirun, replayer, version };
}

export interface SimgridReplay {
  makespan: number;
  wallSeconds: number;
}

/** Replays `description` (one TI file per rank) on `platform` with SimGrid; host i runs rank i. */
export function simgridReplay(tools: SimgridTools, options: { platform: string; description: string; hostfile: string; np: number; config?: readonly string[] }): SimgridReplay {
  const config = options.config ?? SIMGRID_MATCHING_CONFIG;
  const args = ['-np', String(options.np), '-platform', options.platform, '-hostfile', options.hostfile, '-replay', options.description, ...config.map((c) => `--cfg=${c}`), tools.replayer];
  const started = performance.now();
  const out = spawnSync(tools.smpirun, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 600_000 });
  const wallSeconds = (performance.now() - started) / 1000;
  const text = `${out.stdout}${out.stderr}`;
  // Each rank prints "Simulation time T" as it finishes: the makespan is the largest.
  const times = [...text.matchAll(/Simulation time ([\d.eE+-]+)/g)].map((m) => Number(m[1]));
  if (out.status !== 0 || times.length === 0) throw new Error(`smpirun ${args.join(' ')} failed (status ${out.status}):\n${text.slice(-3000)}`);
  return { makespan: Math.max(...times), wallSeconds };
}
