/**
 * Maps stack traces of a compiled program back to its TypeScript sources, in the launcher.
 * Ranks do not enable source maps themselves: Node then parses every module's map in every worker
 * thread, which cost 64 ranks ~0.3 s of start-up. A failing rank's stack reaches the launcher as
 * text, and the launcher, which compiled the program and holds its map, rewrites the frames.
 * (TSMPI_SOURCE_MAPS=1 turns maps on inside the ranks, for programs that print stacks themselves.)
 * The simulator imports the bundle once per rank with a query (`app.mjs?tsmpi-rank=3`): frames
 * with a query map the same way.
 */
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Columns the compiler's input moved on one line of a source file (0-based line). */
export interface LineShift {
  line: number;
  columns: number;
}

/** What a stack mapper reads when it first maps a stack: the bundle's source map and the loader's column shifts. */
export interface BundleMap {
  payload: SourceMapPayload;
  /** By source URL, a line whose columns the loader moved (see app-loader.ts). */
  shifts: ReadonlyMap<string, LineShift>;
}

export class StackMapper {
  private map: { sourceMap: SourceMap; shifts: ReadonlyMap<string, LineShift> } | undefined;
  private readonly load: () => BundleMap;
  private readonly pattern: RegExp;

  /**
   * `load` is called on the first stack to map: parsing a program's map took ~5 ms of every
   * launcher's and rank process's start, and most runs never map a stack.
   */
  constructor(bundlePath: string, load: () => BundleMap) {
    this.load = load;
    const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.pattern = new RegExp(`(?:${escape(pathToFileURL(bundlePath).href)}|${escape(bundlePath)})(?:\\?[^:\\s)]*)?:(\\d+):(\\d+)`, 'g');
  }

  /** Rewrites every `bundle:line:column` (or `bundle?query:line:column`) in `stack` to `source:line:column`. */
  rewrite(stack: string): string {
    return stack.replace(this.pattern, (whole, line: string, column: string) => {
      if (this.map === undefined) {
        const { payload, shifts } = this.load();
        this.map = { sourceMap: new SourceMap(payload), shifts };
      }
      const entry = this.map.sourceMap.findEntry(Number(line) - 1, Number(column) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (entry.originalSource === undefined || entry.originalLine === undefined) return whole;
      const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : entry.originalSource;
      let originalColumn = entry.originalColumn ?? 0;
      const shift = this.map.shifts.get(entry.originalSource);
      if (shift !== undefined && shift.line === entry.originalLine) originalColumn = Math.max(0, originalColumn - shift.columns);
      return `${source}:${entry.originalLine + 1}:${originalColumn + 1}`;
    });
  }
}
