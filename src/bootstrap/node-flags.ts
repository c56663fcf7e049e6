/**
 * The Node flags a launcher passes on to the rank processes it starts: its own (`node --cpu-prof
 * tsmpi run --procs ...` profiles every rank process, as worker-thread ranks inherit the flags of
 * their process), less those that would clash between processes or do not apply to a launched
 * script: the inspector's (one port), evaluation, the test runner and watch mode.
 */
const NOT_FORWARDED = /^(--inspect|--debug|--eval|--print|--test|--watch|--input-type|-e$|-p$)/;
/** Dropped flags whose value may come as the next argument. */
const VALUE_FOLLOWS = new Set(['--inspect-port', '--debug-port', '--eval', '--print', '-e', '-p', '--input-type', '--watch-path', '--test-name-pattern', '--test-reporter', '--test-reporter-destination']);

export function rankProcessFlags(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (!NOT_FORWARDED.test(flag)) {
      out.push(flag);
      continue;
    }
    if (VALUE_FOLLOWS.has(flag) && i + 1 < execArgv.length && !execArgv[i + 1]!.startsWith('-')) i++;
  }
  return out;
}
