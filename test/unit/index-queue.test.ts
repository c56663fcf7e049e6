// Property test of the matching queues' FIFO against an array.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { IndexQueue } from '../../src/comm/index-queue.ts';

test('index queue: behaves as an array under push / removeAt', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.record({ push: fc.integer() }), fc.record({ remove: fc.nat() })), { maxLength: 3000 }),
      (ops) => {
        const queue = new IndexQueue<number>();
        const model: number[] = [];
        for (const op of ops) {
          if ('push' in op) {
            queue.push(op.push);
            model.push(op.push);
          } else if (model.length > 0) {
            // Mostly the front, as in matching; sometimes the middle.
            const i = op.remove % 4 === 0 ? op.remove % model.length : 0;
            assert.equal(queue.removeAt(i), model.splice(i, 1)[0]);
          }
          assert.equal(queue.length, model.length);
        }
        for (let i = 0; i < model.length; i++) assert.equal(queue.at(i), model[i]);
        if (model.length > 0) assert.equal(queue.indexOf(model[model.length - 1]!), model.lastIndexOf(model[model.length - 1]!) === model.indexOf(model[model.length - 1]!) ? model.length - 1 : model.indexOf(model[model.length - 1]!));
      },
    ),
    { numRuns: 200 },
  );
});
