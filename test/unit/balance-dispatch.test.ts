// The task pool's pure parts: the deque against an array model under random operation sequences,
// and the dispatch rule (tasks in flight per worker) on random inputs and worked cases.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { TaskDeque } from '../../src/balance/task-deque.ts';
import { inFlightTarget, tasksToSend, defaultDispatchOptions } from '../../src/policy/balance/dispatch.ts';

const operation = fc.oneof(
  fc.record({ op: fc.constant('pushBack' as const), n: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant('pushFront' as const), n: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant('popFront' as const), n: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant('popBack' as const), n: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant('takeFront' as const), n: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ op: fc.constant('takeBack' as const), n: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ op: fc.constant('removeFirst' as const), n: fc.integer({ min: 0, max: 200 }) }),
);

test('TaskDeque behaves as an array at both ends, through growth and wrap-around', () => {
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 120 }), (ops) => {
      const deque = new TaskDeque<number>();
      const model: number[] = [];
      let next = 0;
      for (const { op, n } of ops) {
        switch (op) {
          case 'pushBack':
            for (let i = 0; i < n; i++) (deque.pushBack(next), model.push(next++));
            break;
          case 'pushFront':
            for (let i = 0; i < n; i++) (deque.pushFront(next), model.unshift(next++));
            break;
          case 'popFront':
            for (let i = 0; i < n; i++) assert.equal(deque.popFront(), model.shift());
            break;
          case 'popBack':
            for (let i = 0; i < n; i++) assert.equal(deque.popBack(), model.pop());
            break;
          case 'takeFront':
            assert.deepStrictEqual(deque.takeFront(n), model.splice(0, n));
            break;
          case 'takeBack':
            assert.deepStrictEqual(deque.takeBack(n), model.splice(Math.max(0, model.length - n), n));
            break;
          case 'removeFirst': {
            const at = model.findIndex((x) => x % 7 === n % 7);
            assert.equal(deque.removeFirst((x) => x % 7 === n % 7), at >= 0 ? model.splice(at, 1)[0] : undefined);
            break;
          }
        }
        assert.equal(deque.length, model.length);
      }
      assert.deepStrictEqual([...deque], model);
    }),
  );
});

test('dispatch: at least one task, never beyond the batch cap or the capacity-weighted half of what is left', () => {
  fc.assert(
    fc.property(
      fc.option(fc.double({ min: 1e-7, max: 1, noNaN: true }), { nil: undefined }),
      fc.double({ min: 0.001, max: 1, noNaN: true }),
      fc.integer({ min: 0, max: 100_000 }),
      fc.integer({ min: 0, max: 2000 }),
      (secondsPerTask, share, queued, inFlight) => {
        const input = { secondsPerTask, share, queued, inFlight };
        const target = inFlightTarget(input);
        assert.ok(target >= 1 && target <= defaultDispatchOptions.maxBatch);
        assert.ok(target <= Math.max(1, Math.ceil(((queued + inFlight) * share) / 2)));
        const send = tasksToSend(input);
        assert.ok(send >= 0 && send <= queued && inFlight + send <= Math.max(target, inFlight));
        if (queued === 0) assert.equal(send, 0);
        if (inFlight === 0 && queued > 0) assert.ok(send >= 1, 'an idle worker always gets work');
      },
    ),
  );
});

test('dispatch: worked cases', () => {
  // 1 us tasks: 2 ms of them, capped at 1024 per message.
  assert.equal(inFlightTarget({ secondsPerTask: 1e-6, share: 0.25, queued: 1e6, inFlight: 0 }), 1024);
  // 5 ms tasks: one running and one queued.
  assert.equal(inFlightTarget({ secondsPerTask: 5e-3, share: 0.25, queued: 1000, inFlight: 0 }), 2);
  // Near the end a slow worker (share 0.05) holds one task, so the tail is one of its tasks.
  assert.equal(inFlightTarget({ secondsPerTask: 1e-3, share: 0.05, queued: 20, inFlight: 1 }), 1);
  // Before any result: two tasks.
  assert.equal(inFlightTarget({ secondsPerTask: undefined, share: 0.125, queued: 256, inFlight: 0 }), 2);
  // Earliest finish: a worker 3x slower than six others (10 ms tasks) gets none of the last 9 tasks,
  // and one of 11; an equal worker that is idle gets one of the last 3.
  const slow = { secondsPerTask: 0.03, share: 0.05, inFlight: 0, othersPerSecond: 600, othersCount: 6 };
  assert.equal(tasksToSend({ ...slow, queued: 9 }), 0);
  assert.equal(tasksToSend({ ...slow, queued: 11 }), 1);
  assert.equal(tasksToSend({ secondsPerTask: 0.01, share: 0.14, inFlight: 0, othersPerSecond: 600, othersCount: 6, queued: 3 }), 1);
  // Half a target short is not worth a message; an idle worker always is.
  assert.equal(tasksToSend({ secondsPerTask: 1e-6, share: 0.25, queued: 1e6, inFlight: 1000 }), 0);
  assert.equal(tasksToSend({ secondsPerTask: 1e-6, share: 0.25, queued: 1e6, inFlight: 500 }), 524);
});
