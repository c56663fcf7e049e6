/**
 * The calibration's fits: a line is recovered exactly, a link class's per-frame costs are
 * recovered from figures made by the model itself (tsmpi's protocol: eager frames, and the
 * rendezvous' two handshake frames before the data), and bad or partial figures are refused with
 * what is wrong.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { excessOver, fitCrowded, fitAfterSend, fitLine, fitLinkClass, fitLinkSetup, fitPathCpu, fitPiecewise, fitSleeping, fitWake, fitWarmup, robustLine, warmTailStart } from '../../src/calibrate/fit.ts';
import { machineFrom } from '../../src/calibrate/calibrate.ts';
import { simgridXml } from '../../src/calibrate/simgrid-xml.ts';
import { formatCalibration, runsApart } from '../../src/calibrate/summary.ts';
import { CALIBRATION_VERSION, crowdedWakeSeconds, evaluate, readCalibration, sizedWarmupIndex, wakeSeconds, warmupExtra, type MeasuredSize } from '../../src/sim/platform/calibration.ts';
import { TsmpiError } from '../../src/errors.ts';

const SIZES = [0, 16, 64, 256, 1024, 4096, 16384, 32768, 65536, 131072, 262144, 1048576, 4194304, 16777216];

test('fitLine recovers any line with intercept and slope >= 0', () => {
  fc.assert(
    fc.property(fc.double({ min: 1e-7, max: 1e-3, noNaN: true }), fc.double({ min: 0, max: 1e-8, noNaN: true }), (a, b) => {
      const fit = fitLine(SIZES.map((x) => ({ x, y: a + b * x })));
      assert.ok(Math.abs(fit.intercept - a) <= 1e-6 * a + 1e-15, `intercept ${fit.intercept} vs ${a}`);
      assert.ok(Math.abs(fit.slope - b) <= 1e-6 * b + 1e-15, `slope ${fit.slope} vs ${b}`);
      assert.ok(fit.fitError < 1e-6);
    }),
  );
});

test('fitLine keeps intercept and slope >= 0 and reports its worst relative error', () => {
  const falling = fitLine([{ x: 0, y: 4 }, { x: 10, y: 2 }]);
  assert.equal(falling.slope, 0);
  assert.ok(falling.intercept > 0);
  assert.ok(Math.abs(falling.fitError - Math.max(Math.abs(falling.intercept - 4) / 4, Math.abs(falling.intercept - 2) / 2)) < 1e-12);
});

test('fitPiecewise fits each range on its own points and continues a range without points', () => {
  const points = [0, 100, 500, 2000, 4000].map((x) => ({ x, y: x < 1024 ? 1 + x : 5 + 2 * x }));
  const [small, medium, empty] = fitPiecewise(points, [0, 1024, 100000]);
  assert.deepEqual([small!.from, small!.to, small!.points], [0, 1024, 3]);
  assert.ok(Math.abs(small!.intercept - 1) < 1e-9 && Math.abs(small!.slope - 1) < 1e-9);
  assert.ok(Math.abs(medium!.intercept - 5) < 1e-6 && Math.abs(medium!.slope - 2) < 1e-9);
  assert.equal(empty!.from, 100000);
  assert.equal(empty!.to, null);
  assert.equal(empty!.points, 0);
  assert.equal(empty!.slope, medium!.slope);
});

test('robustLine recovers any line with intercept and slope >= 0, and one stray point of four or more does not move it', () => {
  const small = [0, 16, 64, 256, 512];
  fc.assert(
    fc.property(
      fc.double({ min: 1e-7, max: 1e-3, noNaN: true }),
      fc.double({ min: 0, max: 1e-8, noNaN: true }),
      fc.integer({ min: 4, max: 5 }),
      fc.nat(),
      fc.double({ min: 0.2, max: 5, noNaN: true }),
      (a, b, count, which, factor) => {
        const points = small.slice(0, count).map((x) => ({ x, y: a + b * x }));
        const clean = robustLine(points);
        assert.ok(Math.abs(clean.intercept - a) <= 1e-9 * a + 1e-15 && Math.abs(clean.slope - b) <= 1e-9 * b + 1e-15, `clean: ${JSON.stringify(clean)} vs ${a} + ${b} x`);
        assert.ok(clean.fitError < 1e-6);
        const k = which % count;
        points[k] = { x: points[k]!.x, y: points[k]!.y * factor };
        const stray = robustLine(points);
        assert.ok(Math.abs(stray.intercept - a) <= 1e-6 * a + 1e-15, `intercept ${stray.intercept} vs ${a} (point ${k} times ${factor})`);
        assert.ok(Math.abs(stray.slope - b) <= 1e-6 * b + 1e-15, `slope ${stray.slope} vs ${b} (point ${k} times ${factor})`);
      },
    ),
  );
  // Falling times give a flat line, never a negative slope.
  assert.equal(robustLine([{ x: 0, y: 4 }, { x: 10, y: 3 }, { x: 20, y: 2 }]).slope, 0);
  // Repeats of one size: a flat line through their median.
  const repeats = robustLine([{ x: 16, y: 3 }, { x: 16, y: 5 }, { x: 16, y: 4 }]);
  assert.deepEqual([repeats.intercept, repeats.slope], [4, 0]);
  assert.ok(Math.abs(repeats.fitError - 1 / 3) < 1e-12);
});

test("a link class's small sizes: one fast 0-byte figure does not set the latency of a 16-byte frame", () => {
  // As measured over TCP here (one-way, us): 0 B ran fast right after the warm-up.
  const us = [30.7, 60.1, 61.4, 62.3, 66.0];
  const figures: MeasuredSize[] = SIZES.map((bytes, i) => ({ bytes, oneWay: (us[i] ?? 66 + bytes * 4e-4) * 1e-6, streamPeriod: 5e-6, send: 4e-6, recv: 1e-6 }));
  const fitted = fitLinkClass(figures, 65536, 'procs');
  const at16 = evaluate(fitted.latency, 16) + evaluate(fitted.gap, 16) + 5e-6;
  assert.ok(Math.abs(at16 - 60.1e-6) < 0.05 * 60.1e-6, `a 16-byte frame fitted at ${at16 * 1e6} us, measured 60.1 us`);
});

test("a link class whose path changes below the eager limit: the sizes past the change get a range of their own", () => {
  // As measured over TCP here (one-way, us; send and receive CPU per size): 32 and 64 KiB
  // payloads are written from the sender's buffer, and take twice what the sizes below do.
  const measured: [number, number, number, number][] = [
    [0, 62.7, 9.1, 2.2], [16, 37.9, 6.2, 1.1], [64, 30.0, 6.3, 1.4], [256, 30.7, 6.7, 2.1], [1024, 27.6, 8.0, 2.1],
    [4096, 38.3, 9.9, 3.1], [16384, 46.2, 23.6, 2.9], [32768, 112.9, 17.4, 3.5], [65536, 136.7, 30.5, 6.2],
  ];
  const figures: MeasuredSize[] = measured.map(([bytes, oneWay, send, recv]) => ({ bytes, oneWay: oneWay * 1e-6, streamPeriod: 30e-6, send: send * 1e-6, recv: recv * 1e-6 }));
  const frame = (fitted: ReturnType<typeof fitLinkClass>, bytes: number): number => evaluate(fitted.send, bytes) + evaluate(fitted.latency, bytes) + evaluate(fitted.gap, bytes) + evaluate(fitted.recv, bytes);
  const fitted = fitLinkClass(figures, 65536, 'procs', 16385);
  for (const [bytes, oneWay] of measured.filter(([b]) => b >= 16384)) {
    assert.ok(Math.abs(frame(fitted, bytes) * 1e6 - oneWay) <= 0.05 * oneWay, `${bytes} B fitted at ${frame(fitted, bytes) * 1e6} us, measured ${oneWay} us`);
  }
  assert.ok(fitted.latency.some((s) => s.from === 16385), 'a range starts where the path changes');
  // One line from 1 KiB to the eager limit misses 64 KiB by a fifth.
  const oneLine = fitLinkClass(figures, 65536, 'procs');
  assert.ok(frame(oneLine, 65536) * 1e6 < 0.85 * 136.7, `one line put 64 KiB at ${frame(oneLine, 65536) * 1e6} us`);
  // A change outside (SMALL, eager] adds no range.
  assert.equal(fitLinkClass(figures, 65536, 'procs', 512).latency.length, oneLine.latency.length);
});

/** Figures a machine with these per-frame costs shows under tsmpi's protocol. */
function figuresOf(costs: { send: number; recv: number; latency: number; perByte: number; gapPerByte: number }, eager: number): MeasuredSize[] {
  const frame = (bytes: number): number => costs.send + costs.recv + costs.latency + costs.perByte * bytes;
  return SIZES.map((bytes) => ({
    bytes,
    oneWay: bytes <= eager ? frame(bytes) : 2 * frame(0) + frame(bytes),
    streamPeriod: Math.max(costs.send, costs.gapPerByte * bytes),
    send: costs.send,
    recv: costs.recv,
  }));
}

