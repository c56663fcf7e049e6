#!/usr/bin/env node
/**
 * The `tsmpi` command's entry. It runs the command line (program.ts) from dist/bundle/cli.cjs,
 * one classic script compiled from V8's code cache (scripts/bundle.mjs): resolving and compiling
 * the command's ~40 ES modules one by one cost every tsmpi command ~40 ms before it began
 * (bootstrap/cached-script.ts says why a script). `tsmpi sim` runs from the simulator's own
 * script instead (sim-main.ts). Run from source, or before a build, it imports the modules.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCachedScript } from '../bootstrap/cached-script.js';

interface CommandLine {
  main(argv: readonly string[]): Promise<void>;
  setModuleImporter(importer: (specifier: string) => Promise<unknown>): void;
}

const simOnly = process.argv[2] === 'sim';
const bundle = fileURLToPath(new URL(simOnly ? '../bundle/sim-cli.cjs' : '../bundle/cli.cjs', import.meta.url));
const cli = (existsSync(bundle) ? loadCachedScript(bundle).exports : simOnly ? await import('./sim-main.js') : await import('./program.js')) as CommandLine;
// The script cannot import() by itself (cached-script.ts): programs, esbuild and the simulator's
// modules come through this module's import().
cli.setModuleImporter((specifier) => import(specifier));
await cli.main(process.argv);
