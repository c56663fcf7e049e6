/**
 * Loads the runtime that `import 'tsmpi'` gives a program: dist/runtime.cjs, the whole runtime as
 * one classic script, compiled with V8's code cache (dist/runtime.cjs.cache, written at build
 * time) so that a fresh worker thread deserialises bytecode instead of parsing ~470 KB of source.
 *
 * Why a script and not an ES module: Node 20 has no code cache for ES modules, and compiling the
 * runtime was most of a rank thread's start-up beyond a bare worker's (bench startup: ~100 ms for
 * 8 ranks and ~500 ms for 64 on 2 cores). dist/tsmpi.js, the package's ES entry, is a few lines
 * that call {@link loadRuntimeScript} and re-export its names.
 *
 * A cache V8 refuses (another Node version, other V8 flags) only costs the parse: the script is
 * compiled from source and runs the same.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dirname } from 'node:path';
import { Script, constants } from 'node:vm';

/**
 * The runtime's module body becomes this function's (the parameters a CommonJS module sees, and
 * the URL that stands for `import.meta.url`). The prefix sits on the first line, so every line
 * keeps its number in stack traces.
 */
const PREFIX = '(function (exports, require, module, __filename, __dirname, __tsmpi_module_url) {';
const SUFFIX = '\n})';

/** Identifier the bundle uses for `import.meta.url` (scripts/bundle.mjs defines it). */
export const MODULE_URL_IDENTIFIER = '__tsmpi_module_url';

export function cachePathOf(scriptPath: string): string {
  return `${scriptPath}.cache`;
}

type ModuleBody = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string, moduleUrl: string) => void;

function compile(scriptPath: string, cachedData: Buffer | undefined): Script {
  return new Script(PREFIX + readFileSync(scriptPath, 'utf8') + SUFFIX, {
    filename: scriptPath,
    ...(cachedData !== undefined ? { cachedData } : {}),
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}

function run(script: Script, scriptPath: string): Record<string, unknown> {
  const body = script.runInThisContext() as ModuleBody;
  const module = { exports: {} };
  body(module.exports, createRequire(scriptPath), module, scriptPath, dirname(scriptPath), pathToFileURL(scriptPath).href);
  return module.exports as Record<string, unknown>;
}

/** What became of the code cache when the runtime was loaded. */
export type RuntimeCache = 'used' | 'rejected' | 'missing';

/** Compiles (from the code cache when V8 takes it) and runs the runtime script. */
export function loadRuntimeScript(scriptPath: string): { exports: Record<string, unknown>; cache: RuntimeCache } {
  const cachePath = cachePathOf(scriptPath);
  const cachedData = existsSync(cachePath) ? readFileSync(cachePath) : undefined;
  const script = compile(scriptPath, cachedData);
  const cache: RuntimeCache = cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  return { exports: run(script, scriptPath), cache };
}

/**
 * Build step: runs the runtime script, then `warmUp` on its exports (what a rank does first, so
 * that the functions it compiles are in the cache too), and writes V8's code cache for it beside
 * it. Returns the export names, which dist/tsmpi.js re-exports.
 */
export async function writeRuntimeCache(scriptPath: string, warmUp: (runtime: Record<string, unknown>) => Promise<void> = async () => {}): Promise<string[]> {
  const script = compile(scriptPath, undefined);
  const runtime = run(script, scriptPath);
  await warmUp(runtime);
  writeFileSync(cachePathOf(scriptPath), script.createCachedData());
  return Object.keys(runtime);
}
