#!/usr/bin/env node
// Bundles the rank-side runtime (src/index.ts, compiled to dist/index.js by tsc) into one file,
// dist/tsmpi.js, which is what `import 'tsmpi'` loads. Every ES module a fresh worker thread
// loads costs it a few milliseconds; the ~30 modules of dist/ made 64 ranks take 2 s longer to
// start than 64 bare workers, one file takes them about as long as the bare workers.
// msgpackr stays external (loaded lazily on the first encoded value).
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
