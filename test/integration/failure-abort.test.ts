// A failing rank ends the whole job, names the rank and shows the stack: a thrown error, an
// unhandled rejection, and a failure while another rank is stuck in a synchronous loop.
// The bound checked here (10 s) only proves the job ends; the 2 s figure is measured in
// the closing note from these same runs' elapsed times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, runFixture } from '../helpers/run-job.ts';

for (const mode of ['throw', 'reject', 'busy']) {
  test(`a rank that fails (${mode}) ends the job non-zero, naming the rank and the stack`, { timeout: 60_000 }, async () => {
    const result = await runFixture('fail-throw.ts', 4, ['2', mode], { timeoutMs: 10_000 });
    assert.equal(result.signal, null, `the job did not end by itself\n${explain(result)}`);
    assert.equal(result.code, 1, explain(result));
    assert.match(result.stderr, /tsmpi: rank 2 failed:/);
    assert.match(result.stderr, /deliberate (failure|rejection) on rank 2/);
    assert.ok(result.stderr.includes(`${fixture('fail-throw.ts')}:`), `the stack names the .ts source\n${result.stderr}`);
    assert.match(result.stderr, /aborting the job \(4 ranks\) because rank 2 failed/);
  });
}
