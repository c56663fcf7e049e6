#!/usr/bin/env node
// Bundles the rank-side runtime (src/index.ts, compiled to dist/index.js by tsc) into one file,
// dist/tsmpi.js, which is what `import 'tsmpi'` loads. Every ES module a fresh worker thread
// loads costs it a few milliseconds; the ~30 modules of dist/ made 64 ranks take 2 s longer to
// start than 64 bare workers, one file takes them about as long as the bare workers.
// What only some ranks need (the TCP stack: sockets, the handshake's crypto) is a dynamic import,
// split into its own file beside the bundle (same directory: import.meta.url paths still resolve).
// msgpackr stays external (loaded lazily on the first encoded value).
import { copyFile, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { build } from 'esbuild';

const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', splitting: true, chunkNames: '[name]-[hash]', sourcemap: true, logLevel: 'warning', metafile: true };
const HASHED = /-[A-Z0-9]{8}\.js(\.map)?$/;

/** Builds, then removes split files an earlier build left (their names carry a content hash). */
async function bundle(options) {
  const { metafile } = await build({ ...common, ...options });
  const written = new Set(Object.keys(metafile.outputs).map((path) => basename(path)));
  const dir = options.outdir;
  for (const name of await readdir(dir)) if (HASHED.test(name) && !written.has(name) && !written.has(name.replace(/\.map$/, ''))) await rm(`${dir}/${name}`);
}

await bundle({
  entryPoints: { tsmpi: 'dist/index.js' },
  outdir: 'dist',
  external: ['msgpackr'],
});

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
