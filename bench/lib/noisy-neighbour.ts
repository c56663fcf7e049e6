/**
 * A noisy neighbour: one CPU-bound process beside a job, as on a shared laptop or a node another
 * job shares. A shell busy loop (no start-up time to speak of) under `timeout`, so that it ends
 * by itself even if this process dies without killing it.
 */
import { spawn, spawnSync } from 'node:child_process';

/** The neighbour's own limit, seconds: far above one run, so it never ends before the run does. */
const NEIGHBOUR_LIMIT_S = 600;

/** Runs `job` while one CPU-bound process competes for the cores; the process is killed after. */
export function besideNoisyNeighbour<T>(job: () => T): T {
  // Its own process group, so that one kill ends `timeout` and the loop it runs.
  const neighbour = spawn('timeout', [String(NEIGHBOUR_LIMIT_S), 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore', detached: true });
  try {
    // Let the loop take a core before the job starts (the shell is running within milliseconds).
    spawnSync('sleep', ['0.05']);
    return job();
  } finally {
    if (neighbour.pid !== undefined) process.kill(-neighbour.pid, 'SIGKILL');
  }
}
