// Runs of the staged-collective fixtures (staged-allreduces.ts, staged-gathers.ts), as their tests
// check them: every rank prints `rank R ok`, and a traced run counts its call slices and messages.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explain, fixture, tsmpi, type JobResult } from './run-job.ts';

export type Launch = [args: string[], env: Record<string, string>];

function assertEveryRankOk(r: JobResult, args: string[]): void {
  assert.equal(r.code, 0, explain(r));
  const ranks = Number(args[args.indexOf('-n') + 1]);
  assert.equal(r.stdout.split('\n').filter((line) => / ok$/.test(line)).length, ranks, explain(r));
}

/**
 * The message flows of a traced run of `name` with `only` (every rank must print ok), which must
 * hold `slicesPerRank` call slices named one of `calls` on each rank.
 */
export async function stagedFlows(name: string, [args, env]: Launch, calls: readonly string[], slicesPerRank: number): Promise<number> {
  const file = join(tmpdir(), `tsmpi-${name}-${process.pid}-${args.join('')}-${Object.values(env).join('-')}.json`);
  try {
    const r = await tsmpi(['run', ...args, '--trace', file, fixture(name), 'only'], { env, timeoutMs: 80_000 });
    assertEveryRankOk(r, args);
    const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: { ph: string; name: string }[] };
    const ranks = Number(args[args.indexOf('-n') + 1]);
    assert.equal(trace.traceEvents.filter((e) => e.ph === 'X' && calls.includes(e.name)).length, slicesPerRank * ranks);
    return trace.traceEvents.filter((e) => e.ph === 's').length;
  } finally {
    rmSync(file, { force: true });
  }
}

/** Runs `name` once per launch; every rank must print ok. */
export async function everyRankOk(name: string, launches: readonly Launch[]): Promise<void> {
  for (const [args, env] of launches) assertEveryRankOk(await tsmpi(['run', ...args, fixture(name)], { env, timeoutMs: 100_000 }), args);
}
