/**
 * The rails benchmark's simulated side: the same rank program (bench/ranks/rails.ts), the same
 * TSMPI_* settings, on two simulated hosts joined by one crossbar per rail, each rail's
 * bandwidth the TCP goodput of the shaped veth it stands for (tbf rate x 1448/1514), and the
 * rank's JSON lines collected from its output.
 */
import { fileURLToPath } from 'node:url';
import type { LoadProfile } from '../../src/sim/platform/platform.ts';
import { crossbar } from '../../src/sim/platform/topologies.ts';
import { simulate } from '../../src/sim/simulate.ts';
import type { Record } from './jobs.ts';

const program = fileURLToPath(new URL('../ranks/rails.ts', import.meta.url));
/** One link's latency on a simulated rail (a veth pair between namespaces, one way: two links). */
export const SIM_RAIL_LATENCY = 50e-6;

export interface SimRailsRun {
  /** Bytes/s of each rail (goodput ceiling). */
  rates: readonly number[];
  /** Rail 0's bandwidth over time (a drop and a recovery). */
  profile?: LoadProfile;
  env: NodeJS.ProcessEnv;
  args: (string | number)[];
}

/** Runs the rank program under the simulator; returns rank 0's JSON lines and the run's wall time. */
export async function simulateRails(run: SimRailsRun): Promise<{ records: Record[]; wallSeconds: number; makespan: number }> {
  const platform = crossbar({
    hosts: 2,
    speed: 1e9,
    bandwidth: run.rates[0]!,
    latency: SIM_RAIL_LATENCY,
    rails: run.rates.map((bandwidth, i) => ({ bandwidth, latency: SIM_RAIL_LATENCY, ...(i === 0 && run.profile ? { profile: run.profile } : {}) })),
    source: 'bench rails',
  });
  const lines = await captureStdout(() =>
    simulate({ program, args: run.args.map(String), np: 2, platform, network: 'flow', computeMode: 'declared', env: { ...process.env, ...run.env } }),
  );
  const records = lines.output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record);
  return { records, wallSeconds: lines.result.wallSeconds, makespan: lines.result.makespan };
}

/** Runs `fn`, collecting what it writes to stdout instead of printing it. */
export async function captureStdout<T>(fn: () => Promise<T>): Promise<{ result: T; output: string }> {
  const write = process.stdout.write;
  let output = '';
  process.stdout.write = ((chunk: string | Uint8Array): boolean => {
    output += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  try {
    return { result: await fn(), output };
  } finally {
    process.stdout.write = write;
  }
}
