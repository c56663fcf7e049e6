// How `import 'tsmpi'` loads the runtime: the built script from V8's code cache, falling back to
// its source when the cache is missing or refused; and a program's bundle keeps tsmpi an import.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { prepareApp } from '../../src/bootstrap/app-loader.ts';
import { loadCachedScript, writeScriptCache } from '../../src/bootstrap/cached-script.ts';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const script = join(dist, 'runtime.cjs');

/**
 * A copy of the built script in a directory of its own. Its text differs by a comment: V8 would
 * otherwise find the dist copy's compiled code in this isolate and never look at the cache.
 */
function copyOfRuntime(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-runtime-'));
  writeFileSync(join(dir, 'runtime.cjs'), `${readFileSync(script, 'utf8')}\n// copy in ${dir}\n`);
  return { dir, path: join(dir, 'runtime.cjs') };
}

test('the built runtime loads from its code cache, which V8 takes', () => {
  assert.ok(existsSync(`${script}.cache`), 'npm run build writes dist/runtime.cjs.cache');
  const { exports, cache } = loadCachedScript(script);
  assert.equal(cache, 'used');
  assert.equal(typeof exports.init, 'function');
  assert.equal(exports.ANY_SOURCE, -1);
});

test('a missing or foreign cache costs only the parse: the runtime is the same', async () => {
  const { dir, path } = copyOfRuntime();
  try {
    writeFileSync(`${path}.cache`, Buffer.alloc(4096, 0x5a));
    const refused = loadCachedScript(path);
    rmSync(`${path}.cache`);
    const missing = loadCachedScript(path);
    assert.equal(missing.cache, 'missing');
    assert.equal(refused.cache, 'rejected');
    assert.deepEqual(Object.keys(refused.exports).sort(), Object.keys(missing.exports).sort());
    const names = await writeScriptCache(path);
    assert.deepEqual(names.sort(), Object.keys(missing.exports).sort());
    assert.equal(loadCachedScript(path).cache, 'used');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the package's entry re-exports every name of the runtime script", async () => {
  const entry = (await import(new URL('../../dist/tsmpi.js', import.meta.url).href)) as Record<string, unknown>;
  const { exports } = loadCachedScript(script);
  assert.deepEqual(Object.keys(entry).sort(), Object.keys(exports).sort());
  assert.equal(typeof entry.init, 'function');
  assert.equal(typeof entry.TsmpiError, 'function');
});

test("the simulator's command loads from its code cache, and imports a program through the importer it is given", async () => {
  const simScript = join(dist, 'bundle', 'sim-cli.cjs');
  assert.ok(existsSync(`${simScript}.cache`), 'npm run build writes dist/bundle/sim-cli.cjs.cache');
  const { exports, cache } = loadCachedScript(simScript);
  assert.equal(cache, 'used');
  assert.equal(typeof exports.runSimulation, 'function');
  // Compiled from the cache, the script's own import() has no callback on Node 20: programs and
  // esbuild come through the importer its loader sets.
  const imported: string[] = [];
  (exports.setModuleImporter as (next: (specifier: string) => Promise<unknown>) => void)((specifier) => {
    imported.push(specifier);
    return import(specifier);
  });
  const out = join(mkdtempSync(join(tmpdir(), 'tsmpi-sim-')), 'summary.json');
  try {
    const run = exports.runSimulation as (program: string, args: string[], flags: Record<string, unknown>) => Promise<number>;
    const write = process.stdout.write;
    process.stdout.write = () => true;
    let code: number;
    try {
      code = await run(fileURLToPath(new URL('../../examples/pi.ts', import.meta.url)), [], { np: 2, quiet: true, json: out, cfg: [], param: [], compute: 'declared', procs: false, solveInterval: 0, messageOverhead: 0, listWorkloads: false, seed: 1 });
    } finally {
      process.stdout.write = write;
    }
    assert.equal(code, 0);
    assert.deepEqual(imported.filter((s) => s === 'esbuild'), ['esbuild']);
    assert.equal(imported.filter((s) => s.includes('?tsmpi-rank=')).length, 2);
    assert.ok((JSON.parse(readFileSync(out, 'utf8')) as { makespan: number }).makespan > 0);
  } finally {
    rmSync(dirname(out), { recursive: true, force: true });
  }
});

test("a program's bundle imports tsmpi from the installation and carries its map beside it", async () => {
  const app = await prepareApp(fileURLToPath(new URL('../../examples/pi.ts', import.meta.url)));
  try {
    const code = readFileSync(fileURLToPath(app.url), 'utf8');
    assert.match(code, /from "file:\/\/[^"]*\/dist\/tsmpi\.js"/);
    // The runtime's own code is not in it (its communicator class would be).
    assert.doesNotMatch(code, /class Communicator/);
    assert.match(code, /\/\/# sourceMappingURL=app\.mjs\.map\n$/);
    assert.ok(existsSync(`${fileURLToPath(app.url)}.map`));
  } finally {
    app.cleanup();
  }
});

for (const mode of ['threads', 'procs']) {
  test(`msgpackr is inside the runtime's script: a rank's first value loads none of its files, and its native extractor still comes (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '1', ...(mode === 'procs' ? ['--procs'] : []), fixture('first-value.ts')]);
    assert.equal(result.code, 0, explain(result));
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(line, explain(result));
    assert.deepEqual(JSON.parse(line), { same: true, msgpackrFiles: 0, extractor: true });
  });
}
