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

/**
 * The script's module body becomes this function's (the parameters a CommonJS module sees, and
 * the URL that stands for `import.meta.url`). The prefix sits on the first line, so every line
 * keeps its number in stack traces.
 */
const PREFIX = '(function (exports, require, module, __filename, __dirname, __tsmpi_module_url) {';
const SUFFIX = '\n})';

/** Identifier a bundle uses for `import.meta.url` (scripts/bundle.mjs defines it). */
export const MODULE_URL_IDENTIFIER = '__tsmpi_module_url';

export function cachePathOf(scriptPath: string): string {
  return `${scriptPath}.cache`;
}

type ModuleBody = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string, moduleUrl: string) => void;

function compile(scriptPath: string, cachedData: Buffer | undefined, copy?: string): Script {
  return new Script(PREFIX + readFileSync(scriptPath, 'utf8') + SUFFIX, {
    // V8 reuses a script compiled under the same name and source: a copy needs its own name.
    filename: copy === undefined ? scriptPath : `${scriptPath}?${copy}`,
    ...(cachedData !== undefined ? { cachedData } : {}),
  });
}

function run(script: Script, scriptPath: string): Record<string, unknown> {
  const body = script.runInThisContext() as ModuleBody;
  const module = { exports: {} };
  body(module.exports, createRequire(scriptPath), module, scriptPath, dirname(scriptPath), pathToFileURL(scriptPath).href);
  return module.exports as Record<string, unknown>;
}

/** What became of the code cache when a script was loaded. */
export type ScriptCache = 'used' | 'rejected' | 'missing';

/**
 * Compiles (from the code cache when V8 takes it) and runs a bundled script; returns its exports.
 * A named `copy` is a separate instance that shares no compiled code with the others (the
 * simulator's per-rank runtimes).
 */
export function loadCachedScript(scriptPath: string, copy?: string): { exports: Record<string, unknown>; cache: ScriptCache } {
  const cachePath = cachePathOf(scriptPath);
  const cachedData = existsSync(cachePath) ? readFileSync(cachePath) : undefined;
  const script = compile(scriptPath, cachedData, copy);
  const cache: ScriptCache = cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  return { exports: run(script, scriptPath), cache };
}

/**
 * Build step: runs the script, then `warmUp` on its exports (what its users do first, so that the
 * functions they compile are in the cache too), and writes V8's code cache for it beside it.
 * Returns the export names (dist/tsmpi.js re-exports the runtime's).
 */
export async function writeScriptCache(scriptPath: string, warmUp: (exports: Record<string, unknown>) => Promise<void> = async () => {}): Promise<string[]> {
  const script = compile(scriptPath, undefined);
  const exports = run(script, scriptPath);
  await warmUp(exports);
  writeFileSync(cachePathOf(scriptPath), script.createCachedData());
  return Object.keys(exports);
}
