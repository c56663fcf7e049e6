/**
 * Turns the program a user names into something a worker thread can import. JavaScript programs
 * are imported as they are. TypeScript programs are compiled once, in the launcher, by esbuild
 * into one ES module (the program's own files bundled, packages from node_modules left as imports
 * by absolute URL), instead of every rank loading a TypeScript loader: a loader per worker thread
 * measured 5x slower to start 64 ranks (8.2-9.6 s against 1.6-1.9 s for plain workers).
 * `import.meta` (url, dirname, filename, resolve) keeps its meaning per source file: esbuild's
 * `define` replaces only real `import.meta` expressions (never text inside strings or comments)
 * with a per-file object that the loader declares at the top of that file; the bundler's scope
 * hoisting keeps one such object per module. A source map beside it makes stack traces point at the
 * .ts lines.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin, type SourceMapPayload } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ErrorCode, TsmpiError } from '../errors.js';
import { StackMapper, type BundleMap, type LineShift } from './stack-map.js';
import { PRELOADED_RUNTIME_KEY, RANK_RUNTIME_KEY } from './rank-runtime-key.js';

export interface PreparedApp {
  /** URL to import in each rank. */
  url: string;
  /** Maps stack traces of the compiled program to its sources (identity for JavaScript). */
  mapStack(stack: string): string;
  /** Absolute path of the program as given. */
  path: string;
  /** Removes compiled output. */
  cleanup(): void;
  /** The runtime script a rank thread loads before the program (rank-thread.ts), when installed. */
  runtimeScript?: string;
  /**
   * The compiled bundle, when the program was compiled: the processes a launcher starts on its
   * own machine import it ({@link loadPreparedApp}) instead of compiling the program each.
   */
  bundle?: string;
}

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

function loaderFor(path: string): 'ts' | 'tsx' | 'js' {
  const ext = extname(path);
  return ext === '.tsx' ? 'tsx' : TS_EXTENSIONS.has(ext) ? 'ts' : 'js';
}

export interface PrepareOptions {
  /**
   * Import 'tsmpi' from this installation's one-file runtime, never bundling a copy: the
   * simulator loads the program once per rank and all ranks must share one tsmpi.
   */
  shareTsmpi?: boolean;
  /**
   * Import 'tsmpi' from the rank's own copy of the runtime instead (the simulator's per-rank
   * runtimes, sim/rank-runtimes.ts): a module inlined into the bundle re-exports these names from
   * the copy the provider gives while the rank's instance of the bundle is evaluated.
   */
  rankRuntimeExports?: readonly string[];
}

/**
 * The runtime bundle this installation's `import 'tsmpi'` loads: beside this module in dist/, or
 * dist/'s when the simulator runs from the TypeScript sources (benchmarks and tests under tsx).
 */
const tsmpiBundle = [new URL('../tsmpi.js', import.meta.url), new URL('../../dist/tsmpi.js', import.meta.url)].find((url) => existsSync(url))?.href ?? new URL('../tsmpi.js', import.meta.url).href;

/** The runtime's install path, beside its entry (the simulator loads a copy per rank from it). */
export const tsmpiRuntimeScript = fileURLToPath(new URL('./runtime.cjs', tsmpiBundle));

/** The runtime script a rank thread loads before the program, when this installation has it built. */
function installedRuntime(): { runtimeScript?: string } {
  return existsSync(tsmpiRuntimeScript) ? { runtimeScript: tsmpiRuntimeScript } : {};
}

/**
 * The runtime's export names (scripts/bundle.mjs writes them beside the entry); undefined when the
 * file is not there (the runtime run from its TypeScript sources).
 */
function runtimeExportNames(): string[] | undefined {
  const file = new URL('./runtime-exports.json', tsmpiBundle);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : undefined;
}

/**
 * The 'tsmpi' a bundle gets in a real run: the runtime its rank thread loaded before it
 * (rank-thread.ts), or else the installation's entry (the same runtime, one ES module more).
 */
