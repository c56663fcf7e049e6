/**
 * Runs the real `tsmpi` command (dist/cli/main.js) as a child process and collects its output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Lines test/fixtures/cco-suite.ts prints when all passes: one per check (14) and communicator (4). */
export const CCO_SUITE_LINES = 14 * 4;
/** Lines test/fixtures/p2p-suite.ts prints when all passes: one per check (17) and communicator (4). */
export const P2P_SUITE_LINES = 17 * 4;

export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
}

export interface JobResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  elapsedMs: number;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Kill the job after this many ms (a test that hangs must fail, not stall CI). */
  timeoutMs?: number;
  cwd?: string;
  /** Called with each piece of the job's stdout as it comes (to act in the middle of a run). */
  onStdout?: (text: string) => void;
  /** Written to the job's stdin (ignored when absent), which then ends unless `keepInputOpen`. */
  input?: string;
  keepInputOpen?: boolean;
  /** Called with the launcher's process once started (to signal it). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Runs `tsmpi <args>`. */
export function tsmpi(args: string[], options: RunOptions = {}): Promise<JobResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, TSMPI_HANG_WARN: '0', ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.write(options.input);
      if (options.keepInputOpen !== true) child.stdin!.end();
    }
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      options.onStdout?.(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started });
    });
  });
}

/** Runs a fixture program on `np` ranks. */
export function runFixture(name: string, np: number, args: string[] = [], options: RunOptions = {}): Promise<JobResult> {
  return tsmpi(['run', '-n', String(np), fixture(name), ...args], options);
}

/** A readable explanation of a failed job, for assertion messages. */
export function explain(result: JobResult): string {
  return `exit ${result.code}${result.signal ? ` (${result.signal})` : ''}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}
