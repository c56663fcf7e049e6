/**
 * A real SLURM for the tests: Debian's slurmctld, slurmd and munge, started by
 * test/infra/slurm-up.sh (one node, four nodes on this machine, or a node per test host of
 * test/infra/hosts.sh). Ranks listen on loopback (TSMPI_TCP_ADDRESS=lo) unless a test gives
 * TSMPI_TCP_ADDRESS '' (on the test hosts: each node's own 198.18.64.K).
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cli, repoRoot, type JobResult } from './run-job.ts';

const infra = fileURLToPath(new URL('../infra/', import.meta.url));
export const slurmDir = '/tmp/tsmpi-slurm-tests';
export const slurmConf = `${slurmDir}/slurm.conf`;

/** Why SLURM tests cannot run here, or undefined when they can. */
export function slurmMissing(): string | undefined {
  for (const tool of ['slurmctld', 'slurmd', 'srun', 'munged']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      return `${tool} is not installed (apt-get install --no-install-recommends slurmctld slurmd slurm-client munge; .ci/run does)`;
    }
  }
  return undefined;
}

/** The tests' cluster has its own directory and ports, apart from a developer's own (16817). */
const slurmEnv = { TSMPI_SLURM_DIR: slurmDir, TSMPI_SLURM_PORT: '26817' };

export function startSlurm(mode: 'single' | 'multi' | 'hosts'): void {
  const result = spawnSync('bash', [`${infra}slurm-up.sh`, mode], { env: { ...process.env, ...slurmEnv }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`slurm-up.sh ${mode} failed:\n${result.stdout}\n${result.stderr}`);
}

export function stopSlurm(): void {
  spawnSync('bash', [`${infra}slurm-down.sh`], { env: { ...process.env, ...slurmEnv } });
}

/** Cancels every job step of the tests' cluster (scancel), e.g. one srun waits for on a cut-off node. */
export function cancelSteps(): void {
  spawnSync('scancel', ['--signal=KILL', '--full', '--user=root'], { env: { ...process.env, SLURM_CONF: slurmConf } });
}

/** Runs `srun --immediate=30 <srunArgs> node dist/cli/main.js exec <program> <args>`. */
export function srunExec(
  srunArgs: string[],
  program: string,
  args: string[] = [],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
  watch: { onStdout?: (text: string) => void; onStderr?: (text: string) => void; input?: string } = {},
): Promise<JobResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('srun', ['--immediate=30', ...srunArgs, process.execPath, cli, 'exec', program, ...args], {
      cwd: repoRoot,
      env: { ...process.env, SLURM_CONF: slurmConf, TSMPI_TCP_ADDRESS: 'lo', TSMPI_HANG_WARN: '0', ...env },
      stdio: [watch.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (watch.input !== undefined) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(watch.input);
    }
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      watch.onStdout?.(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      watch.onStderr?.(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started });
    });
  });
}
