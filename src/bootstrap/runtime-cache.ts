/**
 * The runtime's code cache (dist/runtime.cjs.cache) and its twins for other V8 flags.
 *
 * V8 refuses a code cache made under other flags. The build makes the runtime's under Node's
 * defaults, which is what every rank of `tsmpi run` runs with; `tsmpi sim` predicting a machine
 * runs V8 with `--single-threaded` and a larger young generation (simulate.ts, serialV8Flags),
 * where each simulated rank's copy of the runtime was compiled from source, a cost no real rank
 * pays. {@link runtimeCacheFor} gives the cache for this process's flags: the build's under
 * Node's defaults, else one made once under these flags by the same warm-up, in a child process
 * (write-runtime-cache.ts: the warm-up starts a world of one rank, which must not share this one).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachePathOf } from './cached-script.js';
import { withoutFlags } from './node-flags.js';

/** What the build runs in a world of one rank before it writes the cache: a program's first steps. */
export async function warmUpRuntime(runtime: Record<string, unknown>): Promise<void> {
  const { init, finalize, Op } = runtime as unknown as typeof import('../index.js');
  const comm = await init();
  await comm.barrier();
  await comm.allreduce(1, Op.sum);
  await comm.bcast(new Float64Array(4), 0);
  await finalize();
}

/**
 * Node flags that leave V8's code cache alone but do something in every process that has them
 * (profiles, inspectors, reports, logs): a cache writer started with them would write a profile
 * of its own (`node --cpu-prof tsmpi run` counted one process too many), and they must not make
 * caches of their own either.
 */
const NOT_FOR_CACHES = /^--(cpu-prof|heap-prof|prof|inspect|debug|diagnostic-dir|report|redirect-warnings|trace-event|title|logfile)/;
/** Those whose value may come as the next argument. */
const VALUE_FOLLOWS = new Set(['--cpu-prof-dir', '--cpu-prof-name', '--cpu-prof-interval', '--heap-prof-dir', '--heap-prof-name', '--heap-prof-interval', '--inspect-port', '--debug-port', '--diagnostic-dir', '--report-dir', '--report-directory', '--report-filename', '--report-signal', '--redirect-warnings', '--trace-event-categories', '--trace-event-file-pattern', '--title', '--logfile']);

/** `execArgv` less the flags a code cache does not depend on ({@link NOT_FOR_CACHES}). */
export function cacheFlags(execArgv: readonly string[]): string[] {
  return withoutFlags(execArgv, NOT_FOR_CACHES, VALUE_FOLLOWS);
}

/**
 * The code cache for `scriptPath` (the runtime) that V8 under `execArgv` takes: the build's for
 * Node's defaults, else its twin for these flags (beside it, or in the temporary directory when
 * the installation is not writable), made the first time. Undefined when none could be made (the
 * script then compiles from source, as before).
 */
export function runtimeCacheFor(scriptPath: string, execArgv: readonly string[] = process.execArgv): string | undefined {
  const flags = cacheFlags(execArgv);
  if (flags.length === 0) return cachePathOf(scriptPath);
  const stat = statSync(scriptPath);
  const key = createHash('sha256').update(JSON.stringify([process.version, flags, stat.size, stat.mtimeMs])).digest('hex').slice(0, 16);
  const writer = fileURLToPath(new URL('../bootstrap/write-runtime-cache.js', import.meta.url));
  for (const out of [`${scriptPath}.${key}.cache`, join(tmpdir(), 'tsmpi-code-cache', `runtime-${key}.cache`)]) {
    if (existsSync(out) && statSync(out).isFile()) return out;
    try {
      mkdirSync(join(out, '..'), { recursive: true });
    } catch {
      continue;
    }
    const made = spawnSync(process.execPath, [...flags, writer, scriptPath, out], { stdio: 'ignore', timeout: 60_000 });
    if (made.status === 0 && existsSync(out) && statSync(out).isFile()) return out;
  }
  return undefined;
}
