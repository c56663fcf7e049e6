// Issue 22: collective argument checking. Always: typed arrays of another kind or length are
// named as such, with the collective and the ranks. On request (`--check`, TSMPI_CHECK=1, under
// sim too): every collective first agrees on its arguments, and a root, an op, a kind or count,
// or a collective that differs fails on every rank, naming the argument and the ranks on each
// side; a correct program (the collectives suite) runs unchanged with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CCO_SUITE_LINES, explain, fixture, tsmpi } from '../helpers/run-job.ts';

const modes = { threads: ['run', '--check'], procs: ['run', '--check', '--procs'], sim: ['sim', '--check', '--quiet'] } as const;
const cases: Record<string, RegExp> = {
  root: /the ranks of world disagree on bcast's arguments \(root: ranks 0, 2 passed 0, rank 1 passed 1\)/,
  op: /the ranks of world disagree on allreduce's arguments \(op: ranks 0, 2 passed Op\.sum, rank 1 passed Op\.max\)/,
  length: /disagree on allreduce's arguments \(data: ranks 0, 2 passed Float64Array\(4\), rank 1 passed Float64Array\(3\)\)/,
  kind: /disagree on allreduce's arguments \(data: ranks 0, 2 passed Float64Array\(4\), rank 1 passed Int32Array\(4\)\)/,
  mixed: /disagree on (bcast|reduce)'s arguments \(collective: ranks 0, 2 called bcast, rank 1 called reduce\)/,
  vkind: /disagree on allgatherv's arguments \(data: ranks 0, 2 passed Float64Array, rank 1 passed Int32Array\)/,
};

for (const mode of Object.keys(modes) as (keyof typeof modes)[]) {
  test(`--check names the argument and the ranks that differ (${mode})`, { timeout: 180_000 }, async () => {
    for (const [which, says] of Object.entries(cases)) {
      const result = await tsmpi([...modes[mode], '-n', '3', fixture('collective-mistakes.ts'), which], { timeoutMs: 30_000 });
      assert.equal(result.code, 1, `${which}: ${explain(result)}`);
      assert.match(result.stderr, says, `${which}: ${explain(result)}`);
      assert.match(result.stderr, /TSMPI_CHECK=1/, which);
      assert.doesNotMatch(result.stdout, /finished/, `${which}: no rank goes on past the mistake`);
    }
  });
}

test('without --check a root or op that differs goes unnoticed, and the check catches it', { timeout: 60_000 }, async () => {
  const unchecked = await tsmpi(['run', '-n', '3', fixture('collective-mistakes.ts'), 'op'], { timeoutMs: 30_000 });
  assert.equal(unchecked.code, 0, explain(unchecked));
  assert.equal(unchecked.stdout.match(/finished/g)?.length, 3);
  const checked = await tsmpi(['run', '-n', '3', fixture('collective-mistakes.ts'), 'op'], { env: { TSMPI_CHECK: '1' }, timeoutMs: 30_000 });
  assert.equal(checked.code, 1, explain(checked));
});

test('a typed array of another kind is named as such without the check, at any size', { timeout: 60_000 }, async () => {
  const small = await tsmpi(['run', '-n', '3', fixture('collective-mistakes.ts'), 'kind'], { timeoutMs: 30_000 });
  assert.equal(small.code, 1, explain(small));
  assert.match(small.stderr, /rank \d passed an? (Float64Array|Int32Array)\(4\) and rank \d an? (Int32Array|Float64Array)\(4\) to allreduce \(Op\.sum\) on world/, explain(small));
  // Large: through the staging regions (every rank reads every rank's shape), and around the ring.
  const staged = await tsmpi(['run', '-n', '3', fixture('collective-mistakes.ts'), 'large-kind'], { timeoutMs: 30_000 });
  assert.equal(staged.code, 1, explain(staged));
  assert.match(staged.stderr, /rank \d, allreduce: rank 0 passed a Float64Array\(100000\) and rank 1 an Int32Array\(100000\) to allreduce \(Op\.sum\) on world/, explain(staged));
  assert.doesNotMatch(staged.stdout, /finished/, explain(staged));
  const large = await tsmpi(['run', '-n', '3', fixture('collective-mistakes.ts'), 'large-kind'], { env: { TSMPI_COLL_ALLREDUCE: 'ring' }, timeoutMs: 30_000 });
  assert.equal(large.code, 1, explain(large));
  assert.match(large.stderr, /passed an? (Int32Array|Float64Array)\(100000\) to allreduce \(Op\.sum\) on world, but rank \d passed one of another kind or length/, explain(large));
});

test('a bcastInto longer than a rank\'s buffer is named without the check, through the broadcast slots and through messages', { timeout: 60_000 }, async () => {
  for (const env of [{}, { TSMPI_COLL_BCAST: 'binomial' }] as Record<string, string>[]) {
    const result = await tsmpi(['run', '-n', '3', fixture('collective-mistakes.ts'), 'into-length'], { env, timeoutMs: 30_000 });
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stderr, /rank 1, bcastInto\b.*32-byte .*(does not fit|into) the 24-byte (buffer|receive buffer)/, explain(result));
  }
});

test('the collectives suite passes unchanged with TSMPI_CHECK=1 (no false alarm)', { timeout: 300_000 }, async () => {
  for (const command of [['run', '-n', '3'], ['sim', '--quiet', '-n', '4']]) {
    const result = await tsmpi([...command, fixture('cco-suite.ts')], { env: { TSMPI_CHECK: '1' }, timeoutMs: 240_000 });
    assert.equal(result.code, 0, explain(result));
    assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('cco ok ')).length, CCO_SUITE_LINES, explain(result));
  }
});
