// Slurm host lists and task counts: documented vectors, properties (compress then expand gives
// the names back), and, when a SLURM configuration is at hand, scontrol itself as the oracle.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { compressHostlist, compressTaskCounts, expandHostlist, expandTaskCounts } from '../../src/bootstrap/hostlist.ts';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';

const vectors: [string, string[]][] = [
  ['localhost', ['localhost']],
  ['n[1-3]', ['n1', 'n2', 'n3']],
  ['node[08-11]', ['node08', 'node09', 'node10', 'node11']],
  ['n[8-11]', ['n8', 'n9', 'n10', 'n11']],
  ['gnode[10,20,25,37]', ['gnode10', 'gnode20', 'gnode25', 'gnode37']],
  ['n[01-03,7,09-10]', ['n01', 'n02', 'n03', 'n7', 'n09', 'n10']],
  ['a,b[1-2],c', ['a', 'b1', 'b2', 'c']],
  ['rack[1-2]-n[08-09]', ['rack1-n08', 'rack1-n09', 'rack2-n08', 'rack2-n09']],
  ['gpu[1,3]x', ['gpu1x', 'gpu3x']],
  ['tux[0-3,12,18-20]', ['tux0', 'tux1', 'tux2', 'tux3', 'tux12', 'tux18', 'tux19', 'tux20']],
  ['n[007-009]', ['n007', 'n008', 'n009']],
  ['', []],
];

for (const [text, names] of vectors) {
  test(`hostlist: ${JSON.stringify(text)} expands to ${names.length} names`, () => {
    assert.deepStrictEqual(expandHostlist(text), names);
  });
}

test('hostlist: task counts', () => {
  assert.deepStrictEqual(expandTaskCounts('2(x3),1'), [2, 2, 2, 1]);
  assert.deepStrictEqual(expandTaskCounts('4'), [4]);
  assert.deepStrictEqual(expandTaskCounts('1,3(x2),2'), [1, 3, 3, 2]);
  assert.equal(compressTaskCounts([2, 2, 2, 1]), '2(x3),1');
  fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 30 }), (counts) => assert.deepStrictEqual(expandTaskCounts(compressTaskCounts(counts)), counts)));
});

test('hostlist: malformed lists are refused with ERR_INIT and a hint', () => {
  for (const bad of ['n[1-3', 'n1-3]', 'n[a-b]', 'n[3-1]', 'n[[1]]', 'a,,b']) {
    assert.throws(() => expandHostlist(bad), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Init && e.hint.includes('node[01-04'), bad);
  }
  assert.throws(() => expandTaskCounts('2(x)'), (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Init);
});

const hostName = fc
  .tuple(fc.constantFrom('n', 'node', 'gpu-', 'rack1-n'), fc.integer({ min: 0, max: 150 }), fc.integer({ min: 1, max: 3 }))
  .map(([prefix, n, width]) => prefix + String(n).padStart(width, '0'));

test('hostlist: compress then expand gives the same names in the same order', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(hostName, fc.constantFrom('login', 'head')), { maxLength: 40 }), (names) => {
      assert.deepStrictEqual(expandHostlist(compressHostlist(names)), names);
    }),
    { numRuns: 500 },
  );
  assert.equal(compressHostlist(['n01', 'n02', 'n03', 'n05', 'x']), 'n[01-03,05],x');
});

// scontrol only needs a configuration file to parse, not a running cluster.
const confDir = mkdtempSync(join(tmpdir(), 'tsmpi-scontrol-'));
const conf = join(confDir, 'slurm.conf');
writeFileSync(conf, 'ClusterName=oracle\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1\nPartitionName=p Nodes=ALL\n');
const env = { ...process.env, SLURM_CONF: conf };
const scontrol = spawnSync('scontrol', ['show', 'hostnames', 'n[1-2]'], { encoding: 'utf8', env });
if (scontrol.status !== 0 && process.env.TSMPI_REQUIRE_SLURM === '1') throw new Error(`scontrol is required but failed: ${scontrol.error?.message ?? scontrol.stderr}`);
test('hostlist: agrees with scontrol show hostnames', { skip: scontrol.status === 0 ? false : 'scontrol (slurm-client) is not installed' }, () => {
  fc.assert(
    fc.property(fc.array(hostName, { minLength: 1, maxLength: 20 }), (names) => {
      const list = compressHostlist(names);
      const out = spawnSync('scontrol', ['show', 'hostnames', list], { encoding: 'utf8', env });
      assert.equal(out.status, 0, out.stderr);
      assert.deepStrictEqual(expandHostlist(list), out.stdout.trim().split('\n'));
    }),
    { numRuns: 30 },
  );
});
