// SimGrid's settings as tsmpi reads them: size-dependent factors (SMPI's table and its lookup
// rule), the configuration keys of --cfg and of a platform's <config>, and the named models.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { flowDefaults, NETWORK_KINDS, simgridConfig } from '../../src/sim/network/network-models.ts';
import { parseSizeFactor, SMPI_BW_FACTOR, SMPI_LAT_FACTOR } from '../../src/sim/network/size-factor.ts';
import { platformFromSimGridXml } from '../../src/sim/platform/simgrid-xml.ts';

test("size factor: SMPI's default tables, a size in (t_k, t_k+1] takes t_k's value", () => {
  const lat = parseSizeFactor(SMPI_LAT_FACTOR, 'smpi/lat-factor');
  const bw = parseSizeFactor(SMPI_BW_FACTOR, 'smpi/bw-factor');
  // Sizes on the wire include SMPI's 16-byte envelope, so they are never 0.
  const rows: [number, number, number][] = [
    [16, 2.01467, 0.812084],
    [257, 2.01467, 0.812084],
    [258, 1.95341, 0.338112],
    [1426, 1.9503, 0.341987],
    [1427, 1.61075, 0.608902],
    [65472, 3.48845, 0.697866],
    [65473, 11.6436, 0.940694],
    [1 << 30, 11.6436, 0.940694],
  ];
  for (const [size, l, b] of rows) {
    assert.equal(lat.at(size), l, `lat-factor(${size})`);
    assert.equal(bw.at(size), b, `bw-factor(${size})`);
  }
  // At or below the smallest threshold: 1.
  assert.equal(parseSizeFactor('100:3;1000:5', 'f').at(100), 1);
  assert.equal(parseSizeFactor('0.97', 'f').at(123456), 0.97);
});

test('size factor: matches a plain reading of the rule for any table and size', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 100000 }), { minLength: 1, maxLength: 10 }), fc.array(fc.double({ min: 0, max: 20, noNaN: true }), { minLength: 10, maxLength: 10 }), fc.integer({ min: 0, max: 200000 }), (thresholds, values, size) => {
      const pairs = thresholds.map((t, i) => [t, values[i]!] as const);
      // Written in any order: the rule sorts them.
      const text = pairs.map(([t, v]) => `${t}:${v}`).join(';');
      const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
      let want = 1;
      for (const [t, v] of sorted) if (size > t) want = v;
      assert.equal(parseSizeFactor(text, 'f').at(size), want);
    }),
  );
});

test('size factor: bad entries are refused with the entry named', () => {
  assert.throws(() => parseSizeFactor('10:x', 'smpi/bw-factor'), /smpi\/bw-factor: "10:x" is not threshold:value/);
  assert.throws(() => parseSizeFactor('-1:2', 'f'), /"-1:2"/);
  assert.throws(() => parseSizeFactor('', 'f'), /no threshold:value/);
  assert.throws(() => parseSizeFactor('-3', 'f'), /not a factor/);
});

test('simgrid config: the keys tsmpi reads, later entries winning', () => {
  const s = simgridConfig([
    { key: 'network/model', value: 'CM02', source: 'a' },
    { key: 'network/model', value: 'SMPI', source: 'b' },
    { key: 'network/crosstraffic', value: '0', source: 'b' },
    { key: 'network/weight-S', value: '100', source: 'b' },
    { key: 'network/TCP-gamma', value: '65536', source: 'b' },
    { key: 'smpi/bw-factor', value: '0:0.5', source: 'b' },
    { key: 'smpi/lat-factor', value: '2', source: 'b' },
    { key: 'smpi/send-is-detached-thresh', value: '1000', source: 'b' },
    { key: 'smpi/async-small-thresh', value: '10', source: 'b' },
    { key: 'surf/precision', value: '1e-9', source: 'b' },
  ]);
  assert.equal(s.network, 'smpi');
  assert.equal(s.flow.crosstraffic, false);
  assert.equal(s.flow.weightS, 100);
  assert.equal(s.flow.tcpGamma, 65536);
  assert.equal(typeof s.flow.bandwidthFactor === 'object' ? s.flow.bandwidthFactor.at(100) : NaN, 0.5);
  assert.equal(typeof s.flow.latencyFactor === 'object' ? s.flow.latencyFactor.at(100) : NaN, 2);
  assert.equal(s.detachedThreshold, 1000);
  assert.equal(s.asyncSmallThreshold, 10);
  assert.deepEqual(s.ignored, ['surf/precision:1e-9']);
  for (const [value, want] of [['yes', true], ['on', true], ['1', true], ['no', false], ['off', false], ['false', false]] as const) {
    assert.equal(simgridConfig([{ key: 'network/crosstraffic', value, source: 'x' }]).flow.crosstraffic, want);
  }
  assert.equal(simgridConfig([{ key: 'network/model', value: 'LegrandVelho', source: 'x' }]).network, 'lv08');
});

test('simgrid config: unknown keys, models tsmpi lacks and bad values are refused, naming where they came from', () => {
  assert.throws(() => simgridConfig([{ key: 'network/modle', value: 'SMPI', source: '--cfg' }]), /--cfg: network\/modle:SMPI: is not a setting tsmpi reads/);
  assert.throws(() => simgridConfig([{ key: 'network/model', value: 'IB', source: 'p.xml <config>' }]), /p\.xml <config>: network\/model:IB: is not a model tsmpi has/);
  assert.throws(() => simgridConfig([{ key: 'network/crosstraffic', value: 'maybe', source: 'x' }]), /is not yes or no/);
  assert.throws(() => simgridConfig([{ key: 'smpi/bw-factor', value: '1:a', source: 'x' }]), /x: smpi\/bw-factor:1:a: "1:a" is not threshold:value/);
  assert.throws(() => simgridConfig([{ key: 'smpi/send-is-detached-thresh', value: '1.5', source: 'x' }]), /is not an integer/);
  assert.throws(
    () =>
      simgridConfig([
        { key: 'smpi/async-small-thresh', value: '100', source: 'x' },
        { key: 'smpi/send-is-detached-thresh', value: '10', source: 'x' },
      ]),
    /must not exceed/,
  );
});

test("network models: SimGrid's by name, cross-traffic on in each, SMPI's factors and weight-S", () => {
  assert.deepEqual(NETWORK_KINDS, ['flow', 'delay', 'cm02', 'smpi', 'lv08', 'calibrated']);
  assert.equal(flowDefaults('delay'), undefined);
  assert.equal(flowDefaults('calibrated'), undefined);
  assert.equal(flowDefaults('flow')!.crosstraffic, undefined);
  for (const kind of ['cm02', 'smpi', 'lv08'] as const) {
    assert.equal(flowDefaults(kind)!.crosstraffic, true, kind);
    assert.equal(flowDefaults(kind)!.smallFrameBytes, 0, kind);
  }
  assert.equal(flowDefaults('smpi')!.weightS, 8775);
  assert.equal(flowDefaults('cm02')!.weightS, undefined);
  assert.equal(flowDefaults('lv08')!.latencyFactor, 13.01);
});

test("platform XML: <config> settings are kept for the simulator, in file order", () => {
  const platform = platformFromSimGridXml(
    `<?xml version='1.0'?><platform version="4.1">
      <config><prop id="network/model" value="CM02"/><prop id="network/crosstraffic" value="0"/></config>
      <cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>
    </platform>`,
    'p.xml',
  );
  assert.deepEqual(platform.config, [
    { key: 'network/model', value: 'CM02' },
    { key: 'network/crosstraffic', value: '0' },
  ]);
});
