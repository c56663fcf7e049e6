// A deliberate deadlock with a hang timeout: the job prints what every rank waits for and exits 124.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, runFixture, tsmpi, fixture } from '../helpers/run-job.ts';

test('a deadlock with --hang-timeout prints both ranks\' waits and exits 124', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '3', '--hang-timeout', '1', fixture('deadlock.ts')], { timeoutMs: 30_000 });
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /no rank made progress for 1 s/);
  assert.match(result.stderr, /rank 0: waiting in recv from rank 1, tag 7, on world\n/);
  assert.match(result.stderr, /rank 1: waiting in recv from rank 0, tag 8, on world\n/);
  assert.match(result.stderr, /rank 2: waiting in barrier from rank \d on world\n/);
});

test('the hang report names communicators: a split by its parent and colour, a named dup by its name (issue 12)', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', '-n', '4', '--hang-timeout', '1', fixture('deadlock-split.ts')], { timeoutMs: 30_000 });
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /rank 0: waiting in recv from rank 1 \(world rank 2\), tag 5, on split of world \(color 0\)\n/);
  assert.match(result.stderr, /rank 1: waiting in recv from rank 3, tag 6, on halo\n/);
  assert.match(result.stderr, /rank 2: waiting in barrier from rank \d on world\n/);
  assert.doesNotMatch(result.stderr, /context \d/);
});

test('the simulator\'s deadlock report names communicators too', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['sim', '-n', '4', '--quiet', fixture('deadlock-split.ts')]);
  assert.equal(result.code, 124, explain(result));
  assert.match(result.stderr, /rank 0: recv from rank 1 \(world rank 2\), tag 5, on split of world \(color 0\)/);
  assert.match(result.stderr, /rank 1: recv from rank 3, tag 6, on halo/);
});

test('without a hang timeout a deadlock is reported once and the job keeps waiting', { timeout: 60_000 }, async () => {
  const result = await runFixture('deadlock.ts', 2, [], { env: { TSMPI_HANG_WARN: '1' }, timeoutMs: 6_000 });
  assert.equal(result.signal, 'SIGKILL', `the job must still be waiting when the test kills it\n${explain(result)}`);
  assert.match(result.stderr, /every rank has waited \d+ s without progress \(a deadlock\?\)/);
  assert.match(result.stderr, /rank 1: waiting in recv from rank 0, tag 8/);
  assert.equal(result.stderr.match(/a deadlock\?/g)?.length, 1, 'reported once');
});