function preloadedRuntimeModule(names: readonly string[]): string {
  const key = `Symbol.for(${JSON.stringify(PRELOADED_RUNTIME_KEY)})`;
  const lines = [
    `const preloaded = globalThis[${key}];`,
    `const runtime = preloaded?.path === ${JSON.stringify(tsmpiRuntimeScript)} ? preloaded.exports : await import(${JSON.stringify(tsmpiBundle)});`,
  ];
  for (const name of names) lines.push(`export const ${name} = runtime[${JSON.stringify(name)}];`);
  return lines.join('\n');
}

/** The 'tsmpi' a bundle gets with per-rank runtimes: the names of its rank's copy. */
function rankRuntimeModule(names: readonly string[]): string {
  const lines = [`const runtime = globalThis[Symbol.for(${JSON.stringify(RANK_RUNTIME_KEY)})]();`];
  for (const name of names) lines.push(`export const ${name} = runtime[${JSON.stringify(name)}];`);
  return lines.join('\n');
}

/** Names the bundle a launcher compiled for the processes it starts on its machine (process-launcher.ts, exec-host.ts). */
export const APP_BUNDLE_ENV = 'TSMPI_APP_BUNDLE';

/** The field of a bundle's map that holds the loader's column shifts (see prepareApp). */
const SHIFTS_FIELD = 'x_tsmpi_shifts';

/** What `import.meta` becomes in a program's own files: a per-file object (see withMetaPrelude). */
const META_IDENTIFIER = '__tsmpi_import_meta';
/**
 * Placed once at the top of the bundle: `import.meta.resolve` of a file resolves from that file,
 * not from the bundle's temporary directory (relative and URL specifiers against the file's URL,
 * packages through Node's resolution from the file's folder).
 */
const RESOLVE_BODY = [
  'const __tsmpiResolve = (specifier, parent) => /^(\\.{0,2}\\/|[a-z][a-z0-9+.-]*:)/i.test(specifier) ? new URL(specifier, parent).href',
  ": __tsmpiIsBuiltin(specifier) ? `node:${specifier}` : __tsmpiPathToFileURL(__tsmpiCreateRequire(parent).resolve(specifier)).href;",
].join(' ');
/**
 * The helper's Node functions. Where Node has `process.getBuiltinModule` (20.16 and later) they
 * are taken from it, not imported: the ES facades of node:module and node:url cost every rank
 * thread ~1.3 ms of its start (64 ranks on 2 cores: ~40 ms), and the URL module is loaded only
 * when `import.meta.resolve` runs. `globalThis.process`: a program may declare its own `process`.
 */
const RESOLVE_HELPER =
  typeof (process as { getBuiltinModule?: unknown }).getBuiltinModule === 'function'
    ? [
        "const { createRequire: __tsmpiCreateRequire, isBuiltin: __tsmpiIsBuiltin } = globalThis.process.getBuiltinModule('node:module');",
        "const __tsmpiPathToFileURL = (path) => globalThis.process.getBuiltinModule('node:url').pathToFileURL(path);",
        RESOLVE_BODY,
      ].join(' ')
    : [
        "import { createRequire as __tsmpiCreateRequire, isBuiltin as __tsmpiIsBuiltin } from 'node:module';",
        "import { pathToFileURL as __tsmpiPathToFileURL } from 'node:url';",
        RESOLVE_BODY,
      ].join(' ');

/**
 * Declares the file's own `import.meta` object in front of its first line (after a `#!` line), on
 * that same line so that every other line keeps its number and columns; `shift` is how many
 * columns that line (0-based) moved, which the stack mapper takes back. esbuild's `define` then points
 * every real `import.meta` expression of the file at it, and drops it when nothing uses it.
 */
