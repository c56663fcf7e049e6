// A collective whose part on a rank is one step (a leaf's receive, a root's one send, a 2-rank
// barrier's pair) runs without a generator: the same outcomes as the steps would give.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Request, type RequestDriver } from '../../src/comm/request.ts';
import { runStepFor, runStepsFor } from '../../src/comm/collectives/steps.ts';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';

/** A driver whose waits end when the test completes the requests (after a few event-loop turns). */
function driver(): { driver: RequestDriver; later: (fn: () => void) => void } {
  const pending: (() => void)[] = [];
  const tick = (): void => {
    setImmediate(() => {
      for (const fn of pending.splice(0)) fn();
    });
  };
  const driver: RequestDriver = {
    testPoll: () => false,
    spinFor: () => {},
    waitUntil: (condition) =>
      new Promise<void>((resolve) => {
        const check = (): void => (condition() ? resolve() : void setImmediate(check));
        check();
      }),
    cancel: () => false,
  };
  return { driver, later: (fn) => { pending.push(fn); tick(); } };
}

const request = (d: RequestDriver): Request<unknown> => new Request<unknown>(d, 'bcastInto', 1, 7, 3);
const failure = (): TsmpiError => new TsmpiError(ErrorCode.Truncate, 'the message does not fit', { rank: 1, operation: 'bcastInto' });

test('one request, already complete: resolves to the result, as the steps do', async () => {
  const { driver: d } = driver();
  const done = request(d);
  done.complete(undefined);
  const buffer = new Uint8Array(8);
  assert.equal(await runStepFor(done, buffer), buffer);
  assert.ok(done.reported, 'the completion is reported (the request is inactive)');
});

test('one request completed later, or failed now or later: the same outcome as its steps', async () => {
  for (const how of ['later', 'fail-now', 'fail-later'] as const) {
    const outcomes: string[] = [];
    for (const run of [runStepFor, (r: Request<unknown>, result: unknown) => runStepsFor((function* () { yield r; })(), result)]) {
      const { driver: d, later } = driver();
      const r = request(d);
      if (how === 'fail-now') r.fail(failure());
      else later(() => (how === 'later' ? r.complete(undefined) : r.fail(failure())));
      try {
        outcomes.push(`resolved ${String(await run(r, 'result'))}`);
      } catch (error) {
        outcomes.push(`rejected ${(error as TsmpiError).code}`);
      }
    }
    assert.equal(outcomes[0], how === 'later' ? 'resolved result' : `rejected ${ErrorCode.Truncate}`, how);
    assert.equal(outcomes[0], outcomes[1], `${how}: as the steps`);
  }
});

test('a pair of requests: resolves once both complete; the first failure in order rejects', async () => {
  const { driver: d, later } = driver();
  const receive = request(d);
  const send = request(d);
  send.complete(undefined);
  later(() => receive.complete(undefined));
  assert.equal(await runStepFor([receive, send], 'both'), 'both');
  const failedReceive = request(d);
  const failedSend = request(d);
  failedSend.fail(new TsmpiError(ErrorCode.Transport, 'the link closed', { rank: 1, operation: 'barrier' }));
  later(() => failedReceive.fail(failure()));
  await assert.rejects(runStepFor([failedReceive, failedSend], 'never'), (error: TsmpiError) => error.code === ErrorCode.Truncate);
});

test('calls completed at once into one buffer share a settled promise; another buffer gets its own', async () => {
  const { driver: d } = driver();
  const done = (): Request<unknown> => {
    const r = request(d);
    r.complete(undefined);
    return r;
  };
  const a = new Uint8Array(8);
  const b = new Uint8Array(8);
  const first = runStepFor(done(), a);
  assert.equal(runStepFor(done(), a), first, 'a loop into one buffer makes no promise per call');
  const other = runStepFor(done(), b);
  assert.notEqual(other, first);
  assert.equal(await first, a);
  assert.equal(await other, b);
  assert.equal(await runStepFor(done(), a), a, 'and back to the first buffer');
  assert.equal(await runStepFor([], undefined), undefined, 'nothing left to wait for (sends that left at once)');
});

// A pair's exchange (CollectiveCall.exchangeStep): a send its link takes at once goes before the
// receive is posted (the partner waits for it); a send that must wait follows the posted receive.
test('a pair exchange sends first when the send leaves at once, and posts the receive first otherwise', async () => {
  const { CollectiveCall } = await import('../../src/comm/collectives/call.ts');
  const { driver: d } = driver();
  for (const leavesNow of [true, false]) {
    const calls: string[] = [];
    const endpoint = {
      sendNow: () => (calls.push('sendNow'), leavesNow),
      receiveNow: () => (calls.push('receiveNow'), -1),
      irecv: () => (calls.push('irecv'), new Request<unknown>(d, 'allgatherv', 1, 7, 3)),
      isend: () => (calls.push('isend'), new Request<unknown>(d, 'allgatherv', 1, 7, 3)),
    };
    const call = new CollectiveCall(endpoint as never, 3, Int32Array.of(0, 1), 0, 7, 'allgatherv', {} as never, { name: 'world', group: Int32Array.of(0, 1) } as never);
    const [receive, send] = call.exchangeStep(new Float64Array(1), new Uint8Array(8), 1);
    assert.ok(receive !== undefined);
    assert.equal(send === undefined, leavesNow);
    assert.deepEqual(calls, leavesNow ? ['sendNow', 'receiveNow', 'irecv'] : ['sendNow', 'receiveNow', 'irecv', 'isend']);
  }
});