test('fitLinkClass recovers the per-frame costs of the figures it is given within 5% (a line per range through a kinked gap), across the eager limit', () => {
  fc.assert(
    fc.property(
      fc.record({
        send: fc.double({ min: 1e-7, max: 2e-5, noNaN: true }),
        recv: fc.double({ min: 1e-7, max: 2e-5, noNaN: true }),
        latency: fc.double({ min: 1e-7, max: 1e-4, noNaN: true }),
        perByte: fc.double({ min: 1e-11, max: 1e-9, noNaN: true }),
      }),
      // 1 MiB: the default eager limit over TCP (one measured size above the small ones' ranges).
      fc.constantFrom(4096, 65536, 1048576),
      (c, eager) => {
        const costs = { ...c, gapPerByte: c.perByte / 2 };
        const fitted = fitLinkClass(figuresOf(costs, eager), eager, 'test');
        for (const bytes of SIZES) {
          const frame = evaluate(fitted.send, bytes) + evaluate(fitted.latency, bytes) + evaluate(fitted.gap, bytes) + evaluate(fitted.recv, bytes);
          const expected = costs.send + costs.recv + costs.latency + costs.perByte * bytes;
          assert.ok(Math.abs(frame - expected) <= 0.05 * expected, `${bytes} B: fitted frame ${frame} vs ${expected}`);
        }
        // Sends and receives up to the eager limit are what was measured.
        assert.ok(Math.abs(evaluate(fitted.send, 16) - costs.send) <= 1e-3 * costs.send);
        assert.ok(Math.abs(evaluate(fitted.recv, 16) - costs.recv) <= 1e-3 * costs.recv);
      },
    ),
    { numRuns: 50 },
  );
});

