// Issue 16, profiles: `--profile` / `--profile-json FILE` on run (threads, --procs) and sim:
// mpiP's summary, with exact counts for a program whose calls are known (examples/ring.ts),
// call sites at the program's .ts lines, the same communication matrix in every mode, and the
// collective imbalance; with --trace too, the matrix agrees with the timeline's messages.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { explain, tsmpi } from '../helpers/run-job.ts';
import { readTimeline } from '../helpers/trace.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-profile-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Profile {
  ranks: number;
  missing: number[];
  calls: { name: string; count: number; seconds: number; bytes: number; perRank: { rank: number; count: number }[] }[];
  sites: { site: string; name: string; count: number; ranks: number[] }[];
  matrix: { bytes: number[][]; messages: number[][] };
  imbalance: { communicator: string; name: string; calls: number; maxWaitSeconds: number }[];
}

const matrices: Record<string, number[][]> = {};

for (const [label, command] of [
  ['run (threads)', ['run', '-n', '4']],
  ['run --procs', ['run', '-n', '4', '--procs']],
  ['sim', ['sim', '-n', '4', '--quiet']],
] as const) {
  test(`${label} --profile-json: calls, sites at the program's lines, matrix, imbalance of examples/ring.ts`, { timeout: 60_000 }, async () => {
    const file = join(dir, `${label.replace(/\W+/g, '_')}.json`);
    const result = await tsmpi([...command, '--profile-json', file, 'examples/ring.ts']);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stderr, /tsmpi profile: 4 ranks/);
    assert.match(result.stderr, /Top call sites by time:\n {2}examples\/ring\.ts:\d+/);
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    assert.equal(p.ranks, 4);
    assert.deepEqual(p.missing, []);
    const count = (name: string): number => p.calls.find((c) => c.name === name)?.count ?? 0;
    // Per rank: one token send and one token recv, an irecv, a send to itself, its wait, an allreduce.
    assert.deepEqual([count('send'), count('recv'), count('irecv'), count('wait recv'), count('allreduce')], [8, 4, 4, 4, 4]);
    for (const c of p.calls) assert.deepEqual(c.perRank.map((r) => r.rank), [0, 1, 2, 3], c.name);
    // Sites: the lines of examples/ring.ts that make each call.
    const site = (name: string): string[] => p.sites.filter((s) => s.name === name).map((s) => s.site).sort();
    assert.deepEqual(site('recv'), ['examples/ring.ts:9']);
    assert.deepEqual(site('send'), ['examples/ring.ts:10', 'examples/ring.ts:13', 'examples/ring.ts:8']);
    assert.deepEqual(site('allreduce'), ['examples/ring.ts:16']);
    assert.equal(p.sites.find((s) => s.site === 'examples/ring.ts:8')!.count, 1, 'only rank 0 starts the token');
    // Matrix: each rank sends itself one Float64Array(1), the token goes round the ring (an
    // encoded { hops } of 10 bytes), the allreduce moves 8000-byte vectors.
    for (let r = 0; r < 4; r++) {
      assert.equal(p.matrix.bytes[r]![r], 8, `rank ${r} to itself`);
      assert.equal(p.matrix.bytes[r]![(r + 1) % 4]! % 8000, 10, `rank ${r}'s token to ${(r + 1) % 4}`);
    }
    for (const row of p.matrix.bytes) for (const b of row) assert.equal(b % 10 === 0 || b === 8 || b % 8000 === 0, true, `odd byte count ${b}`);
    matrices[label] = p.matrix.bytes;
    assert.deepEqual(p.imbalance.map((i) => [i.name, i.communicator, i.calls]), [['allreduce', 'world', 1]]);
    assert.ok(p.imbalance[0]!.maxWaitSeconds >= 0);
  });
}

test('the communication matrix is the same in threads, --procs and sim', () => {
  assert.equal(Object.keys(matrices).length, 3, 'the three runs above');
  assert.deepEqual(matrices['run --procs'], matrices['run (threads)']);
  assert.deepEqual(matrices.sim, matrices['run (threads)']);
});

test('--profile with --trace: the matrix\'s messages are the timeline\'s arrows', { timeout: 60_000 }, async () => {
  const trace = join(dir, 'both.trace.json');
  const profile = join(dir, 'both.profile.json');
  const result = await tsmpi(['run', '-n', '3', '--procs', '--trace', trace, '--profile-json', profile, 'examples/ring.ts']);
  assert.equal(result.code, 0, explain(result));
  const p = JSON.parse(readFileSync(profile, 'utf8')) as Profile;
  const t = readTimeline(trace);
  const messages = p.matrix.messages.flat().reduce((a, b) => a + b, 0);
  assert.equal(messages, t.flows.length);
  const bytes = p.matrix.bytes.flat().reduce((a, b) => a + b, 0);
  const flowBytes = t.flows.reduce((a, f) => a + Number(f.from.args!.bytes), 0);
  assert.equal(bytes, flowBytes);
});
