// The runtime's code cache for other V8 flags: `tsmpi sim` runs V8 single-threaded with a larger
// young generation, where V8 refuses the build's cache; each simulated rank's runtime then compiled
// from source, which no real rank does. runtimeCacheFor makes a cache for those flags, once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
// From the build: it starts the build's writer (dist/bootstrap/write-runtime-cache.js).
import { cacheFlags, runtimeCacheFor } from '../../dist/bootstrap/runtime-cache.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const FLAGS = ['--single-threaded', '--max-semi-space-size=16'];

/** What became of `cache` when a process with `flags` loads `script` from it. */
function fate(flags: readonly string[], script: string, cache: string): string {
  const loader = join(dist, 'bootstrap', 'cached-script.js');
  const code = `import { loadCachedScript } from ${JSON.stringify(loader)}; process.stdout.write(loadCachedScript(${JSON.stringify(script)}, undefined, ${JSON.stringify(cache)}).cache);`;
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

test('Node\'s defaults take the build\'s cache; other flags get a cache of their own, made once, that V8 takes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-runtime-cache-'));
  try {
    // A copy of the built runtime (its own text, so its own key) with the build's cache beside it.
    const script = join(dir, 'runtime.cjs');
    writeFileSync(script, `${readFileSync(join(dist, 'runtime.cjs'), 'utf8')}\n// copy in ${dir}\n`);
    writeFileSync(`${script}.cache`, readFileSync(join(dist, 'runtime.cjs.cache')));
    assert.equal(runtimeCacheFor(script, []), `${script}.cache`);
    const twin = runtimeCacheFor(script, FLAGS);
    assert.ok(twin !== undefined && /runtime\.cjs\.[0-9a-f]{16}\.cache$/.test(twin), String(twin));
    assert.equal(fate(FLAGS, script, twin), 'used', 'V8 under those flags takes the cache made for them');
    assert.equal(fate(FLAGS, script, `${script}.cache`), 'rejected', 'and refuses the build\'s');
    const made = statSync(twin).mtimeMs;
    assert.equal(runtimeCacheFor(script, FLAGS), twin, 'the same flags find it again');
    assert.equal(statSync(twin).mtimeMs, made, 'without making it again');
    assert.notEqual(runtimeCacheFor(script, ['--single-threaded']), twin, 'other flags, another cache');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('flags a code cache does not depend on (profiles, inspectors, reports) neither key a cache nor reach its writer', () => {
  assert.deepEqual(cacheFlags(['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--no-concurrent-recompilation']), ['--no-concurrent-recompilation']);
  assert.deepEqual(cacheFlags(['--cpu-prof-dir=/tmp/p', '--heap-prof', '--inspect=9229', '--prof', '--max-semi-space-size=16']), ['--max-semi-space-size=16']);
  assert.deepEqual(cacheFlags(['--single-threaded', '--report-on-signal', '--diagnostic-dir', 'd']), ['--single-threaded']);
  assert.deepEqual(cacheFlags([]), []);
  // Profiling alone: the build's own cache, nothing made.
  const runtime = join(dist, 'runtime.cjs');
  assert.equal(runtimeCacheFor(runtime, ['--cpu-prof', '--cpu-prof-dir=/tmp/x']), `${runtime}.cache`);
});