test('bad or partial figures are refused, naming what is wrong', () => {
  const good = figuresOf({ send: 1e-6, recv: 1e-6, latency: 1e-5, perByte: 1e-10, gapPerByte: 1e-10 }, 65536);
  assert.throws(() => fitLinkClass(good.slice(0, 3), 65536, 'threads'), /threads: 3 measured sizes, at least 4/);
  assert.throws(() => fitLinkClass(good.map((f) => (f.bytes === 4096 ? { ...f, oneWay: Number.NaN } : f)), 65536, 'procs'), /procs: oneWay of 4096 B is NaN, not a time/);
  assert.throws(() => fitLinkClass(good.map((f) => ({ ...f, oneWay: 0 })), 65536, 'procs'), /the clock did not move/);
  assert.throws(() => fitLinkClass(good.filter((f) => f.bytes !== 0), 65536, 'procs'), /no 0-byte measurement/);
  const partial = new Map([['procs', { figures: good.slice(0, 2), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]);
  assert.throws(
    () => machineFrom(partial, 1),
    (e: unknown) => e instanceof TsmpiError && /cannot fit the procs figures: procs \(inter-process\): 2 measured sizes/.test(e.message),
  );
  const noSpeed = new Map([['threads', { figures: good, speed: 0, eagerLimit: 65536, tcpEagerLimit: 65536 }]]);
  assert.throws(() => machineFrom(noSpeed, 1), /compute speed is 0 flop\/s/);
});

test('a fitted machine reads back as a calibration, and its SimGrid twin carries the smpi settings', () => {
  const figures = figuresOf({ send: 2e-6, recv: 1e-6, latency: 3e-5, perByte: 3e-10, gapPerByte: 2e-10 }, 65536);
  const machine = machineFrom(new Map([['threads', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }], ['procs', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]), 3);
  const back = readCalibration(JSON.parse(JSON.stringify(machine)), 'm.json');
  assert.deepEqual(Object.keys(back.classes).sort(), ['inter-process', 'intra-process']);
  assert.equal(back.hosts.speed, 1e9);
  const xml = simgridXml(back);
  for (const key of ['network/model" value="SMPI', 'smpi/os', 'smpi/or', 'smpi/ois', 'smpi/bw-factor', 'smpi/lat-factor', 'smpi/async-small-thresh" value="65537', 'smpi/send-is-detached-thresh" value="65537']) assert.ok(xml.includes(key), `${key} in\n${xml}`);
  assert.match(xml, /<cluster id="calibrated" prefix="node-" suffix="" radical="0-0" speed="[^"]+f" core="\d+"/);
  assert.throws(() => readCalibration({ format: 'tsmpi-calibration', version: CALIBRATION_VERSION, hosts: { count: 1, cores: 2, speed: 1e9 }, classes: {} }, 'm.json'), /m.json: no link class was calibrated/);
  assert.throws(() => readCalibration({ ...machine, classes: { wifi: {} } }, 'm.json'), /unknown link class "wifi"/);
  assert.throws(() => readCalibration({ ...machine, version: 7 }, 'm.json'), new RegExp(`calibration version 7 is not ${CALIBRATION_VERSION}`));
});

test('the SimGrid twin: inside one host the shared-memory class sets SMPI\'s knobs over the loopback, between hosts the TCP class over the cluster links', () => {
  const shm = figuresOf({ send: 1e-7, recv: 2e-7, latency: 4e-7, perByte: 1e-10, gapPerByte: 5e-11 }, 65536);
  const tcp = figuresOf({ send: 5e-6, recv: 3e-6, latency: 2e-5, perByte: 4e-10, gapPerByte: 3e-10 }, 65536);
  const machine = machineFrom(new Map([['threads', { figures: shm, speed: 2e9, eagerLimit: 65536, tcpEagerLimit: 65536, polls: { test: 3e-8, iprobe: 7e-8 } }], ['procs', { figures: tcp, speed: 2e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]), 3);
  const prop = (xml: string, id: string): string => new RegExp(`<prop id="${id}" value="([^"]*)"/>`).exec(xml)?.[1] ?? 'missing';
  const intercept0 = (value: string): number => Number(value.split(';')[0]!.split(':')[1]);
  const oneHost = simgridXml(machine);
  const classes = machine.classes;
  assert.ok(Math.abs(intercept0(prop(oneHost, 'smpi/os')) / classes['intra-process']!.send[0]!.intercept - 1) < 1e-5, prop(oneHost, 'smpi/os'));
  assert.ok(Math.abs(intercept0(prop(oneHost, 'smpi/or')) / classes['intra-process']!.recv[0]!.intercept - 1) < 1e-5, prop(oneHost, 'smpi/or'));
  // A burst SMPI times here takes as long on a simulated host; polls cost what was measured.
  assert.equal(prop(oneHost, 'smpi/host-speed'), '2000000000f');
  assert.equal(prop(oneHost, 'smpi/test'), '3e-8');
  assert.equal(prop(oneHost, 'smpi/iprobe'), '7e-8');
  // The smallest range's latency factor is 1: the loopback's latency is that range's pipe time.
  const loopbackLat = Number(/loopback_lat="([^"]+)s"/.exec(oneHost)![1]);
  const smallShm = classes['intra-process']!;
  assert.ok(Math.abs(loopbackLat / (smallShm.latency[0]!.intercept + smallShm.gap[0]!.intercept) - 1) < 1e-5, `loopback_lat ${loopbackLat}`);
  assert.match(prop(oneHost, 'smpi/lat-factor'), /;0:1$/);
  const twoHosts = simgridXml({ ...machine, hosts: { ...machine.hosts, count: 2 } });
  assert.ok(Math.abs(intercept0(prop(twoHosts, 'smpi/os')) / classes['inter-process']!.send[0]!.intercept - 1) < 1e-5, prop(twoHosts, 'smpi/os'));
  assert.match(prop(twoHosts, 'smpi/lat-factor'), /;0:1$/);
  // No poll figures (TCP's were not measured here): SimGrid keeps its own.
  assert.equal(prop(twoHosts, 'smpi/test'), 'missing');
  assert.match(twoHosts, /radical="0-1"/);
});

test("fitWarmup recovers a fresh rank's extra cost per frame, chunk by chunk, and stops where the curve is warm", () => {
  fc.assert(
    fc.property(
      fc.double({ min: 1e-6, max: 1e-4, noNaN: true }),
      // Per frame, from 2% of the warm round trip (4 frames: 8% per round trip, above the 5% noise floor).
      fc.array(fc.double({ min: 0.02, max: 20, noNaN: true }), { minLength: 1, maxLength: 8 }),
      // Chunks of any length, the first ones as short as one round trip.
      fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 40, maxLength: 40 }),
      (warm, ratios, lengths) => {
        const extras = ratios.map((r) => r * warm);
        // A round trip is four frame events on its critical path: each chunk's round trip costs 4 x extra more.
        const cold = [...extras.map((e) => warm + 4 * e), ...Array.from({ length: 3 * extras.length + 3 }, () => warm)];
        const frames = cold.map((_, k) => lengths.slice(0, k + 1).reduce((a, b) => a + b, 0));
        const steps = fitWarmup(cold, frames);
        assert.equal(steps.length, extras.length);
        steps.forEach((s, k) => {
          assert.equal(s.frames, frames[k]);
          assert.ok(Math.abs(s.extra - extras[k]!) <= 1e-9 * extras[k]! + 1e-15, `${s.extra} vs ${extras[k]}`);
        });
        // Frame by frame: each step's extra up to its end, nothing once warm.
        assert.equal(warmupExtra(steps, 0), steps[0]!.extra);
        assert.equal(warmupExtra(steps, frames[0]! - 1), steps[0]!.extra);
        if (steps.length > 1) assert.equal(warmupExtra(steps, frames[0]!), steps[1]!.extra);
        assert.equal(warmupExtra(steps, frames[extras.length - 1]!), 0);
      },
    ),
  );
  const frames = [1, 3, 103, 203, 303, 403];
  assert.deepEqual(fitWarmup([5e-6, 5e-6, 5e-6, 5e-6, 5e-6, 5e-6], frames), []);
  // Within the noise of the warm chunks (here 4%): not warming up.
  assert.deepEqual(fitWarmup([5.2e-6, 5e-6, 5e-6, 5e-6, 5e-6, 5e-6], frames), []);
  // The first contact alone: one step, a rank's first send and first receive.
  assert.deepEqual(fitWarmup([4.5e-3, 5e-6, 5e-6, 5e-6, 5e-6, 5e-6], frames), [{ frames: 1, extra: (4.5e-3 - 5e-6) / 4 }]);
  assert.throws(() => fitWarmup([1e-6, Number.NaN, 1e-6], [2, 4, 6]), /3 times are needed/);
  assert.throws(() => fitWarmup([1e-6], [2]), /at least 3/);
  assert.throws(() => fitWarmup([1e-6, 1e-6, 1e-6], [2, 4]), /one increasing frame count per chunk/);
  assert.throws(() => fitWarmup([1e-6, 1e-6, 1e-6], [2, 2, 4]), /one increasing frame count per chunk/);
});

test("fitWake gives a sleeping rank's wake-up beyond the calibrated one-way time, and wakeSeconds interpolates it by ranks per core", () => {
  const measured: MeasuredSize[] = [0, 16, 64].map((bytes) => ({ bytes, oneWay: 1e-6 + bytes * 1e-9, streamPeriod: 1e-7, send: 1e-7, recv: 1e-7 }));
  const base = 1e-6 + 16e-9;
  const points = fitWake({ sleepingOneWay: base + 20e-6, rings: [{ ranksPerCore: 4, hop: base + 80e-6 }, { ranksPerCore: 2, hop: base + 50e-6 }] }, measured);
  assert.deepEqual(points.map((p) => p.ranksPerCore), [1, 2, 4]);
  const near = (a: number, b: number): boolean => Math.abs(a - b) < 1e-12;
  assert.ok(near(points[0]!.seconds, 20e-6) && near(points[1]!.seconds, 50e-6) && near(points[2]!.seconds, 80e-6), JSON.stringify(points));
  assert.ok(near(wakeSeconds(points, 0.5), 20e-6), 'fewer ranks than cores: the lone figure');
  assert.ok(near(wakeSeconds(points, 1.5), 35e-6), 'between points: linear');
  assert.ok(near(wakeSeconds(points, 3), 65e-6));
  assert.ok(near(wakeSeconds(points, 6), 110e-6), 'past the last point: its slope');
  assert.equal(wakeSeconds(undefined, 4), 0);
  // A hand-over faster than the calibrated frame is no wake-up at all, not a negative one.
  assert.equal(fitWake({ sleepingOneWay: base / 2, rings: [] }, measured)[0]!.seconds, 0);
});

test('warm-up steps, poll costs and wake-up points read back from a file, and bad ones are refused naming the field', () => {
  const figures = SIZES.map((bytes) => ({ bytes, oneWay: 1e-5 + bytes * 1e-9, streamPeriod: 5e-6 + bytes * 5e-10, send: 1e-6, recv: 1e-6 }));
  const m = machineFrom(
    new Map([['threads', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, cold: [9e-5, 5e-5, 2e-5, 2e-5, 2e-5, 2e-5], coldFrames: [200, 400, 600, 800, 1000, 1200], polls: { test: 3e-8, iprobe: 6e-8 } }]]),
    1,
    undefined,
    { sleepingOneWay: 3.5e-5, rings: [{ ranksPerCore: 2, hop: 6e-5 }] },
    2,
  );
  const back = readCalibration(JSON.parse(JSON.stringify(m)), 'cal.json');
  const c = back.classes['intra-process']!;
  assert.deepEqual(c.polls, { test: 3e-8, iprobe: 6e-8 });
  assert.deepEqual(c.warmup!.map((s) => s.frames), [200, 400]);
  assert.ok(Math.abs(c.warmup![0]!.extra - 7e-5 / 4) < 1e-12);
  assert.deepEqual(back.wake!.map((p) => p.ranksPerCore), [1, 2]);
  assert.ok(Math.abs(back.wake![0]!.seconds - (3.5e-5 - (1e-5 + 16e-9))) < 1e-12);
  const broken = (edit: (v: Record<string, any>) => void): (() => void) => () => {
    const v = JSON.parse(JSON.stringify(m)) as Record<string, any>;
    edit(v);
    readCalibration(v, 'cal.json');
  };
  assert.throws(broken((v) => (v['classes']['intra-process']['warmup'] = [{ frames: 400, extra: 1e-6 }, { frames: 200, extra: 1e-6 }])), /warmup\[1\]\.frames 200 is not above/);
  // A step below 0 is a credit and reads back; one that is not a finite number is refused.
  const credit = JSON.parse(JSON.stringify(m)) as Record<string, any>;
  credit['classes']['intra-process']['warmup'] = [{ frames: 10, extra: -2e-5 }];
  assert.deepEqual(readCalibration(credit, 'cal.json').classes['intra-process']!.warmup, [{ frames: 10, extra: -2e-5 }]);
  assert.throws(broken((v) => (v['classes']['intra-process']['warmup'] = [{ frames: 10, extra: 'soon' }])), /warmup\[0\]\.extra must be a finite number of seconds \(below 0: a credit\); got "soon"/);
  assert.throws(broken((v) => (v['classes']['intra-process']['warmup'] = [{ frames: 10, extra: null }])), /warmup\[0\]\.extra must be a finite number/);
  assert.throws(broken((v) => (v['classes']['intra-process']['polls'] = { test: -1, iprobe: 0 })), /polls\.test/);
  assert.throws(broken((v) => (v['classes']['intra-process']['linkSetup'] = -1e-3)), /linkSetup/);
  assert.throws(broken((v) => (v['wake'] = [])), /wake must be a non-empty list/);
  assert.throws(broken((v) => (v['wake'] = [{ ranksPerCore: 2, seconds: 1e-5 }, { ranksPerCore: 1, seconds: 1e-5 }])), /wake\[1\]\.ranksPerCore 1 is not above/);
});

