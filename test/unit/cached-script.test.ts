// How `import 'tsmpi'` loads the runtime: the built script from V8's code cache, falling back to
// its source when the cache is missing or refused; and a program's bundle keeps tsmpi an import.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadPreparedApp, prepareApp } from '../../src/bootstrap/app-loader.ts';
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
  // Compiled from the cache, the script's own import() has no callback on Node 20: programs come
  // through the importer its loader sets (esbuild is required, a CommonJS package).
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
    assert.deepEqual(imported.filter((s) => s === 'esbuild'), []);
    assert.equal(imported.filter((s) => s.includes('?tsmpi-rank=')).length, 2);
    assert.ok((JSON.parse(readFileSync(out, 'utf8')) as { makespan: number }).makespan > 0);
  } finally {
    rmSync(dirname(out), { recursive: true, force: true });
  }
});

test("a program's bundle takes tsmpi from its rank thread's preloaded runtime, else imports the installation's entry, and carries its map beside it", async () => {
  const app = await prepareApp(fileURLToPath(new URL('../../examples/pi.ts', import.meta.url)));
  try {
    assert.equal(app.runtimeScript, script);
    const code = readFileSync(fileURLToPath(app.url), 'utf8');
    assert.match(code, /globalThis\[(\/\* @__PURE__ \*\/ )?Symbol\.for\("tsmpi\.runtime"\)\]/);
    assert.match(code, /await import\("file:\/\/[^"]*\/dist\/tsmpi\.js"\)/);
    assert.doesNotMatch(code, /from "file:\/\/[^"]*\/dist\/tsmpi\.js"/);
    // The runtime's own code is not in it (its communicator class would be).
    assert.doesNotMatch(code, /class Communicator/);
    assert.match(code, /\/\/# sourceMappingURL=app\.mjs\.map\n$/);
    assert.ok(existsSync(`${fileURLToPath(app.url)}.map`));
  } finally {
    app.cleanup();
  }
  // Outside a rank thread nothing is preloaded: the bundle imports the entry, the same names.
  const reexport = await prepareApp(fixture('reexport-tsmpi.ts'));
  try {
    const bundled = (await import(reexport.url)) as Record<string, unknown>;
    const entry = (await import(new URL('../../dist/tsmpi.js', import.meta.url).href)) as Record<string, unknown>;
    assert.equal(bundled.init, entry.init);
    assert.equal(bundled.Op, entry.Op);
    assert.equal(bundled.ANY_SOURCE, -1);
  } finally {
    reexport.cleanup();
  }
});

test('a bundle compiled once maps stacks alike where another process loads it; a bundle that is gone is an error naming it', async () => {
  const program = fixture('import-meta.ts');
  const app = await prepareApp(program);
  try {
    assert.ok(app.bundle !== undefined && existsSync(app.bundle));
    const lines = readFileSync(app.bundle, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('boom on line 1'));
    const column = lines[line]!.indexOf('new Error') + 1;
    const stack = `Error: boom on line 1\n    at boom (${app.url}:${line + 1}:${column})`;
    const loaded = loadPreparedApp(app.bundle, program);
    assert.equal(loaded.url, app.url);
    assert.equal(loaded.path, program);
    const where = fixture('import-meta/where.ts');
    // Line 1 of where.ts carries the loader's import.meta prelude: its column is taken back in both.
    const expected = `${where}:1:${readFileSync(where, 'utf8').split('\n')[0]!.indexOf('new Error') + 1}`;
    assert.ok(app.mapStack(stack).includes(expected), app.mapStack(stack));
    assert.equal(loaded.mapStack(stack), app.mapStack(stack));
    loaded.cleanup();
    assert.ok(existsSync(app.bundle), "the loading process leaves the launcher's bundle alone");
  } finally {
    app.cleanup();
  }
  assert.throws(() => loadPreparedApp(app.bundle!, program), (error: Error & { code?: string }) => error.code === 'TSMPI_ERR_INIT' && error.message.includes(app.bundle!));
});

test('a script that is not ASCII gets no code cache: the build names the line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-wide-'));
  try {
    const path = join(dir, 'wide.cjs');
    writeFileSync(path, 'exports.a = 1;\n// \u03a3 over pairs\nexports.b = 2;\n');
    await assert.rejects(writeScriptCache(path), /wide\.cjs:2: '\u03a3' is not ASCII/);
    assert.equal(existsSync(`${path}.cache`), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const program of ['preloaded-runtime.ts', 'preloaded-runtime.mjs']) {
  for (const [mode, flags, env] of [['threads', [], {}], ['procs', ['--procs'], {}], ['shared threads', [], { TSMPI_RANKS_PER_THREAD: '2' }]] as const) {
    test(`a rank's 'tsmpi' is the runtime its thread loaded before the program (${program}, ${mode})`, { timeout: 60_000 }, async () => {
      const result = await tsmpi(['run', '-n', '2', ...flags, fixture(program)], { env });
      assert.equal(result.code, 0, explain(result));
      const lines = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number; preloaded: boolean; same: boolean; names: number });
      assert.deepEqual(lines.map((l) => l.rank).sort(), [0, 1], explain(result));
      const names = (JSON.parse(readFileSync(join(dist, 'runtime-exports.json'), 'utf8')) as string[]).length;
      for (const line of lines) assert.deepEqual({ preloaded: line.preloaded, same: line.same, names: line.names }, { preloaded: true, same: true, names });
    });
  }
}

for (const mode of ['threads', 'procs']) {
  test(`msgpackr is inside the runtime's script: a rank's first value loads none of its files, and its native extractor still comes (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '1', ...(mode === 'procs' ? ['--procs'] : []), fixture('first-value.ts')]);
    assert.equal(result.code, 0, explain(result));
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(line, explain(result));
    assert.deepEqual(JSON.parse(line), { same: true, msgpackrFiles: 0, extractor: true });
  });
}

test("a rank thread's start (init and a barrier) does not load perf_hooks: the rank's clock reads the monotonic clock", { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '2', fixture('start-modules.ts')]);
  assert.equal(result.code, 0, explain(result));
  const lines = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number });
  assert.deepEqual(lines.sort((a, b) => a.rank - b.rank), [{ rank: 0, perfHooks: false }, { rank: 1, perfHooks: false }]);
});
