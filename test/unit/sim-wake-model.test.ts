/**
 * The simulated ranks wait as the runtime's do: each rank's budget is its polling in place plus,
 * with TCP peers, its event loop turning (TSMPI_SOCKET_SPIN_US), as the runtime picks both for its
 * placement; past it a frame over TCP wakes a sleeping process, at the calibrated sleeping cost,
 * or the share of it that a shorter sleep than the calibration's costs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { machineFrom } from '../../src/calibrate/calibrate.ts';
import { calibratedWakeModel, simulate } from '../../src/sim/simulate.ts';
import { platformFromCalibration } from '../../src/sim/platform/load.ts';
import { init, wtime } from '../../src/index.ts';
import { evaluate } from '../../src/sim/platform/calibration.ts';
import { wakeShare } from '../../src/sim/world.ts';

const SIZES = [0, 16, 64, 256, 1024, 4096, 16384, 65536, 1048576];
const figures = (base: number): { bytes: number; oneWay: number; streamPeriod: number; send: number; recv: number }[] =>
  SIZES.map((bytes) => ({ bytes, oneWay: base + bytes * 1e-9, streamPeriod: 1e-6 + bytes * 5e-10, send: 1e-6, recv: 1e-6 }));
const machine = machineFrom(
  new Map([
    ['threads', { figures: figures(1e-6), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }],
    ['procs', { figures: figures(12e-6), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, cpuPerRoundTrip: 20e-6, sleeping: { oneWay: 52e-6, cpuPerRoundTrip: 70e-6 } }],
  ]),
  1,
  undefined,
  { sleepingOneWay: 20e-6, rings: [] },
  2,
);
const twoCores = (): number => 2;
const near = (got: number, want: number): void => assert.ok(Math.abs(got - want) < 1e-12, `${got} vs ${want}`);

test('two processes on two cores turn their event loops for 50 us; eight do not; threads poll in place', () => {
  near(calibratedWakeModel(machine, [0, 0], [0, 1], twoCores, {}).spinSeconds[0]!, 50e-6);
  assert.deepEqual(calibratedWakeModel(machine, new Array(8).fill(0), [0, 1, 2, 3, 4, 5, 6, 7], twoCores, {}).spinSeconds, new Array(8).fill(0));
  near(calibratedWakeModel(machine, [0, 0], [0, 0], twoCores, {}).spinSeconds[1]!, 200e-6);
  // The variables a real run reads: the same here.
  assert.equal(calibratedWakeModel(machine, [0, 0], [0, 1], twoCores, { TSMPI_SOCKET_SPIN_US: '0' }).spinSeconds[0], 0);
  near(calibratedWakeModel(machine, [0, 0], [0, 1], twoCores, { TSMPI_SOCKET_SPIN_US: '300' }).spinSeconds[0]!, 300e-6);
});

test("a sleeping process's wake-up is the calibrated sleeping one-way time beyond the sweep's, and the extra CPU of its path", () => {
  const model = calibratedWakeModel(machine, new Array(8).fill(0), [0, 1, 2, 3, 4, 5, 6, 7], twoCores, {});
  const c = machine.classes['inter-process']!;
  near(model.wake(0, 'inter-process'), 52e-6 - (12e-6 + 16e-9));
  near(model.wakeCpu!(0, 'inter-process'), Math.min(c.sleeping!.wake, 2 * (c.sleeping!.pathCpu! - c.pathCpu!)));
  assert.ok(c.sleeping!.pathCpu! > c.pathCpu!, 'the sleeping path costs more CPU than the turning one');
  // Threads keep their own wake-up points.
  near(model.wake(0, 'intra-process'), machine.wake![0]!.seconds);
});

test('with more processes than cores, a woken process also waits its turn for a core: the crowded rings\' figure, by ranks per core', () => {
  const crowdedMachine = machineFrom(
    new Map([['procs', { figures: figures(12e-6), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, sleeping: { oneWay: 52e-6 }, crowded: [{ ranksPerCore: 2, hop: 80e-6 }, { ranksPerCore: 4, hop: 120e-6 }] }]]),
    1,
  );
  const modelAt = (np: number) => calibratedWakeModel(crowdedMachine, new Array(np).fill(0), Array.from({ length: np }, (_, r) => r), twoCores, {});
  const wakeAt = (np: number): number => modelAt(np).wake(0, 'inter-process');
  const alone = 52e-6 - (12e-6 + 16e-9);
  near(wakeAt(2), alone);
  near(wakeAt(4), alone + 28e-6);
  near(wakeAt(6), alone + 48e-6);
  near(wakeAt(8), alone + 68e-6);
  // The crowding is the woken process's CPU (it shares the cores with the busy ranks); this
  // calibration measured no CPU for the sleeping path itself.
  near(modelAt(2).wakeCpu!(0, 'inter-process'), 0);
  near(modelAt(8).wakeCpu!(0, 'inter-process'), 68e-6);
  // Threads keep theirs.
  near(modelAt(8).wakeCpu!(0, 'intra-process'), 0);
  // Without the rings (an older calibration): the sleeping figure alone, however crowded.
  near(calibratedWakeModel(machine, new Array(8).fill(0), [0, 1, 2, 3, 4, 5, 6, 7], twoCores, {}).wake(0, 'inter-process'), 52e-6 - (12e-6 + 16e-9));
});

test('a sleep past the budget costs its share of the wake-up, all of it once as long as the calibration slept', () => {
  near(wakeShare(0, 100e-6), 0);
  near(wakeShare(25e-6, 100e-6), 0.25);
  near(wakeShare(100e-6, 100e-6), 1);
  near(wakeShare(1, 100e-6), 1);
  near(wakeShare(5e-6, undefined), 1);
  const model = calibratedWakeModel(machine, [0, 0], [0, 1], twoCores, {});
  const c = machine.classes['inter-process']!;
  const oneWay = evaluate(c.send, 16) + evaluate(c.latency, 16) + evaluate(c.recv, 16);
  // The sleeping ping-pong's ranks slept about a round trip of it.
  near(model.fullWakeAfter!(0, 'inter-process')!, 2 * (oneWay + c.sleeping!.wake));
  assert.equal(model.fullWakeAfter!(0, 'intra-process'), undefined, 'threads keep their measured wake-up points whole');
});

/**
 * How long rank 1 waits for a 16-byte frame that rank 0 sends after computing `seconds` (declared),
 * beyond those seconds; `np` ranks, `ranksPerProc` to a process (the others do nothing).
 */