test('sized warm-ups: each curve fitted apart, a frame takes the largest size it reaches (from half-way between two), read back from a file, bad ones refused naming the field', () => {
  const figures = SIZES.map((bytes) => ({ bytes, oneWay: 1e-5 + bytes * 1e-9, streamPeriod: 5e-6 + bytes * 5e-10, send: 1e-6, recv: 1e-6 }));
  const frames = [100, 200, 300, 400, 500, 600];
  const sizedCold = [
    { bytes: 2048, cold: [4e-5, 2e-5, 2e-5, 2e-5, 2e-5, 2e-5], coldFrames: frames },
    { bytes: 65536, cold: [9e-5, 5e-5, 3e-5, 3e-5, 3e-5, 3e-5], coldFrames: frames },
  ];
  const m = machineFrom(new Map([['threads', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, sizedCold }]]), 1, undefined, undefined, 2);
  const back = readCalibration(JSON.parse(JSON.stringify(m)), 'cal.json');
  const sized = back.classes['intra-process']!.sizedWarmup!;
  assert.deepEqual(sized.map((w) => [w.bytes, w.fromBytes]), [[2048, 2048], [65536, 11585]]);
  // A round trip's excess over the warm figure, shared by its four frame events.
  assert.deepEqual(sized[0]!.steps.map((s) => s.frames), [100]);
  assert.ok(Math.abs(sized[0]!.steps[0]!.extra - 2e-5 / 4) < 1e-12);
  assert.deepEqual(sized[1]!.steps.map((s) => s.frames), [100, 200]);
  assert.ok(Math.abs(sized[1]!.steps[1]!.extra - 2e-5 / 4) < 1e-12);
  assert.deepEqual([0, 2047, 2048, 11584, 11585, 65536, 1 << 24].map((payload) => sizedWarmupIndex(sized, payload)), [-1, -1, 0, 0, 1, 1, 1]);
  assert.equal(sizedWarmupIndex(undefined, 65536), -1);
  const broken = (edit: (v: Record<string, any>) => void): (() => void) => () => {
    const v = JSON.parse(JSON.stringify(m)) as Record<string, any>;
    edit(v);
    readCalibration(v, 'cal.json');
  };
  assert.throws(broken((v) => (v['classes']['intra-process']['sizedWarmup'] = { bytes: 2048 })), /sizedWarmup must be a list/);
  assert.throws(broken((v) => v['classes']['intra-process']['sizedWarmup'].reverse()), /sizedWarmup\[1\]\.fromBytes 2048 is not above/);
  assert.throws(broken((v) => (v['classes']['intra-process']['sizedWarmup'][0]['steps'] = [{ frames: 0, extra: 1e-6 }])), /sizedWarmup\[0\]\.steps\[0\]\.frames/);
  // In the summary: each size's steps, sent and received, in all.
  assert.match(formatCalibration(back), /a fresh rank's first frames beyond the simulator's own count 16 B 0\.0 ms, 2 KiB 1\.0 ms on top, 64 KiB 4\.0 ms on top/);
});

