#!/usr/bin/env node
// Bundles the rank-side runtime (src/index.ts, compiled to dist/index.js by tsc) into one classic
// script, dist/runtime.cjs, with V8's code cache for it beside it (dist/runtime.cjs.cache), and
// writes dist/tsmpi.js, the ES entry `import 'tsmpi'` loads: it compiles the script from the cache
// and re-exports its names (src/bootstrap/cached-script.ts says why). Every ES module a fresh
// worker thread loads costs it a few milliseconds, and compiling the runtime from source cost
// 64 ranks ~0.5 s of their start on 2 cores; from the cache, V8 deserialises instead.
// The TCP stack (sockets, the handshake's crypto) stays lazily initialised inside the script.
// msgpackr is inside, initialised on the first encoded value; its native string extractor
// (msgpackr-extract, a .node addon it finds by itself) stays external.
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { MODULE_URL_IDENTIFIER, writeScriptCache } from '../dist/bootstrap/cached-script.js';
import { runtimeCacheFor, warmUpRuntime } from '../dist/bootstrap/runtime-cache.js';
import { jitV8Flags } from '../dist/bootstrap/rank-jit.js';

const HASHED = /-[A-Z0-9]{8}\.js(\.map)?$/;

/**
 * Bundles `entry` (a module tsc wrote) into `outfile`, one classic script, for writeScriptCache.
 * The script must be ASCII (its loader reads it as Latin-1): esbuild escapes strings, regular
 * expressions and names by itself; what it leaves, in comments, is escaped here.
 */
