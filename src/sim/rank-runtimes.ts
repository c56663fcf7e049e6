/**
 * One copy of tsmpi's runtime per simulated rank, for predictions of a calibrated machine.
 *
 * In a real run every rank thread or process is its own V8 isolate: it compiles and warms up the
 * runtime's code by itself (interpreted first, optimised later, on cores the other ranks want).
 * For a short program that warm-up is most of a rank's time in tsmpi (an allreduce loop of 2
 * threads: 0.216 s the first pass, 0.028 s the third). Under the simulator all ranks run in one
 * isolate: with one shared runtime only the first rank to reach a code path pays for it. A copy
 * per rank, compiled under its own script name so that V8 shares neither bytecode, feedback nor
 * optimised code between copies, has each rank pay its own warm-up, measured as it runs.
 *
 * The program's bundle imports 'tsmpi' from a module inlined into it (app-loader.ts,
 * `tsmpiPerRank`): each rank's instance of the bundle asks the provider installed here for its
 * rank's copy while it is evaluated inside that rank's context.
 */
import { loadCachedScript } from '../bootstrap/cached-script.js';
import { RANK_RUNTIME_KEY } from '../bootstrap/rank-runtime-key.js';
import { runtimeCacheFor } from '../bootstrap/runtime-cache.js';

type Provider = () => Record<string, unknown>;

export class RankRuntimes {
  private readonly copies = new Map<number, Record<string, unknown>>();

  /** The code cache the copies load from: the one this process's V8 flags take (runtime-cache.ts). */
  private readonly cachePath: string | undefined;

  constructor(private readonly scriptPath: string) {
    this.cachePath = runtimeCacheFor(scriptPath);
  }

  /** The runtime's exports for `rank` (loaded the first time it is asked for). */
  exportsOf(rank: number): Record<string, unknown> {
    let copy = this.copies.get(rank);
    if (copy === undefined) {
      copy = loadCachedScript(this.scriptPath, `rank-${rank}`, this.cachePath).exports;
      this.copies.set(rank, copy);
    }
    return copy;
  }

  /** The names every copy exports (what the inlined module re-exports). */
  exportNames(): string[] {
    return Object.keys(this.exportsOf(0));
  }

  /** Lets bundles find their rank's copy; `currentRank` names the rank being evaluated. Returns the undo. */
  install(currentRank: () => number | undefined): () => void {
    const holder = globalThis as unknown as Record<symbol, Provider | undefined>;
    const key = Symbol.for(RANK_RUNTIME_KEY);
    const before = holder[key];
    holder[key] = () => {
      const rank = currentRank();
      if (rank === undefined) throw new Error("tsmpi sim: 'tsmpi' was imported outside any rank's context");
      return this.exportsOf(rank);
    };
    return () => {
      holder[key] = before;
    };
  }
}
