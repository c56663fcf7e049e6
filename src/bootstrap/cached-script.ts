/**
 * Loads a bundled classic script with V8's code cache beside it (`FILE.cache`, written at build
 * time) so that a fresh thread or process deserialises bytecode instead of parsing the source.
 * Two scripts are loaded so:
 * - dist/runtime.cjs, the runtime that `import 'tsmpi'` gives a program. Compiling it was most of
 *   a rank thread's start-up beyond a bare worker's (bench startup: ~100 ms for 8 ranks and
 *   ~500 ms for 64 on 2 cores). dist/tsmpi.js, the package's ES entry, is a few lines that call
 *   {@link loadCachedScript} and re-export its names.
 * - dist/bundle/sim-cli.cjs, the simulator's command (`tsmpi sim`). Compiling it from source was
 *   ~25 ms of a replay that SimGrid finishes in 60 ms.
 *
 * Why scripts and not ES modules: Node 20 has no code cache for ES modules.
 *
 * A script cannot call `import()` (Node 20 drops the callback of a script compiled from a cache);
 * code that must goes through module-import.ts, whose importer the script's loader sets.
 *
 * A cache V8 refuses (another Node version, other V8 flags) only costs the parse: the script is
 * compiled from source and runs the same.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** Identifier a bundle uses for `import.meta.url` (scripts/bundle.mjs defines it). */
export const MODULE_URL_IDENTIFIER = '__tsmpi_module_url';

export function cachePathOf(scriptPath: string): string {
  return `${scriptPath}.cache`;
}

/** What became of the code cache when a script was loaded. */
export type ScriptCache = 'used' | 'rejected' | 'missing';

/**
 * The Node modules {@link runCachedScript} uses, handed to it: its source also runs in a rank
 * thread's evaluated entry (rank-thread.ts), where nothing can be imported.
 */
export interface ScriptLoaderModules {
  readonly fs: Pick<typeof import('node:fs'), 'existsSync' | 'readFileSync'>;
  readonly vm: Pick<typeof import('node:vm'), 'Script'>;
  readonly module: Pick<typeof import('node:module'), 'createRequire'>;
  readonly path: Pick<typeof import('node:path'), 'dirname'>;
  readonly url: Pick<typeof import('node:url'), 'pathToFileURL'>;
}

/** A compiled and evaluated script: its exports, the cache's fate, the script (to write a cache from). */
export interface LoadedScript {
  readonly exports: Record<string, unknown>;
  readonly cache: ScriptCache;
  readonly script: import('node:vm').Script;
}

/**
 * Compiles a bundled script (from its code cache when `useCache` and V8 takes it) and runs its
 * module body. Self-contained (no imports, no module constants) so that rank-thread.ts can embed
 * its source. The body becomes a function with the parameters a CommonJS module sees and the URL
 * that stands for `import.meta.url` (MODULE_URL_IDENTIFIER); the prefix sits on the first line, so
 * every line keeps its number in stack traces. The source is read as Latin-1: the build writes
 * these scripts in ASCII (writeScriptCache checks), where Latin-1 reads the same text and skips
 * UTF-8 decoding (~1 ms per fresh thread for the runtime's 0.6 MB).
 */
export function runCachedScript(node: ScriptLoaderModules, scriptPath: string, copy?: string, useCache = true, cachePath = `${scriptPath}.cache`): LoadedScript {
  const cachedData = useCache && node.fs.existsSync(cachePath) ? node.fs.readFileSync(cachePath) : undefined;
  const source = node.fs.readFileSync(scriptPath, 'latin1');
  const script = new node.vm.Script(`(function (exports, require, module, __filename, __dirname, __tsmpi_module_url) {${source}\n})`, {
    filename: copy === undefined ? scriptPath : `${scriptPath}?${copy}`,
    ...(cachedData !== undefined ? { cachedData } : {}),
  });
  const cache: ScriptCache = cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const body = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string, moduleUrl: string) => void;
  const module = { exports: {} };
  body(module.exports, node.module.createRequire(scriptPath), module, scriptPath, node.path.dirname(scriptPath), node.url.pathToFileURL(scriptPath).href);
  return { exports: module.exports as Record<string, unknown>, cache, script };
}

const NODE_MODULES: ScriptLoaderModules = { fs: { existsSync, readFileSync }, vm: { Script }, module: { createRequire }, path: { dirname }, url: { pathToFileURL } };

/**
 * Compiles (from the code cache when V8 takes it) and runs a bundled script; returns its exports.
 * A named `copy` is a separate instance that shares no compiled code with the others (the
 * simulator's per-rank runtimes).
 */
export function loadCachedScript(scriptPath: string, copy?: string, cachePath?: string): { exports: Record<string, unknown>; cache: ScriptCache } {
  const { exports, cache } = runCachedScript(NODE_MODULES, scriptPath, copy, true, cachePath);
  return { exports, cache };
}

/**
 * Build step: runs the script, then `warmUp` on its exports (what its users do first, so that the
 * functions they compile are in the cache too), and writes V8's code cache for it beside it (or
 * to `cachePath`).
 * Returns the export names (dist/tsmpi.js re-exports the runtime's).
 */
export async function writeScriptCache(scriptPath: string, warmUp: (exports: Record<string, unknown>) => Promise<void> = async () => {}, cachePath = cachePathOf(scriptPath)): Promise<string[]> {
  const text = readFileSync(scriptPath, 'utf8');
  const wide = /[^\x00-\x7f]/.exec(text);
  if (wide !== null) {
    const line = text.slice(0, wide.index).split('\n').length;
    throw new Error(`${scriptPath}:${line}: '${wide[0]}' is not ASCII; the loader reads these scripts as Latin-1 (escape it, as scripts/bundle.mjs does)`);
  }
  const { exports, script } = runCachedScript(NODE_MODULES, scriptPath, undefined, false);
  await warmUp(exports);
  writeFileSync(cachePath, script.createCachedData());
  return Object.keys(exports);
}
