#!/usr/bin/env node
// Bundles the rank-side runtime (src/index.ts, compiled to dist/index.js by tsc) into one file,
// dist/tsmpi.js, which is what `import 'tsmpi'` loads. Every ES module a fresh worker thread
// loads costs it a few milliseconds; the ~30 modules of dist/ made 64 ranks take 2 s longer to
// start than 64 bare workers, one file takes them about as long as the bare workers.
// msgpackr stays external (loaded lazily on the first encoded value).
import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/index.js'],
  outfile: 'dist/tsmpi.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['msgpackr'],
  sourcemap: true,
  logLevel: 'warning',
});

// The simulator's command (`tsmpi sim`) in one file too: loading its ~100 modules one by one cost
// a 64-rank replay 0.3 s of its 1.1 s of CPU. In dist/bundle/, one level below dist/ like the
// modules it replaces, so paths relative to import.meta.url (dist/tsmpi.js) still resolve.
const { dependencies } = JSON.parse(await readFile('package.json', 'utf8'));
await build({
  entryPoints: ['dist/sim/cli-run.js'],
  outfile: 'dist/bundle/sim-cli.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: Object.keys(dependencies),
  sourcemap: true,
  logLevel: 'warning',
});
