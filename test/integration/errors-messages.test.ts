// Issue 12, regressions: what the usual mistakes say. A reduction over operands of different
// lengths names the collective, the op, the communicator and both ranks; a buffer receive of an
// encoded value says so and how to fix it, with a frame at the program's own line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const program = fixture('user-errors.ts');
const run = (which: string): ReturnType<typeof tsmpi> => tsmpi(['run', '-n', '4', program, which], { timeoutMs: 30_000 });

test('allreduce of different lengths (recursive doubling) names the collective and both ranks', async () => {
  const result = await run('allreduce-short');
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /TSMPI_ERR_COUNT|TsmpiError/);
  assert.match(result.stderr, /rank 2 passed a Float64Array\(4\) and rank 3 a Float64Array\(3\) to allreduce \(Op\.sum\) on world/);
  assert.ok(result.stderr.includes(`${program}:16:`), `a frame at the program's line\n${result.stderr}`);
});

test('allreduce of different lengths (ring) fails instead of combining stale bytes', async () => {
  const result = await run('allreduce-long');
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /passed a Float64Array\((100000|99999)\) to allreduce \(Op\.sum\) on world, but rank \d passed one of another kind or length/);
  assert.ok(result.stderr.includes(`${program}:19:`), `a frame at the program's line\n${result.stderr}`);
});

test('reduce on a split communicator names the communicator', async () => {
  const result = await run('reduce-split');
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /rank 0 \(world rank 2\) passed an Int32Array\(8\) and rank 1 \(world rank 3\) an Int32Array\(7\) to reduce \(Op\.max\) on split of world \(color 1\)/);
});

for (const [which, what] of [['recvinto-object', 'an object, array or other value'], ['recvinto-string', 'a string']] as const) {
  test(`recvInto of an encoded value (${which.slice(9)}) says what arrived and what to do, at the program's line`, async () => {
    const result = await run(which);
    assert.equal(result.code, 1, explain(result));
    assert.ok(result.stderr.includes(`the message from rank 0, tag 4 is an encoded value (${what}), not a typed array's bytes`), result.stderr);
    assert.match(result.stderr, /send it as a typed array, or receive it with recv\(\)/);
    assert.doesNotMatch(result.stderr, /Packed/);
    assert.ok(result.stderr.includes(`${program}:29:`), `a frame at the program's line\n${result.stderr}`);
  });
}
