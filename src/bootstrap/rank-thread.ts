/**
 * The entry of a rank's worker thread: installs the rank's context, makes `process.argv` look as
 * if the program had been started by itself, and imports the program.
 *
 * Several ranks may share the thread (TSMPI_RANKS_PER_THREAD): each gets its own instance of the
 * program (an import URL with the rank in its query), evaluated inside an AsyncLocalStorage
 * context that `init()` reads, as the simulator runs ranks; they take turns whenever one waits.
 *
 * It runs as evaluated CommonJS source (`new Worker(rankThreadSource, { eval: true })`), not as a
 * module file: every ES module a fresh worker loads costs it ~5 ms on these VMs, and this entry
 * runs once per thread (64 ranks: ~150 ms of the start-up). So `rankThreadMain` must not use
 * imports or anything outside its own body; it writes the same global slot as rank-context.ts.
 */
import { runCachedScript, type ScriptLoaderModules } from './cached-script.js';
import type { RankContext } from './rank-context.js';

/** What the thread launcher passes to each rank thread. */
export interface RankThreadData {
  /** The ranks this thread runs: one, or several that share it. */
  contexts: RankContext[];
  /** URL of the (compiled) program to import. */
  appUrl: string;
  /**
   * The runtime script (dist/runtime.cjs) to load before the program, from its code cache: the
   * program's 'tsmpi' then costs no ES module of its own (64 fresh threads on 2 cores: ~100 ms).
   */
  runtimeScript?: string;
  /** Its code cache when not the build's (`${runtimeScript}.cache`): one made under the V8 flags the thread runs with. */
  runtimeCache?: string;
  /** The program path as the user gave it, for process.argv[1]. */
  appPath: string;
  args: string[];
  /** Enable source maps in the rank (TSMPI_SOURCE_MAPS); off by default, see stack-map.ts. */
  sourceMaps: boolean;
  /** The CPU to bind this thread to (cpu-binding.ts); absent: unbound. */
  cpu?: number;
  /** Say so on stderr when the binding fails (it was asked for with TSMPI_BIND=core). */
  warnUnbound?: boolean;
  /**
   * The thread hosts this world rank, which takes the process's stdin (TSMPI_STDIN): its
   * process.stdin asks the host for each chunk over `port` (stdin-feed.ts's other end).
   */
  stdin?: { rank: number; port: import('node:worker_threads').MessagePort };
}

declare const require: (id: string) => unknown;

/**
 * The body of the worker; see the module comment for why it is self-contained. `loadScript` is
 * cached-script.ts's runCachedScript, embedded as source.
 */
