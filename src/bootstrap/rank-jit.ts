/**
 * Where V8 compiles a rank's hot code (TSMPI_JIT_ON_RANK). By default V8 optimises a function on
 * a background thread while the rank goes on in the interpreter, which pays when a core is free.
 * When the ranks fill the machine's cores, that thread waits for a core as long as the ranks
 * compute, and a rank's first pass through its kernels runs interpreted all that while (measured
 * in docs/guide.md, "Compiling in place when the ranks fill the cores"). Then each rank's isolate
 * optimises functions on its own thread (`on`), and with `all` also replaces running loops there
 * (on-stack replacement), as `tsmpi sim` does for every rank. `all` is not the default: V8 refuses
 * code caches made without it, Node's own included, so every rank thread compiles Node's
 * internals from source as it starts.
 */
import { setFlagsFromString } from 'node:v8';
import type { JitPlace } from '../config/tunables.js';

const FUNCTIONS = 'concurrent-recompilation';
const LOOPS = 'concurrent-osr';

/** The V8 flags of `place`: those that differ from V8's defaults (what a code cache must be made under). */
export function jitV8Flags(place: JitPlace): string[] {
  return place === 'off' ? [] : place === 'on' ? [`--no-${FUNCTIONS}`] : [`--no-${FUNCTIONS}`, `--no-${LOOPS}`];
}

/** The V8 flags that make new isolates compile as `place` says, less those the user gave Node either way (theirs to keep). */
export function jitFlags(place: JitPlace, execArgv: readonly string[]): string[] {
  const base = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-').replace(/^--(no-)?/, '');
  const given = new Set(execArgv.filter((a) => a.startsWith('--')).map(base));
  const inPlace = new Set(jitV8Flags(place).map(base));
  return [FUNCTIONS, LOOPS].filter((f) => !given.has(f)).map((f) => (inPlace.has(f) ? `--no-${f}` : `--${f}`));
}

let current: JitPlace = 'off';
let added: readonly string[] = [];

/**
 * Sets how the isolates this process creates from now on (rank threads) compile. The flags are
 * the process's: a later job of the same process that wants another place gets it. Returns the
 * flags the rank threads run with beyond `execArgv` that differ from V8's defaults: V8 refuses a
 * code cache made under other flags, so the runtime's cache must be made under them.
 */
export function compileOnRankThreads(place: JitPlace, execArgv: readonly string[] = process.execArgv): readonly string[] {
  if (place === current) return added;
  const flags = jitFlags(place, execArgv);
  if (flags.length > 0) setFlagsFromString(flags.join(' '));
  current = place;
  added = flags.filter((f) => f.startsWith('--no-'));
  return added;
}
