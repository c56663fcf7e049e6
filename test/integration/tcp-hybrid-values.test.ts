// Several ranks per process and several processes (--ranks-per-proc 2 on 4 ranks): encoded values
// decoded straight from a shared-memory ring or a socket's buffers keep their exact contents, and
// sends a rank leaves behind when its program returns still reach their receivers (connections
// that open, and CTS that come back, after it returned). See test/fixtures/hybrid-values.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const HYBRID = ['-n', '4', '--ranks-per-proc', '2', '--hang-timeout', '8'];

test('values decoded in place from rings and sockets keep every byte (ranks per process 2)', { timeout: 60_000 }, async () => {
  // A 64 KiB ring wraps many times under rank 1's 400 values.
  const result = await tsmpi(['run', ...HYBRID, fixture('hybrid-values.ts'), 'decode'], { env: { TSMPI_SHM_RING_BYTES: '64k' }, timeoutMs: 50_000 });
  assert.equal(result.signal, null, explain(result));
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /^hybrid decode ok 520$/m, explain(result));
});

test('sends left behind by a rank whose program returned are delivered (ranks per process 2)', { timeout: 60_000 }, async () => {
  const result = await tsmpi(['run', ...HYBRID, fixture('hybrid-values.ts'), 'last'], { timeoutMs: 50_000 });
  assert.equal(result.code, 0, explain(result));
  const lines = result.stdout.trim().split('\n').sort();
  assert.deepEqual(lines, [
    'rank 1 got 50000 doubles, values ok true',
    'rank 2 got {"last":2,"words":["stop","γ"]}',
    'rank 3 got {"last":3,"words":["stop","δ"]} and 50000 doubles, values ok true',
  ], explain(result));
});
