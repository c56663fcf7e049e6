// comm.exchange and comm.conveyor through the real communicator, in virtual time (one thread, so
// fast-check can drive hundreds of whole jobs): every planner delivers exactly what `direct`
// delivers, which is what each message sent alone would give (same sources, tags, payloads, in
// source order and each sender's order), for random batches with empty batches, self-sends and
// large messages; the conveyor loses nothing at flush boundaries and always terminates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { init } from '../../src/index.ts';
import { PLANNER_NAMES } from '../../src/policy/batch/types.ts';
import { simulate } from '../../src/sim/simulate.ts';
import { batchOf, expectedFor } from '../helpers/batches.ts';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

async function runExchange(np: number, seed: number, planner: (typeof PLANNER_NAMES)[number], maxMessages: number, ranksPerHost: number): Promise<unknown[][]> {
  const got: unknown[][] = new Array(np);
  await simulate({
    np,
    ranksPerHost,
    computeMode: 'declared',
    program: {
      name: `exchange-${planner}`,
      run: async (rank) => {
        const comm = await init();
        // Two supersteps on the same communicator: the second must not see the first's messages.
        await comm.exchange(batchOf(seed + 1, rank, np, maxMessages), { planner });
        got[rank] = await comm.exchange(batchOf(seed, rank, np, maxMessages), { planner });
      },
    },
  });
  return got;
}

test('exchange: every planner delivers exactly what each message sent alone would (random batches, 1 to 3 ranks per node)', { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 3 }), async (np, seed, maxMessages, perHost) => {
      const batches = Array.from({ length: np }, (_, r) => batchOf(seed, r, np, maxMessages));
      for (const planner of PLANNER_NAMES) {
        const got = await runExchange(np, seed, planner, maxMessages, perHost);
        for (let r = 0; r < np; r++) assert.deepEqual(got[r], expectedFor(batches, r), `planner ${planner}, rank ${r} of ${np}, seed ${seed}`);
      }
    }),
    { numRuns: 40 },
  );
});

test('exchange: all ranks with empty batches, and one huge self-send', { timeout: 60_000 }, async () => {
  for (const planner of PLANNER_NAMES) {
    const got: unknown[][] = [];
    const huge = new Float64Array(1 << 20).map((_, i) => i);
    await simulate({
      np: 3,
      computeMode: 'declared',
      program: {
        name: 'edges',
        run: async (rank) => {
          const comm = await init();
          assert.deepEqual(await comm.exchange([], { planner }), []);
          got[rank] = await comm.exchange(rank === 1 ? [{ dest: 1, tag: 9, payload: huge }] : [], { planner });
        },
      },
    });
    assert.deepEqual(got, [[], [{ source: 1, tag: 9, payload: huge }], []], planner);
  }
});

test('exchange: a bad destination or tag names the message and the fix', { timeout: 60_000 }, async () => {
  await assert.rejects(
    simulate({
      np: 2,
      computeMode: 'declared',
      program: {
        name: 'bad',
        run: async () => {
          const comm = await init();
          await comm.exchange([{ dest: 5, tag: 0, payload: 1 }]);
        },
      },
    }),
    /message 0 goes to rank 5, outside a communicator of 2/,
  );
});

test('conveyor: every item arrives once, in each sender\'s order, across flush boundaries, and close() terminates', { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 0, max: 1e6 }),
      fc.integer({ min: 0, max: 400 }),
      fc.integer({ min: 64, max: 2048 }),
      async (np, seed, items, bufferBytes) => {
        const pushedBy = Array.from({ length: np }, (_, r) =>
          Array.from({ length: items }, (_, i) => ({ dest: (r * 31 + i * 17 + seed) % np, bytes: Uint8Array.from({ length: (i * 13 + r) % 40 }, (_, k) => (k + i + r) & 0xff) })),
        );
        const received: { source: number; bytes: number[] }[][] = Array.from({ length: np }, () => []);
        await simulate({
          np,
          computeMode: 'declared',
          program: {
            name: 'conveyor',
            run: async (rank) => {
              const comm = await init();
              const conveyor = await comm.conveyor({ bufferBytes, flushInterval: 0, maxInFlight: 4096, onItem: (source, item) => received[rank]!.push({ source, bytes: [...item] }) });
              for (const { dest, bytes } of pushedBy[rank]!) if (!conveyor.push(dest, bytes)) await conveyor.advance();
              await conveyor.close();
            },
          },
        });
        for (let r = 0; r < np; r++) {
          for (let s = 0; s < np; s++) {
            const want = pushedBy[s]!.filter((x) => x.dest === r).map((x) => [...x.bytes]);
            assert.deepEqual(received[r]!.filter((x) => x.source === s).map((x) => x.bytes), want, `rank ${r} from ${s}`);
          }
        }
      },
    ),
    { numRuns: 40 },
  );
});

for (const mode of [[], ['--ranks-per-proc', '2']]) {
  test(`exchange and conveyor over the real runtime, 4 ranks${mode.length ? ', 2 processes (TCP)' : ' (shared memory)'}`, { timeout: 240_000 }, async () => {
    const result = await tsmpi(['run', '-n', '4', ...mode, fixture('exchange-suite.ts'), '3']);
    assert.equal(result.code, 0, explain(result));
    assert.equal((result.stdout.match(/^exchange ok /gm) ?? []).length, 3 * PLANNER_NAMES.length, explain(result));
    assert.equal((result.stdout.match(/^conveyor ok/gm) ?? []).length, 2, explain(result));
  });
}
