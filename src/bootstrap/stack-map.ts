/**
 * Maps stack traces of a compiled program back to its TypeScript sources, in the launcher.
 * Ranks do not enable source maps themselves: Node then parses every module's map in every worker
 * thread, which cost 64 ranks ~0.3 s of start-up. A failing rank's stack reaches the launcher as
 * text, and the launcher, which compiled the program and holds its map, rewrites the frames.
 * (TSMPI_SOURCE_MAPS=1 turns maps on inside the ranks, for programs that print stacks themselves.)
 */
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export class StackMapper {
  private readonly sourceMap: SourceMap;
  private readonly pattern: RegExp;

  constructor(bundlePath: string, payload: SourceMapPayload) {
    this.sourceMap = new SourceMap(payload);
    const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    this.pattern = new RegExp(`(?:${escape(pathToFileURL(bundlePath).href)}|${escape(bundlePath)}):(\\d+):(\\d+)`, 'g');
  }

  /** Rewrites every `bundle:line:column` in `stack` to `source:line:column`. */
  rewrite(stack: string): string {
    return stack.replace(this.pattern, (whole, line: string, column: string) => {
      const entry = this.sourceMap.findEntry(Number(line) - 1, Number(column) - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (entry.originalSource === undefined || entry.originalLine === undefined) return whole;
      const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : entry.originalSource;
      return `${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
    });
  }
}
