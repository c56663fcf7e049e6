/**
 * The test network of hosts (test/infra/hosts.sh): network namespaces on a bridge, addresses in
 * 198.18.64.0/24, an sshd each; tsmpi reaches them with the system's ssh client.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { repoRoot } from './run-job.ts';

export const hostsScript = `${repoRoot}test/infra/hosts.sh`;
export const hostsDir = '/tmp/tsmpi-hosts';
export const hostfile = `${hostsDir}/hostfile`;

/** Why the hosts cannot be built here, or undefined when they can. */
export function hostsMissing(): string | undefined {
  const check = spawnSync('bash', [hostsScript, 'check'], { encoding: 'utf8' });
  return check.status === 0 ? undefined : `test hosts (netns + sshd) are not available here: ${(check.stdout + check.stderr).trim()}`;
}

export function hosts(...args: string[]): string {
  const r = spawnSync('bash', [hostsScript, ...args], { encoding: 'utf8', env: { ...process.env, TSMPI_HOSTS_DIR: hostsDir } });
  assert.equal(r.status, 0, `hosts.sh ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

export function hostAddress(k: number): string {
  return `198.18.64.${k}`;
}

/** Processes running in host k's namespace, other than its sshd. */
export function processesOnHost(k: number): number[] {
  const pids = spawnSync('ip', ['netns', 'pids', `tsmpi-h${k}`], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l !== '').map(Number);
  const sshd = Number(readFileSync(`${hostsDir}/h${k}/sshd.pid`, 'utf8').trim());
  return pids.filter((pid) => {
    if (pid === sshd) return false;
    try {
      // sshd's own children for a session that is closing are not the job's.
      return !readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('sshd');
    } catch {
      return false;
    }
  });
}

/** Waits until no job process runs on hosts 1..n (or the time is up); returns what is left. */
export async function leftOnHosts(n: number, withinMs: number): Promise<Record<number, number[]>> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const left: Record<number, number[]> = {};
    for (let k = 1; k <= n; k++) {
      const pids = processesOnHost(k);
      if (pids.length > 0) left[k] = pids;
    }
    if (Object.keys(left).length === 0 || performance.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
