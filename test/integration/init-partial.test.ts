// On-demand initialisation (seed 5) end to end, with worker threads and with processes:
// TSMPI_CG_PER_PROCESS and TSMPI_MAPPING_FILE pick the members and renumber them; non-members
// hold no communication state; k = 1 or the identity mapping equal plain init; bad files fail.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { P2P_SUITE_LINES, explain, fixture, tsmpi } from '../helpers/run-job.ts';

interface Line {
  resource: number;
  member: boolean;
  rank: number;
  size: number;
  env: string;
  resources?: number[];
  sum?: number;
  job?: { size: number; nodeOfRank: number; pids: number };
  state: { member: boolean; links: number; arenaBytes: number; listening: boolean; pulled: { messages: number; bytes: number } };
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line)
    .sort((a, b) => a.resource - b.resource);
}

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-partial-'));
const permutation = join(dir, 'permutation.txt');
writeFileSync(permutation, '# new rank: resource id\n4\n0\n2\n');
const identity = join(dir, 'identity.txt');
writeFileSync(identity, '0\n1\n2\n3\n4\n5\n');

for (const mode of [[], ['--procs']] as const) {
  const where = mode.length ? 'processes' : 'threads';
  test(`TSMPI_CG_PER_PROCESS=2 on 6 ${where}: 3 members, renumbered, non-members hold nothing`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '6', ...mode, fixture('partial-init.ts')], { env: { TSMPI_CG_PER_PROCESS: '2' } });
    assert.equal(result.code, 0, explain(result));
    const out = lines(result.stdout);
    assert.deepStrictEqual(out.map((l) => [l.resource, l.member, l.rank]), [[0, true, 0], [1, false, -1], [2, true, 1], [3, false, -1], [4, true, 2], [5, false, -1]]);
    for (const l of out) {
      assert.equal(l.size, 3);
      assert.equal(l.env, String(l.rank));
      if (l.member) {
        assert.deepStrictEqual(l.resources, [0, 2, 4]);
        assert.equal(l.sum, 6);
        assert.deepStrictEqual(l.job, { size: 3, nodeOfRank: 3, pids: 3 }, 'job lists compacted to the members');
        assert.ok(l.state.arenaBytes > 0 && l.state.links >= 1);
      } else {
        assert.deepStrictEqual(l.state, { member: false, links: 0, arenaBytes: 0, listening: false, pulled: { messages: 0, bytes: 0 } });
      }
    }
  });

  test(`TSMPI_MAPPING_FILE permutes ranks on ${where}`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '6', ...mode, fixture('partial-init.ts')], { env: { TSMPI_MAPPING_FILE: permutation } });
    assert.equal(result.code, 0, explain(result));
    const members = lines(result.stdout).filter((l) => l.member);
    assert.deepStrictEqual(members.map((l) => [l.resource, l.rank]), [[0, 1], [2, 2], [4, 0]]);
    assert.deepStrictEqual(members[0]!.resources, [4, 0, 2], 'rank order follows the file');
  });
}

for (const [what, env] of [['TSMPI_CG_PER_PROCESS=1', { TSMPI_CG_PER_PROCESS: '1' }], ['the identity mapping', { TSMPI_MAPPING_FILE: identity }]] as const) {
  test(`${what} behaves as plain init`, { timeout: 60_000 }, async () => {
    const plain = lines((await tsmpi(['run', '-n', '6', fixture('partial-init.ts')])).stdout);
    const result = await tsmpi(['run', '-n', '6', fixture('partial-init.ts')], { env });
    assert.equal(result.code, 0, explain(result));
    const strip = (ls: Line[]): unknown => ls.map((l) => ({ ...l, state: { ...l.state, links: 0 } }));
    assert.deepStrictEqual(strip(lines(result.stdout)), strip(plain));
  });
}

test('a mapping file with an unknown id stops the job with the file and line', async () => {
  const bad = join(dir, 'bad.txt');
  writeFileSync(bad, '0\n1\n9\n');
  const result = await tsmpi(['run', '-n', '4', fixture('partial-init.ts')], { env: { TSMPI_MAPPING_FILE: bad } });
  assert.equal(result.code, 2, explain(result));
  assert.match(result.stderr, /bad\.txt:3: resource id 9 is not in this job of 4 processes/);
});

test('TSMPI_MEMORY_BALANCE=shared (one node-shared arena) runs the p2p suite', { timeout: 120_000 }, async () => {
  const result = await tsmpi(['run', '-n', '3', fixture('p2p-suite.ts')], { env: { TSMPI_MEMORY_BALANCE: 'shared' } });
  assert.equal(result.code, 0, explain(result));
  assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('p2p ok ')).length, P2P_SUITE_LINES, explain(result));
});