function rankThreadMain(loadScript: typeof runCachedScript): void {
  const threads = require('node:worker_threads') as typeof import('node:worker_threads');
  const data = threads.workerData as RankThreadData;
  const port = threads.parentPort!;
  const slotKey = Symbol.for('tsmpi.rank-context');
  // rank-runtime-key.ts's PRELOADED_RUNTIME_KEY.
  const preload = (): void => {
    if (data.runtimeScript === undefined) return;
    const node = { fs: require('node:fs'), vm: require('node:vm'), module: require('node:module'), path: require('node:path'), url: require('node:url') } as ScriptLoaderModules;
    const loaded = loadScript(node, data.runtimeScript, undefined, true, data.runtimeCache);
    // `cache` says whether V8 took the code cache (diagnostics and tests).
    (globalThis as Record<symbol, unknown>)[Symbol.for('tsmpi.runtime')] = { path: data.runtimeScript, exports: loaded.exports, cache: loaded.cache };
  };
  if (data.sourceMaps) process.setSourceMapsEnabled(true);
  if (data.cpu !== undefined) {
    // Before the program runs: only this thread can name itself (/proc/thread-self).
    let failure = '';
    try {
      const fs = require('node:fs') as typeof import('node:fs');
      const tid = fs.readlinkSync('/proc/thread-self').split('/').pop()!;
      const child = require('node:child_process') as typeof import('node:child_process');
      const result = child.spawnSync('taskset', ['-p', '-c', String(data.cpu), tid], { encoding: 'utf8' });
      if (result.error !== undefined) failure = result.error.message;
      else if (result.status !== 0) failure = result.stderr.trim();
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure !== '' && data.warnUnbound === true) {
      const ranks = data.contexts.map((c) => (c as { rank?: number }).rank ?? -1).join(',');
      process.stderr.write(`tsmpi: warning: rank ${ranks} runs unbound: binding it to CPU ${data.cpu} failed (${failure}); TSMPI_BIND=none does not try\n`);
    }
  }
  process.argv = [process.execPath, data.appPath, ...data.args];
  if (data.stdin !== undefined) {
    // The rank's stdin: the host's, a chunk per request over a port of its own. Not the Worker's
    // own stdin, whose port keeps the thread alive until the input ends even after the program
    // stopped reading (a first line read, stdin still open). Here, as for a process's stdin, only
    // a pending read keeps the thread alive: the port is referenced while a chunk is awaited by a
    // stream that is not paused.
    const { Readable } = require('node:stream') as typeof import('node:stream');
    const { rank, port: feed } = data.stdin;
    // The thread's other ranks (TSMPI_RANKS_PER_THREAD) each read an empty stdin, as a lone rank's.
    const empty = new Map<number, import('node:stream').Readable>();
    const currentRank = (): number | undefined => {
      const slot = (globalThis as Record<symbol, unknown>)[slotKey] as { resolver?: () => { context?: { rank?: number } } | undefined } | undefined;
      return slot?.resolver?.()?.context?.rank;
    };
    let input: import('node:stream').Readable | undefined;
    /** A chunk was asked for and has not come. */
    let asked = false;
    const create = (): import('node:stream').Readable => {
      const stream = new Readable({
        read() {
          if (asked) return;
          asked = true;
          feed.ref();
          feed.postMessage({ type: 'more' });
        },
        destroy(error, callback) {
          feed.close();
          callback(error);
        },
      });
      feed.on('message', (message: { type: string; chunk?: Uint8Array }) => {
        asked = false;
        feed.unref();
        if (message.type === 'chunk' && message.chunk !== undefined) stream.push(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, message.chunk.byteLength));
        else stream.push(null);
      });
      feed.unref();
      // Paused (readline's close), the stream keeps nothing alive, as a paused process stdin.
      stream.on('pause', () => feed.unref());
      stream.on('resume', () => {
        if (asked) feed.ref();
      });
      return stream;
    };
    Object.defineProperty(process, 'stdin', {
      configurable: true,
      enumerable: true,
      get() {
        const reader = data.contexts.length > 1 ? currentRank() : rank;
        if (reader !== rank) {
          const key = reader ?? -1;
          if (!empty.has(key)) empty.set(key, Readable.from([]));
          return empty.get(key);
        }
        input ??= create();
        return input;
      },
    });
  }
  if (data.contexts.length === 1) {
    const channel = {
      post: (message: unknown) => port.postMessage(message),
      onMessage: (handler: (message: unknown) => void) => {
        port.on('message', handler);
        port.unref();
      },
    };
    (globalThis as Record<symbol, unknown>)[slotKey] = { context: data.contexts[0], channel, cache: new Map() };
    preload();
    // A rejection here (the program threw at top level) stays unhandled: the launcher sees it as
    // the worker's error, with the program's stack. Its return is told so that a thread kept alive
    // after it (a timer, a socket of the program's) can be reported rather than wait unexplained.
    const rank = (data.contexts[0] as { rank?: number }).rank ?? -1;
    void import(data.appUrl).then(() => port.postMessage({ type: 'returned', rank }));
    return;
  }
  // Only a shared thread needs the AsyncLocalStorage: its promise hooks tax every promise.
  const { AsyncLocalStorage } = require('node:async_hooks') as typeof import('node:async_hooks');
  const storage = new AsyncLocalStorage<unknown>();
  // The host sends each message once per thread; every rank's handlers see it, except a notice
  // that a rank ended, which its own rank does not take for a peer's.
  const handlers = new Map<number, ((message: unknown) => void)[]>();
  port.on('message', (message: { type?: string; rank?: number }) => {
    for (const [rank, list] of handlers) {
      if (message.type === 'peer-gone' && message.rank === rank) continue;
      for (const handler of list) handler(message);
    }
  });
  port.unref();
  (globalThis as Record<symbol, unknown>)[slotKey] = { cache: new Map(), resolver: () => storage.getStore() };
  preload();
  for (const context of data.contexts) {
    const rank = (context as { rank: number }).rank;
    const list: ((message: unknown) => void)[] = [];
    handlers.set(rank, list);
    const channel = { post: (message: unknown) => port.postMessage(message), onMessage: (handler: (message: unknown) => void) => void list.push(handler) };
    const evaluation = storage.run({ context, channel, cache: new Map() }, () => import(`${data.appUrl}?tsmpi-rank=${rank}`));
    // Which rank failed, told before its error ends the thread (all its ranks) as the worker's
    // error, and carried on the error itself: the worker's error and its messages travel by
    // different ports, so the message may come second.
    evaluation.then(
      () => port.postMessage({ type: 'returned', rank }),
      () => undefined,
    );
    evaluation.catch((error: unknown) => {
      if (typeof error === 'object' && error !== null) {
        try {
          (error as { tsmpiRank?: number }).tsmpiRank = rank;
        } catch {
          // A frozen error: the message still says which rank.
        }
      }
      port.postMessage({ type: 'failed', rank });
      throw error;
    });
  }
}

/** Source for `new Worker(source, { eval: true })`. */
export const rankThreadSource = `(${rankThreadMain.toString()})(${runCachedScript.toString()});`;