export function withMetaPrelude(source: string, path: string): { contents: string; shift: LineShift } {
  const url = JSON.stringify(pathToFileURL(path).href);
  const prelude = `const ${META_IDENTIFIER} = { url: ${url}, dirname: ${JSON.stringify(dirname(path))}, filename: ${JSON.stringify(path)}, resolve: (specifier) => __tsmpiResolve(specifier, ${url}) }; `;
  if (source.startsWith('#!')) {
    const eol = source.indexOf('\n');
    if (eol < 0) return { contents: source, shift: { line: 0, columns: 0 } };
    return { contents: `${source.slice(0, eol + 1)}${prelude}${source.slice(eol + 1)}`, shift: { line: 1, columns: prelude.length } };
  }
  return { contents: prelude + source, shift: { line: 0, columns: prelude.length } };
}

export async function prepareApp(program: string, operation = 'tsmpi run', options: PrepareOptions = {}): Promise<PreparedApp> {
  const path = resolve(program);
  try {
    readFileSync(path);
  } catch {
    throw new TsmpiError(ErrorCode.Arg, `cannot read the program ${program}`, { operation, hint: 'give the path of a .ts or .js file' });
  }
  const ext = extname(path);
  const perRank = options.rankRuntimeExports;
  const runtimeScript = installedRuntime();
  if (JS_EXTENSIONS.has(ext) && !options.shareTsmpi && perRank === undefined) return { url: pathToFileURL(path).href, path, mapStack: (stack) => stack, cleanup: () => {}, ...runtimeScript };
  if (!TS_EXTENSIONS.has(ext) && !JS_EXTENSIONS.has(ext)) {
    throw new TsmpiError(ErrorCode.Arg, `${program} is not a .ts, .mts, .tsx, .js or .mjs file`, { operation, hint: 'rename the program or give its compiled .js' });
  }
  // Required, not imported: an ES import of a CommonJS package has Node scan its whole source
  // for export names first (esbuild's: ~40 ms of every `tsmpi run` of a .ts program, against ~10).
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const preloadedNames = perRank === undefined && !options.shareTsmpi ? runtimeExportNames() : undefined;
  const preludeShifts = new Map<string, LineShift>();
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-app-'));
  const out = join(dir, 'app.mjs');
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      write: false,
      outfile: out,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'external',
      logLevel: 'silent',
      banner: { js: `${RESOLVE_HELPER} const require = __tsmpiCreateRequire(${JSON.stringify(pathToFileURL(path).href)});` },
      define: { 'import.meta': META_IDENTIFIER },
      plugins: [
        {
          name: 'tsmpi-externals',
          setup(build) {
            // Packages installed in node_modules stay imports (by absolute URL, since the bundle
            // lives in a temporary directory); workspace and self-referencing packages whose
            // entry is not inside node_modules get bundled like the program's own files.
            build.onResolve({ filter: /^[^./]|^\.[^./]|^\.\.[^/]/ }, async (args) => {
              if (args.pluginData === 'tsmpi-resolving' || isBuiltin(args.path) || /^[a-z]+:/i.test(args.path)) return undefined;
              if (perRank !== undefined && args.path === 'tsmpi') return { path: 'tsmpi', namespace: 'tsmpi-rank-runtime' };
              if (options.shareTsmpi && args.path === 'tsmpi') return { path: tsmpiBundle, external: true };
              const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'tsmpi-resolving' });
              if (found.errors.length > 0 || found.external) return undefined;
              // tsmpi itself is never bundled: its entry loads the runtime from V8's code cache
              // (cached-script.ts), which a copy inside the bundle would compile from source.
              const isTsmpi = args.path === 'tsmpi' || args.path.startsWith('tsmpi/');
              if (args.path === 'tsmpi' && preloadedNames !== undefined && pathToFileURL(found.path).href === tsmpiBundle) return { path: 'tsmpi', namespace: 'tsmpi-preloaded' };
              if ((isTsmpi || /[\\/]node_modules[\\/]/.test(found.path)) && !TS_EXTENSIONS.has(extname(found.path))) {
                return { path: pathToFileURL(found.path).href, external: true };
              }
              return { path: found.path };
            });
            if (perRank !== undefined) build.onLoad({ filter: /^tsmpi$/, namespace: 'tsmpi-rank-runtime' }, () => ({ contents: rankRuntimeModule(perRank), loader: 'js' }));
            if (preloadedNames !== undefined) {
              build.onLoad({ filter: /^tsmpi$/, namespace: 'tsmpi-preloaded' }, () => ({ contents: preloadedRuntimeModule(preloadedNames), loader: 'js' }));
              // Its fallback, the installation's entry by URL, stays an import.
              build.onResolve({ filter: /.*/, namespace: 'tsmpi-preloaded' }, (args) => ({ path: args.path, external: true }));
            }
            // Keep import.meta per source file (see metaPrelude).
            build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
              if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
              const source = readFileSync(args.path, 'utf8');
              if (!source.includes('import.meta')) return { contents: source, loader: loaderFor(args.path) };
              const { contents, shift } = withMetaPrelude(source, args.path);
              if (shift.columns > 0) preludeShifts.set(pathToFileURL(args.path).href, shift);
              return { contents, loader: loaderFor(args.path) };
            });
          },
        },
      ],
    });
  } catch (cause) {
    rmSync(dir, { recursive: true, force: true });
    const errors = (cause as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    const first = errors[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column}: ` : '';
    throw new TsmpiError(ErrorCode.Arg, `cannot compile ${program}: ${where}${first?.text ?? String(cause)}`, {
      operation,
      hint: 'fix the program so that it compiles (esbuild checks syntax, not types)',
      cause,
    });
  }
  const code = result.outputFiles.find((f) => f.path.endsWith('.mjs'))!.text;
  const map = JSON.parse(result.outputFiles.find((f) => f.path.endsWith('.map'))!.text) as SourceMapPayload;
  // Stack traces must name the real files, not paths relative to the temporary bundle.
  map.sources = map.sources.map((source) => pathToFileURL(resolve(dir, source)).href);
  // The map is a file beside the bundle, not inline: every rank thread scans its module's whole
  // source, and an inline map more than doubled it. Node reads the file only in ranks that enable
  // source maps (TSMPI_SOURCE_MAPS); the launcher maps failing ranks' stacks itself.
  // The loader's column shifts travel in the map (an x_ field, which source map readers skip), so
  // that a process mapping stacks of a bundle it did not compile maps them alike.
  writeFileSync(`${out}.map`, JSON.stringify({ ...map, [SHIFTS_FIELD]: Object.fromEntries(preludeShifts) }));
  writeFileSync(out, `${code.replace(/\/\/# sourceMappingURL=.*\s*$/, '')}//# sourceMappingURL=app.mjs.map\n`);
  const mapper = new StackMapper(out, () => bundleMapOf(out));
  return { url: pathToFileURL(out).href, path, bundle: out, mapStack: (stack) => mapper.rewrite(stack), cleanup: () => rmSync(dir, { recursive: true, force: true }), ...runtimeScript };
}

/** A compiled bundle's map and the loader's column shifts, read from the map beside it (see prepareApp). */
function bundleMapOf(bundle: string): BundleMap {
  const payload = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as SourceMapPayload & { [SHIFTS_FIELD]?: Record<string, LineShift> };
  return { payload, shifts: new Map(Object.entries(payload[SHIFTS_FIELD] ?? {})) };
}

/**
 * A program another process of this machine compiled already ({@link PreparedApp.bundle}): its
 * bundle imported as it is, its map read only if a stack is mapped. Compiling the program in each
 * process of `tsmpi run --procs` cost every one ~50 ms before its ranks could start (8 processes
 * on 2 cores: ~0.2 s of the job's start). The launcher that compiled it removes it.
 */
export function loadPreparedApp(bundle: string, program: string): PreparedApp {
  const path = resolve(program);
  if (!existsSync(bundle)) {
    throw new TsmpiError(ErrorCode.Init, `the compiled program ${bundle} is gone`, {
      operation: 'tsmpi exec',
      hint: 'the launcher that compiled it removes it when its job ends; start the job again',
    });
  }
  const mapper = new StackMapper(bundle, () => bundleMapOf(bundle));
  return { url: pathToFileURL(bundle).href, path, mapStack: (stack) => mapper.rewrite(stack), cleanup: () => {}, ...installedRuntime() };
}
