/**
 * Where V8 compiles a rank's hot code (TSMPI_JIT_ON_RANK). By default V8 optimises a function on
 * a background thread while the rank goes on in the interpreter, which pays when a core is free.
 * When the ranks fill the machine's cores, that thread waits for a core as long as the ranks
 * compute, and a rank's first pass through a loop runs interpreted all that while (measured in
 * docs/guide.md, "Compiling in place when the ranks fill the cores").
 * Then each rank's isolate compiles on its own thread, as `tsmpi sim` does for every rank.
 */
import { setFlagsFromString } from 'node:v8';

/** What V8 is told: optimise and replace running loops on the rank's own thread. */
const IN_PLACE = ['--no-concurrent-recompilation', '--no-concurrent-osr'];
const IN_BACKGROUND = ['--concurrent-recompilation', '--concurrent-osr'];

let inPlace = false;

/** The V8 flags that make new isolates compile in place (`on`) or in the background, less those the user gave Node either way (theirs to keep). */
export function jitFlags(on: boolean, execArgv: readonly string[]): string[] {
  const base = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-').replace(/^--(no-)?/, '');
  const given = new Set(execArgv.filter((a) => a.startsWith('--')).map(base));
  return (on ? IN_PLACE : IN_BACKGROUND).filter((f) => !given.has(base(f)));
}

/**
 * Sets how the isolates this process creates from now on (rank threads) compile. The flags are
 * the process's: a later job of the same process that wants the default gets it back.
 */
export function compileOnRankThreads(on: boolean, execArgv: readonly string[] = process.execArgv): void {
  if (on === inPlace) return;
  const flags = jitFlags(on, execArgv);
  if (flags.length > 0) setFlagsFromString(flags.join(' '));
  inPlace = on;
}
