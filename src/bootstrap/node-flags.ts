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
  return withoutFlags(execArgv, NOT_FORWARDED, VALUE_FOLLOWS);
}

/** `execArgv` less the flags `dropped` matches, with their values when given as the next argument (`valueFollows`). */
export function withoutFlags(execArgv: readonly string[], dropped: RegExp, valueFollows: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (!dropped.test(flag)) {
      out.push(flag);
      continue;
    }
    if (valueFollows.has(flag) && i + 1 < execArgv.length && !execArgv[i + 1]!.startsWith('-')) i++;
  }
  return out;
}