test("excessOver keeps of a fresh rank's real curve what the simulator does not count by itself, and gives back what it counted ahead", () => {
  // The simulated curve's own excess over its warm tail (5) is taken off the real curve's.
  const even = [100, 200, 300, 400, 500, 600];
  assert.deepEqual(excessOver([50, 30, 20, 12, 10, 10], [25, 15, 5, 5, 5, 5], even), [30, 20, 20, 12, 10, 10]);
  // The tail (the warm figure) is not touched. Where the simulated run counted more from the
  // start, nothing is charged (nor owed) until the real run has paid more in all.
  assert.deepEqual(excessOver([50, 30, 20, 12, 10, 10], [60, 5, 5, 5, 5, 5], even), [10, 15, 20, 12, 10, 10]);
  assert.deepEqual(excessOver([50, 30, 20, 12, 10, 10], [80, 5, 5, 5, 5, 5], even), [10, 10, 10, 10, 10, 10]);
  // A chunk where the simulator counts more after the real run's charges gives them back: it
  // falls below the warm figure (a credit), never by more than was charged before.
  assert.deepEqual(excessOver([50, 10, 10, 10, 10, 10], [5, 35, 35, 5, 5, 5], even), [50, -20, 0, 10, 10, 10]);
  // A stall one chunk apart in the two runs (a compile that fell a chunk later in the real run)
  // leaves nothing.
  assert.deepEqual(excessOver([10, 10, 90, 10, 10, 10, 10, 10, 10], [5, 85, 5, 5, 5, 5, 5, 5, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]), [10, 10, 10, 10, 10, 10, 10, 10, 10]);
  // The other way round it is charged, then given back.
  assert.deepEqual(excessOver([10, 90, 10, 10, 10, 10, 10, 10, 10], [5, 5, 85, 5, 5, 5, 5, 5, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]), [10, 90, -70, 10, 10, 10, 10, 10, 10]);
  // The simulator counting all of the warm-up leaves none to charge again, nor counting more.
  const real = [40, 30, 20, 10, 10, 10, 10, 10, 10];
  const frames = real.map((_, k) => 200 * (k + 1));
  assert.deepEqual(fitWarmup(excessOver(real, real.map((t) => t - 3), frames), frames), []);
  assert.deepEqual(fitWarmup(excessOver(real, real.map((t) => t * 2 - 7), frames), frames), []);
  assert.ok(fitWarmup(real, frames).length > 0);
  // What fitWarmup makes of a charge given back: its steps sum to the net charge.
  const steps = fitWarmup(excessOver(real, [20, 50, 25, 13, 13, 13, 13, 13, 13], frames), frames);
  assert.deepEqual(steps.map((s) => [s.frames, s.extra * 4]), [[200, 30 - 7], [400, 20 - 37], [600, 10 - 12]]);
});

