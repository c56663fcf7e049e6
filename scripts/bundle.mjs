#!/usr/bin/env node
// Bundles the rank-side runtime (src/index.ts, compiled to dist/index.js by tsc) into one classic
// script, dist/runtime.cjs, with V8's code cache for it beside it (dist/runtime.cjs.cache), and
// writes dist/tsmpi.js, the ES entry `import 'tsmpi'` loads: it compiles the script from the cache
// and re-exports its names (src/bootstrap/runtime-script.ts says why). Every ES module a fresh
// worker thread loads costs it a few milliseconds, and compiling the runtime from source cost
// 64 ranks ~0.5 s of their start on 2 cores; from the cache, V8 deserialises instead.
// The TCP stack (sockets, the handshake's crypto) stays lazily initialised inside the script.
// msgpackr stays external (loaded lazily on the first encoded value).
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, resolve } from 'node:path';
import { build } from 'esbuild';
import { MODULE_URL_IDENTIFIER, writeRuntimeCache } from '../dist/bootstrap/runtime-script.js';

const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', splitting: true, chunkNames: '[name]-[hash]', sourcemap: true, logLevel: 'warning', metafile: true };
const HASHED = /-[A-Z0-9]{8}\.js(\.map)?$/;

/** Removes the split files of `dir` an earlier build left (their names carry a content hash) and this one did not write. */
async function removeStale(dir, written) {
  for (const name of await readdir(dir)) if (HASHED.test(name) && !written.has(name) && !written.has(name.replace(/\.map$/, ''))) await rm(`${dir}/${name}`);
}

/** Builds, then removes split files an earlier build left. */
async function bundle(options) {
  const { metafile } = await build({ ...common, ...options });
  await removeStale(options.outdir, new Set(Object.keys(metafile.outputs).map((path) => basename(path))));
}

await build({
  entryPoints: ['dist/index.js'],
  outfile: 'dist/runtime.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  external: ['msgpackr'],
  define: { 'import.meta.url': MODULE_URL_IDENTIFIER },
});
// Warmed by a world of one rank: init, a few calls, finalize, as a program's first steps.
const names = await writeRuntimeCache(resolve('dist/runtime.cjs'), async ({ init, finalize, Op }) => {
  const comm = await init();
  await comm.barrier();
  await comm.allreduce(1, Op.sum);
  await comm.bcast(new Float64Array(4), 0);
  await finalize();
});
await build({
  stdin: {
    contents: [
      "import { fileURLToPath } from 'node:url';",
      "import { loadRuntimeScript } from './bootstrap/runtime-script.js';",
      "const runtime = loadRuntimeScript(fileURLToPath(new URL('./runtime.cjs', import.meta.url))).exports;",
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
await removeStale('dist', new Set());

// The simulator's command (`tsmpi sim`) in one file too: loading its ~100 modules one by one cost
// a 64-rank replay 0.3 s of its 1.1 s of CPU. In dist/bundle/, one level below dist/ like the
// modules it replaces, so paths relative to import.meta.url (dist/tsmpi.js) still resolve. The
// XML parser is bundled as well (its ~10 modules resolved one by one cost a replay ~15 ms).
const { dependencies } = JSON.parse(await readFile('package.json', 'utf8'));
await bundle({
  entryPoints: { 'sim-cli': 'dist/sim/cli-run.js' },
  outdir: 'dist/bundle',
  external: Object.keys(dependencies).filter((name) => name !== 'fast-xml-parser'),
});

// tsmpi report inlines ECharts in every page it writes: the library's own minified build, copied
// beside the report's modules at build time (dist/report/), so a page never fetches anything.
await copyFile(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), 'dist/report/echarts.min.js');
