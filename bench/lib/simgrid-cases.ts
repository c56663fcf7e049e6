/**
 * The cases of the SimGrid comparison: a workload, its parameters and a platform file. Each is
 * written as TI trace files, replayed by SimGrid (simgrid.ts) and by `tsmpi sim` (flow model),
 * and the makespans compared.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlatformFile } from '../../src/sim/platform/load.ts';
import { writeTiTraceFiles } from '../../src/sim/replay/ti-trace.ts';
import { simulate } from '../../src/sim/simulate.ts';
import { buildWorkload } from '../../src/sim/workloads/registry.ts';
import { SIMGRID_MATCHING_CONFIG, simgridReplay, type SimgridTools } from './simgrid.ts';

/** An eager limit above every message of the cases (1 GiB). */
const ALL_EAGER = 1 << 30;

const platforms = fileURLToPath(new URL('../../test/fixtures/platforms/', import.meta.url));

export interface ComparisonCase {
  name: string;
  platform: 'cluster-64.xml' | 'fat-tree-64.xml' | 'two-clusters.xml';
  workload: string;
  np: number;
  params: string[];
  /** Small enough for the test suite. */
  quick: boolean;
  /**
   * `eager`: every message eager in both simulators (TSMPI_TCP_EAGER_LIMIT and SimGrid's detached
   * thresholds at 1 GiB), which isolates the network model from the rendezvous protocol.
   * @default 'default' (rendezvous above 64 KiB)
   */
  protocol?: 'default' | 'eager';
  /**
   * The case has rendezvous messages on routes of ~1 ms: tsmpi's handshake (request to send,
   * clear to send: two route latencies per message) is part of its makespan and not of
   * SimGrid's, whose rendezvous starts the transfer the moment both sides are there.
   */
  handshakeBound?: boolean;
}

const comm = ['flops=0'];
export const COMPARISON_CASES: readonly ComparisonCase[] = [
  { name: 'stencil2d 64 KiB halos (eager)', platform: 'cluster-64.xml', workload: 'stencil2d', np: 64, params: ['bytes=65536', 'flops=1e6'], quick: true },
  { name: 'stencil2d 1 MiB halos (rendezvous)', platform: 'cluster-64.xml', workload: 'stencil2d', np: 64, params: ['bytes=1048576', 'flops=1e6'], quick: true },
  { name: 'stencil3d 256 KiB halos', platform: 'cluster-64.xml', workload: 'stencil3d', np: 64, params: ['bytes=262144', ...comm], quick: false },
  { name: 'alltoall collective 16 KiB', platform: 'cluster-64.xml', workload: 'all-to-all', np: 16, params: comm, quick: true },
  { name: 'all-to-all p2p 200 kB', platform: 'cluster-64.xml', workload: 'all-to-all', np: 32, params: ['p2p=true', 'bytes=200000', 'steps=3', ...comm], quick: false },
  { name: 'random sparse 1-256 KiB', platform: 'cluster-64.xml', workload: 'random-sparse', np: 64, params: comm, quick: false },
  { name: 'particle-in-cell (migration, halo, allreduce)', platform: 'cluster-64.xml', workload: 'pic', np: 64, params: ['flopsPerParticle=0', 'fieldFlops=0'], quick: false },
  { name: 'molecular dynamics (halo, allreduce, alltoallv)', platform: 'cluster-64.xml', workload: 'md', np: 64, params: comm, quick: false },
  { name: 'transport sweep (wavefront)', platform: 'cluster-64.xml', workload: 'sweep', np: 64, params: ['flops=1e5'], quick: true },
  { name: 'random sparse on a 2:1 fat tree', platform: 'fat-tree-64.xml', workload: 'random-sparse', np: 64, params: comm, quick: true },
  { name: 'all-to-all p2p on a 2:1 fat tree', platform: 'fat-tree-64.xml', workload: 'all-to-all', np: 64, params: ['p2p=true', 'bytes=100000', 'steps=2', ...comm], quick: false },
  { name: 'stencil3d on a 2:1 fat tree', platform: 'fat-tree-64.xml', workload: 'stencil3d', np: 64, params: ['bytes=262144', ...comm], quick: false },
  { name: 'stencil2d across two clusters', platform: 'two-clusters.xml', workload: 'stencil2d', np: 12, params: ['bytes=1048576', ...comm], quick: true },
  { name: 'random sparse across two clusters', platform: 'two-clusters.xml', workload: 'random-sparse', np: 12, params: comm, quick: true, handshakeBound: true },
  { name: 'random sparse across two clusters, all eager', platform: 'two-clusters.xml', workload: 'random-sparse', np: 12, params: comm, quick: true, protocol: 'eager' },
];

export interface ComparisonResult {
  name: string;
  platform: string;
  workload: string;
  np: number;
  params: string[];
  protocol: 'default' | 'eager';
  handshakeBound: boolean;
  messages: number;
  simgrid: number;
  tsmpi: number;
  /** (tsmpi - simgrid) / simgrid. */
  difference: number;
  simgridWallSeconds: number;
  tsmpiWallSeconds: number;
}

/** Runs one case in `dir` (trace files, hostfile) with both simulators. */
export async function compareCase(tools: SimgridTools, c: ComparisonCase, dir: string): Promise<ComparisonResult> {
  const program = buildWorkload(c.workload, c.params, c.np, 1);
  const description = await writeTiTraceFiles(dir, program);
  const platformFile = join(platforms, c.platform);
  const platform = await loadPlatformFile(platformFile);
  const hostfile = join(dir, 'hostfile');
  writeFileSync(hostfile, `${Array.from({ length: c.np }, (_, i) => platform.host(i).name).join('\n')}\n`);
  const eager = c.protocol === 'eager';
  const config = eager ? SIMGRID_MATCHING_CONFIG.map((k) => (/thresh:/.test(k) ? k.replace(/:\d+$/, `:${ALL_EAGER}`) : k)) : SIMGRID_MATCHING_CONFIG;
  const sg = simgridReplay(tools, { platform: platformFile, description, hostfile, np: c.np, config });
  const ours = await simulate({ program, platform, network: 'flow', ...(eager ? { env: { ...process.env, TSMPI_TCP_EAGER_LIMIT: String(ALL_EAGER) } } : {}) });
  let messages = 0;
  for (const list of program.values()) for (const a of list) if (a.op === 'send' || a.op === 'isend') messages++;
  return {
    name: c.name,
    platform: c.platform,
    workload: c.workload,
    np: c.np,
    params: c.params,
    protocol: c.protocol ?? 'default',
    handshakeBound: c.handshakeBound ?? false,
    messages,
    simgrid: sg.makespan,
    tsmpi: ours.makespan,
    difference: (ours.makespan - sg.makespan) / sg.makespan,
    simgridWallSeconds: sg.wallSeconds,
    tsmpiWallSeconds: ours.wallSeconds,
  };
}