test('fitWarmup: a chunk below the warm figure by more than the noise is a credit, by less it costs nothing', () => {
  const frames = [100, 200, 300, 400, 500, 600];
  // Noise: 5% of the warm figure (the tail is flat).
  assert.deepEqual(fitWarmup([9.6e-6, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5], frames), []);
  // A credit, a charge, then a chunk a little under the warm figure (no step: the last is the charge).
  assert.deepEqual(fitWarmup([-3e-5, 2e-5, 9.7e-6, 1e-5, 1e-5, 1e-5], frames), [
    { frames: 100, extra: -4e-5 / 4 },
    { frames: 200, extra: 1e-5 / 4 },
  ]);
  // Within the steps, a chunk a little under it costs nothing (not a credit).
  assert.deepEqual(fitWarmup([24, 7.75, 16, 8, 8, 8], frames), [
    { frames: 100, extra: 4 },
    { frames: 200, extra: 0 },
    { frames: 300, extra: 2 },
  ]);
  assert.throws(() => fitWarmup([Number.NEGATIVE_INFINITY, 1e-5, 1e-5], [1, 2, 3]), /3 times are needed/);
});

test('the warm tail is the chunks in the last third of the round trips, however short the first chunks are', () => {
  // The probe's chunks: 1, 1, 2, ... 64 round trips (a barrier's frame before each but the first), then 100s.
  const frames = [1, 3, 6, 11, 20, 37, 70, 135, 236, 337, 438, 539, 640, 741, 842, 943];
  assert.equal(warmTailStart(frames), 13);
  assert.equal(warmTailStart([100, 200, 300, 400, 500, 600]), 4);
  assert.equal(warmTailStart([1, 2, 3]), 2);
  // A warm-up that lasts 400 round trips leaves the tail's figure warm.
  const cold = frames.map((f) => (f <= 400 ? 9e-5 : 2e-5));
  const last = fitWarmup(cold, frames).at(-1)!;
  assert.equal(last.frames, 337);
  assert.ok(Math.abs(last.extra - 7e-5 / 4) < 1e-15);
});

test("fitPathCpu: a process's CPU per round trip less its calls' costs, half per frame end, never more than half the latency", () => {
  const near = (got: number, want: number): void => assert.ok(Math.abs(got - want) < 1e-15, `${got} vs ${want}`);
  near(fitPathCpu(50e-6, 6e-6, 4e-6, 60e-6), 20e-6);
  near(fitPathCpu(50e-6, 6e-6, 4e-6, 30e-6), 15e-6);
  assert.equal(fitPathCpu(5e-6, 6e-6, 4e-6, 30e-6), 0);
  assert.throws(() => fitPathCpu(Number.NaN, 0, 0, 1), /CPU per round trip/);
});

test("fitAfterSend: an exchange longer than the one-way time less its calls and the path's CPU at both ends; no longer, nothing; read back only between processes, a bad one refused", () => {
  const near = (got: number | undefined, want: number): void => assert.ok(got !== undefined && Math.abs(got - want) < 1e-15, `${got} vs ${want}`);
  near(fitAfterSend(20e-6, 11e-6, 6e-6, 1e-6), 13e-6);
  near(fitAfterSend(20e-6, 11e-6, 6e-6, 1e-6, 2e-6), 9e-6);
  assert.equal(fitAfterSend(10e-6, 11e-6, 6e-6, 1e-6), 0, 'an exchange within a one-way time says nothing of the work after a send');
  assert.equal(fitAfterSend(12e-6, 11e-6, 6e-6, 1e-6, 5e-6), 0, 'never below 0');
  assert.throws(() => fitAfterSend(Number.NaN, 11e-6, 6e-6, 1e-6), /exchange took NaN s/);
  assert.throws(() => fitAfterSend(0, 11e-6, 6e-6, 1e-6), /exchange took 0 s/);
  // 16 bytes one way in 12 us, calls of 3 + 1 us; the exchange 30 us a call.
  const figures = SIZES.map((bytes) => ({ bytes, oneWay: 1.2e-5 + bytes * 1e-9, streamPeriod: 5e-6 + bytes * 5e-10, send: 3e-6, recv: 1e-6 }));
  const m = machineFrom(new Map([['threads', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, exchange: 30e-6 }], ['procs', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, exchange: 30e-6 }]]), 1);
  const back = readCalibration(JSON.parse(JSON.stringify(m)), 'cal.json');
  const tcp = back.classes['inter-process']!;
  near(tcp.afterSend, 30e-6 - evaluate(tcp.send, 16) - evaluate(tcp.recv, 16));
  assert.ok(Math.abs(tcp.afterSend! - 26e-6) < 0.5e-6, `afterSend ${tcp.afterSend}`);
  assert.equal(back.classes['intra-process']!.afterSend, undefined, 'between threads the model makes the exchange by itself');
  assert.match(formatCalibration(back), /the sender's CPU 2\d\.\d+ us after it left/);
  const bad = JSON.parse(JSON.stringify(m)) as Record<string, any>;
  bad['classes']['inter-process']['afterSend'] = -1e-6;
  assert.throws(() => readCalibration(bad, 'cal.json'), /inter-process\.afterSend/);
});