async function waitedForFrame(platform: Parameters<typeof simulate>[0]['platform'], np: number, ranksPerProc: number, env: NodeJS.ProcessEnv, seconds: number): Promise<number> {
  let waited = Number.NaN;
  await simulate({
    np,
    platform,
    ranksPerProc,
    computeMode: 'declared',
    env,
    program: {
      name: 'waited-for-frame',
      run: async (rank) => {
        const comm = await init();
        if (rank === 0) {
          await comm.compute(seconds);
          await comm.send(new Uint8Array(16), 1);
        } else if (rank === 1) {
          const t0 = wtime();
          await comm.recvInto(new Uint8Array(16), 0);
          waited = wtime() - t0 - seconds;
        }
      },
    },
  });
  return waited;
}

test('a simulated process that slept a little past its budget pays a little of the wake-up, one that slept long all of it', async () => {
  const platform = platformFromCalibration(machine, 'test machine');
  // Rank 0 computes `seconds`, then sends; rank 1 waits for it from the start.
  const waitFor = (seconds: number): Promise<number> => waitedForFrame(platform, 2, 1, {}, seconds);
  const model = calibratedWakeModel(machine, [0, 0], [0, 1], twoCores, {});
  const budget = model.spinSeconds[1]!;
  const wake = model.wake(0, 'inter-process');
  const full = model.fullWakeAfter!(0, 'inter-process')!;
  const turning = await waitFor(budget / 2);
  const justPast = await waitFor(budget + 0.1 * full);
  const long = await waitFor(10 * full);
  assert.ok(justPast - turning > 0 && justPast - turning < 0.3 * wake, `just past the budget: ${(justPast - turning) * 1e6} us more than turning, of a ${wake * 1e6} us wake-up`);
  assert.ok(Math.abs(long - turning - wake) < 0.1 * wake, `a long sleep: ${(long - turning) * 1e6} us more, the wake-up is ${wake * 1e6} us`);
});

test('rank threads that outnumber the cores yield for 2 ms before they sleep, as the runtime picks it; others do not', () => {
  const threads = (n: number, env: NodeJS.ProcessEnv = {}): readonly number[] | undefined =>
    calibratedWakeModel(machine, new Array(n).fill(0), new Array(n).fill(0), twoCores, env).yieldSeconds;
  assert.deepEqual(threads(4), [2e-3, 2e-3, 2e-3, 2e-3]);
  assert.equal(threads(2), undefined, 'ranks that fit the cores spin');
  assert.equal(threads(4, { TSMPI_YIELD_US: '0' }), undefined);
  assert.equal(calibratedWakeModel(machine, [0, 0, 0, 0], [0, 1, 2, 3], twoCores, {}).yieldSeconds, undefined, 'processes have sockets to serve');
});

test("a yielding rank takes a frame after the others' turns (the calibrated hand-off), however short its wait; a spinning one catches it within its budget", async () => {
  const withRing = machineFrom(
    new Map([['threads', { figures: figures(1e-6), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]),
    1,
    undefined,
    { sleepingOneWay: 20e-6, rings: [{ ranksPerCore: 2, hop: 6e-6 }] },
    2,
  );
  const platform = platformFromCalibration(withRing, 'test machine');
  // 4 threads on 2 cores: rank 0 computes 1 us and sends to rank 1, which waits meanwhile; the
  // frame arrives within the 10 us spin budget of TSMPI_YIELD_US=0.
  const waitedWith = (env: NodeJS.ProcessEnv): Promise<number> => waitedForFrame(platform, 4, 4, env, 1e-6);
  const wake = calibratedWakeModel(withRing, [0, 0, 0, 0], [0, 0, 0, 0], twoCores, {}).wake(0, 'intra-process');
  assert.ok(wake > 0);
  const yielding = await waitedWith({});
  const spinning = await waitedWith({ TSMPI_YIELD_US: '0' });
  near(yielding - spinning, wake);
});
