/**
 * The entry of a rank's worker thread: installs the rank's context, makes `process.argv` look as
 * if the program had been started by itself, and imports the program. Kept tiny on purpose: the
 * program's own `import 'tsmpi'` builds the runtime lazily in `init()`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setRankContext, type LauncherChannel, type LauncherToRank, type RankContext } from './rank-context.js';

/** What the thread launcher passes to each rank. */
export interface RankThreadData {
  context: RankContext;
  /** URL of the (compiled) program to import. */
  appUrl: string;
  /** The program path as the user gave it, for process.argv[1]. */
  appPath: string;
  args: string[];
}

const data = workerData as RankThreadData;
const port = parentPort!;
const channel: LauncherChannel = {
  post: (message) => port.postMessage(message),
  onMessage: (handler) => {
    port.on('message', (message: LauncherToRank) => handler(message));
    port.unref();
  },
};
process.setSourceMapsEnabled(true);
process.argv = [process.execPath, data.appPath, ...data.args];
setRankContext(data.context, channel);
await import(data.appUrl);