test("a burst's send: fitted per range where every eager size measured one, else none; read back, summarised, a bad one refused naming the size or field", () => {
  const near = (got: number, want: number): void => assert.ok(Math.abs(got - want) < 1e-12, `${got} vs ${want}`);
  // 16 bytes one way in 12 us, calls of 3 + 1 us, a burst's send 0.5 us + 0.1 ns a byte.
  const figures = SIZES.map((bytes) => ({ bytes, oneWay: 1.2e-5 + bytes * 1e-9, streamPeriod: 5e-6 + bytes * 5e-10, send: 3e-6, recv: 1e-6, burstSend: 5e-7 + bytes * 1e-10 }));
  const fitted = fitLinkClass(figures, 65536, 'procs');
  for (const bytes of [0, 16, 4096, 65536]) near(evaluate(fitted.burstSend!, bytes), 5e-7 + bytes * 1e-10);
  // A rendezvous' data frame: its handling, as for a send.
  near(evaluate(fitted.burstSend!, 1 << 20), 5e-7);
  assert.equal(fitLinkClass(figures.map(({ burstSend: _, ...f }) => f), 65536, 'procs').burstSend, undefined, 'figures without it (an older probe): no burst figure');
  assert.equal(fitLinkClass(figures.map((f) => (f.bytes === 1024 ? { bytes: f.bytes, oneWay: f.oneWay, streamPeriod: f.streamPeriod, send: f.send, recv: f.recv } : f)), 65536, 'procs').burstSend, undefined, 'one eager size without it: none');
  assert.throws(() => fitLinkClass(figures.map((f) => (f.bytes === 256 ? { ...f, burstSend: Number.NaN } : f)), 65536, 'procs'), /procs: burstSend of 256 B is NaN, not a time/);
  const m = machineFrom(new Map([['procs', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]), 1);
  const back = readCalibration(JSON.parse(JSON.stringify(m)), 'cal.json');
  near(evaluate(back.classes['inter-process']!.burstSend!, 16), 5e-7 + 16e-10);
  assert.match(formatCalibration(back), /0\.50 us continuing a burst/);
  const bad = JSON.parse(JSON.stringify(m)) as Record<string, any>;
  bad['classes']['inter-process']['burstSend'] = [{ from: 0, to: null, intercept: -1e-6, slope: 0 }];
  assert.throws(() => readCalibration(bad, 'cal.json'), /inter-process\.burstSend\[0\]\.intercept/);
});

test("fitLinkSetup: a new link's first round trip beyond a warm one, per direction; a bad figure is refused", () => {
  assert.ok(Math.abs(fitLinkSetup({ first: 4.2e-3, warm: 2e-4 }) - 2e-3) < 1e-15);
  assert.equal(fitLinkSetup({ first: 1e-4, warm: 2e-4 }), 0);
  assert.throws(() => fitLinkSetup({ first: Number.NaN, warm: 2e-4 }), /new link's round trips/);
  assert.throws(() => fitLinkSetup({ first: 1e-3, warm: 0 }), /new link's round trips/);
});

test("fitSleeping: a sleeping receiver's 16-byte one-way time beyond the sweep's, and its path's CPU; read back from a file, a bad one refused", () => {
  const near = (got: number | undefined, want: number): void => assert.ok(got !== undefined && Math.abs(got - want) < 1e-15, `${got} vs ${want}`);
  // The sweep (turning receivers): 16 bytes one way in 12 us, calls of 3 + 1 us, latency 8 us.
  const figures = SIZES.map((bytes) => ({ bytes, oneWay: bytes === 16 ? 12e-6 : 1.2e-5 + bytes * 1e-9, streamPeriod: 5e-6 + bytes * 5e-10, send: 3e-6, recv: 1e-6 }));
  const fitted = fitLinkClass(figures, 65536, 'procs');
  const asleep = fitSleeping({ oneWay: 50e-6, cpuPerRoundTrip: 60e-6 }, fitted);
  near(asleep.wake, 38e-6);
  near(asleep.pathCpu, fitPathCpu(60e-6, evaluate(fitted.send, 16), evaluate(fitted.recv, 16), evaluate(fitted.latency, 16) + 38e-6));
  // The sender's work after its frame left is in that CPU too: it is charged apart, so taken out.
  near(fitSleeping({ oneWay: 50e-6, cpuPerRoundTrip: 60e-6 }, fitted, 10e-6).pathCpu, fitPathCpu(50e-6, evaluate(fitted.send, 16), evaluate(fitted.recv, 16), evaluate(fitted.latency, 16) + 38e-6));
  assert.deepEqual(fitSleeping({ oneWay: 5e-6 }, fitted), { wake: 0 }, 'a sleeper never costs less than a turning receiver');
  assert.throws(() => fitSleeping({ oneWay: Number.NaN }, fitted), /sleeping one-way time/);
  const m = machineFrom(new Map([['procs', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, cpuPerRoundTrip: 24e-6, sleeping: { oneWay: 50e-6, cpuPerRoundTrip: 60e-6 } }]]), 1);
  const back = readCalibration(JSON.parse(JSON.stringify(m)), 'cal.json');
  near(back.classes['inter-process']!.sleeping?.wake, 38e-6);
  const bad = JSON.parse(JSON.stringify(m)) as Record<string, any>;
  bad['classes']['inter-process']['sleeping'] = { wake: -1 };
  assert.throws(() => readCalibration(bad, 'cal.json'), /sleeping\.wake/);
});

test("fitCrowded: a crowded ring's hop beyond the sleeping one-way time, by processes per core; crowdedWakeSeconds adds nothing at one per core; read back, a bad one refused", () => {
  const near = (got: number | undefined, want: number): void => assert.ok(got !== undefined && Math.abs(got - want) < 1e-15, `${got} vs ${want}`);
  const points = fitCrowded([{ ranksPerCore: 4, hop: 90e-6 }, { ranksPerCore: 2, hop: 60e-6 }], 40e-6);
  assert.deepEqual(points.map((p) => p.ranksPerCore), [2, 4]);
  near(points[0]!.seconds, 20e-6);
  near(points[1]!.seconds, 50e-6);
  // A hop faster than the sleeping ping-pong's is no extra wake-up, not a negative one.
  near(fitCrowded([{ ranksPerCore: 2, hop: 30e-6 }], 40e-6)[0]!.seconds, 0);
  assert.throws(() => fitCrowded([{ ranksPerCore: 2, hop: Number.NaN }], 40e-6), /ring of 2 processes per core/);
  assert.throws(() => fitCrowded([], 0), /sleeping one-way time/);
  // Nothing up to a rank per core, linear from there, the last slope beyond.
  near(crowdedWakeSeconds(points, 0.5), 0);
  near(crowdedWakeSeconds(points, 1), 0);
  near(crowdedWakeSeconds(points, 1.5), 10e-6);
  near(crowdedWakeSeconds(points, 3), 35e-6);
  near(crowdedWakeSeconds(points, 6), 80e-6);
  assert.equal(crowdedWakeSeconds(undefined, 4), 0);
  const figures = SIZES.map((bytes) => ({ bytes, oneWay: 1.2e-5 + bytes * 1e-9, streamPeriod: 5e-6 + bytes * 5e-10, send: 3e-6, recv: 1e-6 }));
  const m = machineFrom(new Map([['procs', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536, sleeping: { oneWay: 40e-6 }, crowded: [{ ranksPerCore: 2, hop: 60e-6 }, { ranksPerCore: 4, hop: 90e-6 }] }]]), 1);
  const back = readCalibration(JSON.parse(JSON.stringify(m)), 'cal.json');
  assert.deepEqual(back.classes['inter-process']!.sleeping!.crowded!.map((p) => p.ranksPerCore), [2, 4]);
  near(back.classes['inter-process']!.sleeping!.crowded![1]!.seconds, 50e-6);
  assert.match(formatCalibration(back), /a sleeping receiver [\d.]+ us more, and its CPU 20\.00 us more at 2 processes per core, 50\.00 us more at 4 processes per core;/);
  const bad = JSON.parse(JSON.stringify(m)) as Record<string, any>;
  bad['classes']['inter-process']['sleeping']['crowded'] = [{ ranksPerCore: 4, seconds: 1e-5 }, { ranksPerCore: 2, seconds: 1e-5 }];
  assert.throws(() => readCalibration(bad, 'cal.json'), /sleeping\.crowded\[1\]\.ranksPerCore 2 is not above/);
});

test('the summary says how far the runs lay apart, and warns naming the class and size when they disagree by more than 1.5x', () => {
  const figures = figuresOf({ send: 2e-6, recv: 1e-6, latency: 3e-5, perByte: 3e-10, gapPerByte: 2e-10 }, 65536);
  // Three runs per size: within 10% everywhere, except 1 MiB where one run took 3x as long.
  const runsOf = (f: MeasuredSize, slow: number): MeasuredSize => ({ ...f, oneWayRuns: [f.oneWay, f.oneWay * (f.bytes === 1 << 20 ? slow : 1.1), f.oneWay * 0.95] });
  const steady = figures.map((f) => runsOf(f, 1.05));
  const unsteady = figures.map((f) => runsOf(f, 3));
  const machine = machineFrom(new Map([['threads', { figures: unsteady, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }], ['procs', { figures: steady, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]), 3);
  const back = readCalibration(JSON.parse(JSON.stringify(machine)), 'm.json');
  assert.deepEqual(back.classes['intra-process']!.measured.find((m) => m.bytes === 1 << 20)!.oneWayRuns, unsteady.find((m) => m.bytes === 1 << 20)!.oneWayRuns);
  const apart = runsApart(back.classes['intra-process']!)!;
  assert.equal(apart.bytes, 1 << 20);
  assert.ok(Math.abs(apart.ratio - 3 / 0.95) < 1e-12, `${apart.ratio}`);
  const text = formatCalibration(back);
  assert.match(text, /intra-process: .*; runs up to 3\.16x apart \(1 MiB\)/);
  assert.match(text, /inter-process: .*; runs up to 1\.16x apart \(\d+ [KM]?i?B\)/);
  const warnings = text.split('\n').filter((l) => l.startsWith('warning:'));
  assert.deepEqual(warnings.length, 1);
  assert.match(warnings[0]!, /intra-process one-way times at 1 MiB differed 3\.16x between runs.*calibrate again when the machine is quiet, or with more --runs/);
  // One run: nothing to compare, no figure and no warning.
  const single = machineFrom(new Map([['threads', { figures, speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]), 1);
  assert.equal(runsApart(single.classes['intra-process']!), undefined);
  assert.doesNotMatch(formatCalibration(single), /runs up to|warning/);
  // The first line says how long the calibration took (machineFrom was given 1 s).
  assert.match(formatCalibration(single).split('\n')[0]!, /^machine .+: \d+ cores, 1\.00 Gflop\/s per core \(JavaScript kernel\); measured in 1\.0 s$/);
});