async function bundleScript(entry, outfile, external) {
  await build({ entryPoints: [entry], outfile, bundle: true, format: 'cjs', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning', external, define: { 'import.meta.url': MODULE_URL_IDENTIFIER } });
  const text = await readFile(outfile, 'utf8');
  await writeFile(outfile, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** Runs `fn` with standard output dropped (a warm-up's summaries and help), and forgets the exit code it set. */
async function quietly(fn) {
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    await fn();
  } finally {
    process.stdout.write = write;
    process.exitCode = undefined;
  }
}

/** Removes the split files of `dir` that earlier builds left (their names carry a content hash). */
async function removeStale(dir) {
  for (const name of await readdir(dir)) if (HASHED.test(name)) await rm(`${dir}/${name}`);
}

await bundleScript('dist/index.js', 'dist/runtime.cjs', ['msgpackr-extract']);
// Warmed by a world of one rank: init, a few calls, finalize, as a program's first steps.
// Caches for other V8 flags (runtime-cache.ts) were made from the runtime this build replaces.
for (const name of await readdir('dist')) if (/^runtime\.cjs\.[0-9a-f]{16}\.cache$/.test(name)) await rm(`dist/${name}`);
const names = await writeScriptCache(resolve('dist/runtime.cjs'), warmUpRuntime);
// And those rank threads compiling in place take (TSMPI_JIT_ON_RANK, rank-jit.ts), made now rather
// than by the first run that needs them.
for (const place of ['on', 'all']) {
  if (runtimeCacheFor(resolve('dist/runtime.cjs'), jitV8Flags(place)) === undefined) throw new Error(`could not write the runtime code cache for TSMPI_JIT_ON_RANK=${place}`);
}
await build({
  stdin: {
    contents: [
      "import { fileURLToPath } from 'node:url';",
      "import { loadCachedScript } from './bootstrap/cached-script.js';",
      `import { PRELOADED_RUNTIME_KEY } from './bootstrap/rank-runtime-key.js';`,
      // A rank thread has loaded the runtime before the program (rank-thread.ts): the same one.
      "const path = fileURLToPath(new URL('./runtime.cjs', import.meta.url));",
      'const preloaded = globalThis[Symbol.for(PRELOADED_RUNTIME_KEY)];',
      'const runtime = preloaded?.path === path ? preloaded.exports : loadCachedScript(path).exports;',
      `export const { ${names.join(', ')} } = runtime;`,
    ].join('\n'),
    resolveDir: 'dist',
    sourcefile: 'tsmpi-entry.js',
  },
  outfile: 'dist/tsmpi.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
// The names, for the module a program's bundle imports 'tsmpi' from in a rank (app-loader.ts).
await writeFile('dist/runtime-exports.json', `${JSON.stringify(names)}\n`);
await removeStale('dist');

// The simulator's command (`tsmpi sim`: cli/sim-main.ts, the command line with only that
// subcommand) in one classic script too, with its code cache: loading its ~100 modules one by
// one cost a 64-rank replay 0.3 s of its 1.1 s of CPU, and compiling the one ES module they made
// still ~25 ms of a replay SimGrid ends in 60 ms. In dist/bundle/, one level below dist/ like the
// modules it replaces, so paths relative to import.meta.url (dist/tsmpi.js) still resolve. The
// dependencies are bundled as well (the XML parser's ~10 modules resolved one by one cost a
// replay ~15 ms), except esbuild, msgpackr and echarts, loaded when needed. Warmed by a small
// replay of a SimGrid trace on a SimGrid platform.
const EXTERNAL = ['esbuild', 'msgpackr', 'echarts'];
await rm('dist/bundle', { recursive: true, force: true });
await bundleScript('dist/cli/sim-main.js', 'dist/bundle/sim-cli.cjs', EXTERNAL);
await writeScriptCache(resolve('dist/bundle/sim-cli.cjs'), async ({ main, runSimulation }) => {
  const dir = await mkdtemp(join(tmpdir(), 'tsmpi-bundle-'));
  try {
    const ranks = 4;
    const files = [];
    for (let r = 0; r < ranks; r++) {
      const next = (r + 1) % ranks;
      const prev = (r + ranks - 1) % ranks;
      const lines = ['init', 'compute 1e6', `isend ${next} 0 70000`, `recv ${prev} 0 70000`, 'waitall', `send ${next} 1 8`, `irecv ${prev} 1 8`, 'wait', 'allreduce 1000 1000', 'alltoall 100 100', 'bcast 80000', 'barrier', 'finalize'];
      files.push(join(dir, `rank-${r}.txt`));
      await writeFile(files[r], lines.map((l) => `${r} ${l}\n`).join(''));
    }
    await writeFile(join(dir, 'index.txt'), `${files.join('\n')}\n`);
    await writeFile(join(dir, 'platform.xml'), `<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n<platform version="4.1">\n  <cluster id="c" prefix="node-" suffix="" radical="0-${ranks - 1}" speed="1Gf" bw="1.25GBps" lat="1us"/>\n</platform>\n`);
    await writeFile(join(dir, 'hosts'), `${Array.from({ length: ranks }, (_, r) => `node-${r}`).join('\n')}\n`);
    await quietly(async () => {
      const code = await runSimulation(undefined, [], { replay: join(dir, 'index.txt'), platform: join(dir, 'platform.xml'), hostfile: join(dir, 'hosts'), network: 'smpi', json: join(dir, 'summary.json'), quiet: true, cfg: [], param: [], compute: 'measured', procs: false, solveInterval: 0, messageOverhead: 0, listWorkloads: false, seed: 1 });
      if (code !== 0) throw new Error(`bundle: the simulator's warm-up replay exited with ${code}`);
      await main([process.execPath, 'tsmpi', 'sim', '--help']);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// The command line itself (dist/cli/main.js runs it) in one classic script with its code cache:
// resolving and compiling its ~40 ES modules and commander's files cost every tsmpi command
// ~40 ms before it began. The launchers, the report and calibration are in it too (loaded when
// their command runs); the simulator is not (it has its own script above). Warmed by the
// command's own help and version.
await bundleScript('dist/cli/program.js', 'dist/bundle/cli.cjs', EXTERNAL);
await writeScriptCache(resolve('dist/bundle/cli.cjs'), ({ main }) =>
  quietly(async () => {
    for (const line of [['--version'], ['--help'], ['run', '--help'], ['sim', '--help']]) await main([process.execPath, 'tsmpi', ...line]);
  }),
);

// tsmpi report inlines ECharts in every page it writes: the library's own minified build, copied
// beside the report's modules at build time (dist/report/), so a page never fetches anything.
await copyFile(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), 'dist/report/echarts.min.js');
