// `tsmpi sim` with SimGrid's network models by name and by SimGrid's own settings: --network
// cm02|smpi|lv08, --crosstraffic, --cfg=key:value and a platform file's <config>, with the
// errors a SimGrid user gets for a wrong key or a conflict.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-sim-models-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const trace = fixture('traces/three-ranks.txt');
const cluster = (config: string): string => {
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(file, `<?xml version='1.0'?>\n<platform version="4.1">\n${config}  <cluster id="c" prefix="node-" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="50us" bb_bw="200MBps" bb_lat="10us"/>\n</platform>\n`);
  return file;
};
const plain = cluster('');

interface Summary {
  makespan: number;
  network: string;
  crosstraffic?: boolean;
}

async function sim(args: string[]): Promise<Summary> {
  const json = join(dir, `s${Math.random().toString(36).slice(2)}.json`);
  const result = await tsmpi(['sim', '--quiet', '--replay', trace, '--json', json, ...args]);
  assert.equal(result.code, 0, explain(result));
  return JSON.parse(readFileSync(json, 'utf8')) as Summary;
}

test('--network smpi and --cfg=network/model:SMPI are the same model; each model gives its own makespan', async () => {
  const byName = await sim(['--platform', plain, '--network', 'smpi']);
  const byCfg = await sim(['--platform', plain, '--cfg=network/model:SMPI']);
  assert.equal(byName.network, 'smpi');
  assert.equal(byName.crosstraffic, true);
  assert.equal(byCfg.makespan, byName.makespan);
  const cm02 = await sim(['--platform', plain, '--network', 'cm02']);
  const off = await sim(['--platform', plain, '--network', 'cm02', '--crosstraffic', 'off']);
  const flow = await sim(['--platform', plain]);
  assert.equal(flow.network, 'flow');
  assert.equal(off.crosstraffic, false);
  // SMPI's latency factors (2-11.6x) make it the slowest; cross-traffic only adds.
  assert.ok(byName.makespan > cm02.makespan, `smpi ${byName.makespan} vs cm02 ${cm02.makespan}`);
  assert.ok(cm02.makespan >= off.makespan, `cm02 ${cm02.makespan} vs cm02 without cross-traffic ${off.makespan}`);
});

test("a platform's <config> sets the model; --cfg and --crosstraffic override it", async () => {
  const configured = cluster('  <config>\n    <prop id="network/model" value="CM02"/>\n    <prop id="network/crosstraffic" value="0"/>\n  </config>\n');
  const fromFile = await sim(['--platform', configured]);
  const explicit = await sim(['--platform', plain, '--network', 'cm02', '--crosstraffic', 'off']);
  assert.equal(fromFile.network, 'cm02');
  assert.equal(fromFile.crosstraffic, false);
  assert.equal(fromFile.makespan, explicit.makespan);
  const overridden = await sim(['--platform', configured, '--cfg=network/crosstraffic:yes']);
  assert.equal(overridden.crosstraffic, true);
  const flag = await sim(['--platform', configured, '--crosstraffic', 'on']);
  assert.equal(flag.makespan, overridden.makespan);
  const model = await sim(['--platform', configured, '--network', 'smpi']);
  assert.equal(model.network, 'smpi');
});

test('SimGrid settings tsmpi does not read, and conflicts, are usage errors naming the setting', async () => {
  const cases: [string[], RegExp][] = [
    [['--cfg=network/modle:SMPI'], /network\/modle:SMPI: is not a setting tsmpi reads/],
    [['--cfg=network/model:NS3'], /network\/model:NS3: is not a model tsmpi has/],
    [['--cfg', 'nokey'], /--cfg=nokey is not key:value/],
    [['--network', 'cm02', '--cfg=network/model:SMPI'], /--network cm02 and --cfg=network\/model:SMPI both choose the network model/],
    [['--crosstraffic', 'maybe'], /--crosstraffic maybe is not on or off/],
    [['--network', 'delay', '--crosstraffic', 'on'], /--crosstraffic applies to the flow models/],
    [['--network', 'ib'], /--network ib is not a network model.*cm02/s],
  ];
  for (const [args, message] of cases) {
    const result = await tsmpi(['sim', '--quiet', '--replay', trace, '--platform', plain, ...args]);
    assert.equal(result.code, 2, `${args.join(' ')}: ${explain(result)}`);
    assert.match(result.stderr, message, args.join(' '));
  }
  // Settings without effect here are accepted with a note.
  const result = await tsmpi(['sim', '--quiet', '--replay', trace, '--platform', plain, '--cfg=surf/precision:1e-9']);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stderr, /surf\/precision:1e-9 has no effect here/);
});
