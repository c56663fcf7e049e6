// Issue 12, regressions: one exit-code rule in every launch mode, as mpirun's: the job's code is
// the first failing rank's own (1 for an uncaught error, n for process.exit(n) or abort(n)),
// whatever the launcher did to the other ranks afterwards; the job ends by itself (a rank that
// exits while the others wait in a barrier used to hang the job); the failure is said once,
// with the stack at the program's own lines (under `tsmpi sim` too).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

/** The fixture's line that throws (1-based), found in its source rather than written here. */
const throwLine = readFileSync(fixture('fail-throw.ts'), 'utf8').split('\n').findIndex((line) => line.includes('throw new Error(`deliberate failure')) + 1;

const modes: Record<string, string[]> = {
  threads: ['run', '-n', '4'],
  procs: ['run', '-n', '4', '--procs'],
  'ranks-per-proc 2': ['run', '-n', '4', '--ranks-per-proc', '2'],
  sim: ['sim', '-n', '4', '--quiet'],
};

const failures = [
  { how: 'throw', code: 1, says: /tsmpi: rank 2 failed:\n.*deliberate failure on rank 2/ },
  { how: 'reject', code: 1, says: /tsmpi: rank 2 failed:\n.*deliberate rejection on rank 2/ },
  { how: 'exit3-barrier', code: 3, says: /tsmpi: rank 2 exited with code 3/ },
  { how: 'abort5', code: 5, says: /rank 2 (called abort\(5\)|exited with code 5)/ },
  // MPI_Comm_abort: the communicator form ends the job alike.
  { how: 'commabort6', code: 6, says: /rank 2 (called abort\(6\)|exited with code 6)/ },
  // Issue 22: a rank out of range, at once, while the others wait in a barrier.
  { how: 'range', code: 1, says: /rank 2, send: rank \d+ is out of range for a communicator of size 4/ },
];

for (const [mode, command] of Object.entries(modes)) {
  describe(`exit codes: ${mode}`, () => {
    for (const { how, code, says } of failures) {
      test(`rank 2 ${how}: the job ends by itself with code ${code}`, { timeout: 60_000 }, async () => {
        // 20 s is far above the 2 s a failure may take to end the job, and far below the 60 s
        // hang report the old launcher waited for.
        const result = await tsmpi([...command, fixture('fail-throw.ts'), '2', how], { timeoutMs: 20_000 });
        assert.equal(result.signal, null, `the job did not end by itself\n${explain(result)}`);
        assert.equal(result.code, code, explain(result));
        assert.match(result.stderr, says);
        if (how === 'throw') {
          // The stack points at the program's line, once, in every mode (not the compiled bundle).
          assert.ok(result.stderr.includes(`${fixture('fail-throw.ts')}:${throwLine}:`), `the stack names fail-throw.ts:${throwLine}\n${result.stderr}`);
          assert.doesNotMatch(result.stderr, /app\.mjs/);
          assert.equal(result.stderr.match(/deliberate failure on rank 2/g)?.length, 1, `said once\n${result.stderr}`);
        }
        if (how === 'exit3-barrier' || how === 'abort5' || how === 'commabort6') assert.doesNotMatch(result.stderr, /waited \d+ s without progress/);
      });
    }
  });
}

test('sim: a failure is said once, as run says it', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '3', '--quiet', fixture('fail-throw.ts'), '2', 'throw']);
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /^tsmpi: rank 2 failed:\nError: deliberate failure on rank 2\n/);
  assert.match(result.stderr, /\ntsmpi: the simulation stopped at .* of virtual time\n$/);
  assert.doesNotMatch(result.stderr, /tsmpi sim: rank 2/);
});

test('sim: a deadlock exits 124, as a hang timeout does', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '3', '--quiet', fixture('deadlock.ts')]);
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /deadlock/);
});

// Issue 22: a hang timeout ends every mode with 124 (the simulator finds the deadlock itself).
test('a hang ends the job with 124 in every mode', { timeout: 120_000 }, async () => {
  for (const [mode, command] of Object.entries(modes)) {
    const result = await tsmpi([...command, '--hang-timeout', '2', fixture('deadlock.ts')], { timeoutMs: 40_000 });
    assert.equal(result.code, 124, `${mode}: ${explain(result)}`);
    if (mode === 'sim') assert.match(result.stderr, /--hang-timeout is not needed: the simulator finds a deadlock itself/, explain(result));
  }
});
