/**
 * The entry of a rank's worker thread: installs the rank's context, makes `process.argv` look as
 * if the program had been started by itself, and imports the program.
 *
 * It runs as evaluated CommonJS source (`new Worker(rankThreadSource, { eval: true })`), not as a
 * module file: every ES module a fresh worker loads costs it ~5 ms on these VMs, and this entry
 * runs once per rank (64 ranks: ~150 ms of the start-up). So `rankThreadMain` must not use
 * imports or anything outside its own body; it writes the same global slot as rank-context.ts.
 */
import type { RankContext } from './rank-context.js';

/** What the thread launcher passes to each rank. */
export interface RankThreadData {
  context: RankContext;
  /** URL of the (compiled) program to import. */
  appUrl: string;
  /** The program path as the user gave it, for process.argv[1]. */
  appPath: string;
  args: string[];
  /** Enable source maps in the rank (TSMPI_SOURCE_MAPS); off by default, see stack-map.ts. */
  sourceMaps: boolean;
}

declare const require: (id: string) => unknown;

/** The body of the worker; see the module comment for why it is self-contained. */
function rankThreadMain(): void {
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  const data = threads.workerData as RankThreadData;
  const port = threads.parentPort!;
  const channel = {
    post: (message: unknown) => port.postMessage(message),
    onMessage: (handler: (message: unknown) => void) => {
      port.on('message', handler);
      port.unref();
    },
  };
  (globalThis as Record<symbol, unknown>)[Symbol.for('tsmpi.rank-context')] = { context: data.context, channel, cache: new Map() };
  if (data.sourceMaps) process.setSourceMapsEnabled(true);
  process.argv = [process.execPath, data.appPath, ...data.args];
  // A rejection here (the program threw at top level) is unhandled: the launcher sees it as the
  // worker's error, with the program's stack.
  void import(data.appUrl);
}

/** Source for `new Worker(source, { eval: true })`. */
export const rankThreadSource = `(${rankThreadMain.toString()})();`;
