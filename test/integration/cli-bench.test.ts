// `tsmpi bench`: lists the benchmarks, refuses an unknown one, and runs one from the repository
// with tsx (found from the command's own script, which has no import.meta.resolve).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tsmpi } from '../helpers/run-job.ts';

test('tsmpi bench lists the benchmarks and refuses an unknown name', async () => {
  const list = await tsmpi(['bench']);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^benchmarks: .*\bpingpong\b.*\bsim-simgrid\b/m);
  const unknown = await tsmpi(['bench', 'no-such-bench']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no benchmark named "no-such-bench"/);
});

test('tsmpi bench runs a benchmark: its table and where its JSON went', { timeout: 120_000 }, async () => {
  const r = await tsmpi(['bench', 'abort'], { env: { REPS: '1', RANKS: '3' }, timeoutMs: 110_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /development dependencies/);
  assert.match(r.stdout, /\| threads +\| throw +\|/);
  assert.match(r.stdout, /# results: .*bench\/results\/abort-.*\.json/);
});
