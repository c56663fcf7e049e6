/**
 * The simulated ranks wait as the runtime's do: each rank's budget is its polling in place plus,
 * with TCP peers, its event loop turning (TSMPI_SOCKET_SPIN_US), as the runtime picks both for its
 * placement; past it a frame over TCP wakes a sleeping process, at the calibrated sleeping cost.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { machineFrom } from '../../src/calibrate/calibrate.ts';
import { calibratedWakeModel } from '../../src/sim/simulate.ts';

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
