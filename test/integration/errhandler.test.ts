// Error handlers end to end: ERRORS_ARE_FATAL and ERRORS_ABORT end the job at the failed call, even
// where the program would catch the error; the default (ERRORS_RETURN) lets it catch and go on.
// The handlers' other behaviour is in the mpi4py suite (test/fixtures/mpi4py/errhandler.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

test('a fatal error handler ends the job at the failed call, naming the handler and the communicator', { timeout: 60_000 }, async () => {
  for (const [mode, name] of [['fatal', 'ERRORS_ARE_FATAL'], ['abort', 'ERRORS_ABORT']] as const) {
    const r = await tsmpi(['run', '-n', '2', fixture('errhandler-fatal.ts'), mode], { timeoutMs: 50_000 });
    assert.equal(r.code, 1, explain(r));
    assert.match(r.stderr, new RegExp(`rank 1, send: rank 2 is out of range for a communicator of size 2 .*\\(${name} on world\\)`), explain(r));
    assert.doesNotMatch(r.stdout, /caught|went on/, explain(r));
  }
});

test('under tsmpi sim a fatal handler ends the simulation with the same error, even where the program catches it', { timeout: 60_000 }, async () => {
  const r = await tsmpi(['sim', '-n', '2', fixture('errhandler-fatal.ts'), 'fatal'], { timeoutMs: 50_000 });
  assert.equal(r.code, 1, explain(r));
  assert.match(r.stderr, /tsmpi: rank 1 called abort\(1\): rank 1, send: rank 2 is out of range .*\(ERRORS_ARE_FATAL on world\)/, explain(r));
  assert.match(r.stderr, /rank 1 exited with code 1; the simulation stopped/, explain(r));
});

test('with the default handler the program catches the error and goes on', { timeout: 60_000 }, async () => {
  const r = await tsmpi(['run', '-n', '2', fixture('errhandler-fatal.ts')], { timeoutMs: 50_000 });
  assert.equal(r.code, 0, explain(r));
  assert.match(r.stdout, /rank 1 caught the error/);
  assert.equal(r.stdout.split('\n').filter((line) => / went on$/.test(line)).length, 2, explain(r));
});
