// One table-driven test over every error code (undici's test/errors.js habit): each code is a
// stable string, a TsmpiError names the rank, the operation and the hint, and survives its trip
// between ranks as data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, TsmpiError, isTsmpiError } from '../../src/errors.ts';

const expectedCodes: Record<string, string> = {
  Rank: 'TSMPI_ERR_RANK',
  Tag: 'TSMPI_ERR_TAG',
  Truncate: 'TSMPI_ERR_TRUNCATE',
  Encode: 'TSMPI_ERR_ENCODE',
  Type: 'TSMPI_ERR_TYPE',
  Count: 'TSMPI_ERR_COUNT',
  Op: 'TSMPI_ERR_OP',
  Arg: 'TSMPI_ERR_ARG',
  Config: 'TSMPI_ERR_CONFIG',
  Init: 'TSMPI_ERR_INIT',
  NotMember: 'TSMPI_ERR_NOT_MEMBER',
  Closed: 'TSMPI_ERR_CLOSED',
  Cancelled: 'TSMPI_ERR_CANCELLED',
  Buffer: 'TSMPI_ERR_BUFFER',
  Group: 'TSMPI_ERR_GROUP',
  Aborted: 'TSMPI_ERR_ABORTED',
  Hang: 'TSMPI_ERR_HANG',
  PeerGone: 'TSMPI_ERR_PEER_GONE',
  Transport: 'TSMPI_ERR_TRANSPORT',
  Request: 'TSMPI_ERR_REQUEST',
  Task: 'TSMPI_ERR_TASK',
  Other: 'TSMPI_ERR_OTHER',
  Internal: 'TSMPI_ERR_INTERNAL',
};

test('errors: the code table is exactly the documented one', () => {
  assert.deepStrictEqual({ ...ErrorCode }, expectedCodes);
});

for (const [name, code] of Object.entries(ErrorCode)) {
  test(`errors: ${name} carries code, rank, operation and hint, and round-trips as data`, () => {
    const error = new TsmpiError(code, 'something went wrong', { rank: 5, operation: 'allreduce', hint: 'do it differently' });
    assert.equal(error.code, code);
    assert.equal(error.name, 'TsmpiError');
    assert.equal(error.message, 'rank 5, allreduce: something went wrong (hint: do it differently)');
    assert.ok(error instanceof Error);
    assert.ok(isTsmpiError(error, code));
    assert.ok(!isTsmpiError(new Error('plain')));
    const back = TsmpiError.fromData(JSON.parse(JSON.stringify(error.toData())));
    assert.equal(back.code, code);
    assert.equal(back.rank, 5);
    assert.equal(back.operation, 'allreduce');
    assert.equal(back.hint, 'do it differently');
    assert.equal(back.message, error.message);
  });
}

test('errors: the launcher (no rank) is named by the operation alone', () => {
  const error = new TsmpiError(ErrorCode.Config, 'bad value', { operation: 'tsmpi run' });
  assert.equal(error.rank, -1);
  assert.equal(error.message, 'tsmpi run: bad value');
});

test('TsmpiError: instanceof holds across copies of the module (bundles), subclasses keep the prototype test', async () => {
  const { TsmpiError: Copy } = (await import(`../../src/errors.ts?copy=${Date.now()}`)) as typeof import('../../src/errors.ts');
  assert.notEqual(Copy, TsmpiError);
  const foreign = new Copy(ErrorCode.Arg, 'from another copy', { operation: 'test' });
  assert.ok(foreign instanceof TsmpiError);
  assert.ok(new TsmpiError(ErrorCode.Arg, 'x', { operation: 'test' }) instanceof Copy);
  assert.ok(!(new Error('plain') instanceof TsmpiError));
  assert.ok(!({ code: 'TSMPI_ERR_ARG' } instanceof TsmpiError));
  class Sub extends TsmpiError {}
  assert.ok(new Sub(ErrorCode.Arg, 'x', { operation: 'test' }) instanceof TsmpiError);
  assert.ok(!(foreign instanceof Sub));
});
