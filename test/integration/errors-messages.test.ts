// Issue 12, regressions: what the usual mistakes say. A reduction over operands of different
// lengths names the collective, the op, the communicator and both ranks; a buffer receive of an
// encoded value says so and how to fix it, with a frame at the program's own line.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const program = fixture('user-errors.ts');
const run = (which: string, env: Record<string, string> = {}): ReturnType<typeof tsmpi> => tsmpi(['run', '-n', '4', program, which], { env, timeoutMs: 30_000 });

test('allreduce of different lengths (recursive doubling) names the collective and both ranks', async () => {
  const result = await run('allreduce-short');
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /TSMPI_ERR_COUNT|TsmpiError/);
  assert.match(result.stderr, /rank 2 passed a Float64Array\(4\) and rank 3 a Float64Array\(3\) to allreduce \(Op\.sum\) on world/);
  assert.ok(result.stderr.includes(`${program}:18:`), `a frame at the program's line\n${result.stderr}`);
});

test('allreduce of different lengths (ring) fails instead of combining stale bytes', async () => {
  const result = await run('allreduce-long', { TSMPI_COLL_ALLREDUCE: 'ring' });
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /passed a Float64Array\((100000|99999)\) to allreduce \(Op\.sum\) on world, but rank \d passed one of another kind or length/);
  assert.ok(result.stderr.includes(`${program}:21:`), `a frame at the program's line\n${result.stderr}`);
});

test('allreduce of different lengths (staged, the default for rank threads) names both ranks on whichever rank fails first', async () => {
  const result = await run('allreduce-long');
  assert.equal(result.code, 1, explain(result));
  assert.match(result.stderr, /rank \d, allreduce: rank 0 passed a Float64Array\(100000\) and rank 3 a Float64Array\(99999\) to allreduce \(Op\.sum\) on world/);
  assert.ok(result.stderr.includes(`${program}:21:`), `a frame at the program's line\n${result.stderr}`);
});

test('2 ranks reducing into result arrays of different lengths (the one exchange without steps) both fail, naming the collective and the other rank', async () => {
  // Traced, the same calls run as steps.
  const traceFile = join(tmpdir(), `tsmpi-pair-${process.pid}.json`);
  after(() => rmSync(traceFile, { force: true }));
  for (const [which, operation] of [['pair-into', 'allreduce'], ['pair-reduce-scatter', 'reduceScatterBlock']] as const) {
    for (const trace of [[], ['--trace', traceFile]]) {
      const result = await tsmpi(['run', '-n', '2', ...trace, program, which], { timeoutMs: 30_000 });
      assert.equal(result.code, 1, explain(result));
      assert.match(result.stderr, new RegExp(`rank [01], ${operation}: rank [01] passed a Float64Array\\(\\d\\) to ${operation} \\(Op\\.sum\\) on world, but rank [01] passed one of another kind or length`), `${which} ${trace.length > 0 ? 'traced' : ''}: ${explain(result)}`);
    }
  }
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
    assert.ok(result.stderr.includes(`${program}:42:`), `a frame at the program's line\n${result.stderr}`);
  });
}
