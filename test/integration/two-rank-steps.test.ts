// A 2-rank world runs bcastInto, barrier, allgatherv and alltoallv as one step each, without a
// generator: the same results as the steps give (argument checks on, a traced run), empty blocks
// included, and an argument error rejects the call's promise on each rank, never throws.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

function expected(rank: number): string[] {
  const lines: string[] = [];
  const show = (what: string, value: unknown): void => void lines.push(`${what}: ${JSON.stringify(value)}`);
  for (const counts of [[3, 2], [3, 0], [0, 2], [0, 0]]) {
    show(`allgatherv ${counts}`, [0, 1].flatMap((r) => Array.from({ length: counts[r]! }, (_, i) => 10 * r + i)));
    show(`allgatherv ${counts} counts, displs`, [counts, [0, counts[0]]]);
  }
  show('allgatherv again into one array', [[3, 2], [0, 3], [[3, 2], [0, 3]], true]);
  // Rank 0 holds [0, 1, 2] and rank 1 [10, 11]; the first alltoallv cuts them [1, 2] and [1, 1],
  // the second [2, 1] and [2, 0].
  show('alltoallv twice', rank === 0 ? [[1, 1], [0, 1], [0, 10], [2, 2], [0, 2], [0, 1, 10, 11]] : [[2, 1], [0, 2], [1, 2, 11], [1, 0], [0, 1], [2]]);
  show('allgatherv without into', [[3, 2], [0, 3], [0, 1, 2, 10, 11], true]);
  for (const matrix of [[[1, 2], [3, 4]], [[2, 0], [0, 1]], [[0, 3], [2, 0]]]) {
    show(`alltoallv ${JSON.stringify(matrix)}`, [0, 1].flatMap((i) => Array.from({ length: matrix[i]![rank]! }, (_, k) => 100 * i + 10 * rank + k)));
    const recvCounts = [matrix[0]![rank]!, matrix[1]![rank]!];
    show(`alltoallv ${JSON.stringify(matrix)} counts, displs`, [recvCounts, [0, recvCounts[0]]]);
  }
  for (const root of [0, 1]) show(`bcastInto root ${root}`, [root, root, 7]);
  show('barrier', 'passed');
  for (const what of ['allgatherv, own count', 'alltoallv, send total', 'alltoallv, own block']) show(what, 'rejected TSMPI_ERR_COUNT');
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-steps-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

for (const [mode, flags, env] of [
  ['one step each (default)', [], {}],
  ['steps, argument checks on', [], { TSMPI_CHECK: '1' }],
  ['steps, traced', ['--trace', join(dir, 'trace.json')], {}],
  ['one step each, processes', ['--procs'], {}],
] as const) {
  test(`2-rank collectives: exact results and rejected argument errors (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '2', ...flags, fixture('two-rank-steps.ts')], { env });
    assert.equal(result.code, 0, explain(result));
    const reports = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number; lines: string[] });
    assert.deepEqual(reports.map((r) => r.rank).sort(), [0, 1], explain(result));
    for (const report of reports) assert.deepEqual(report.lines, expected(report.rank), `rank ${report.rank}`);
  });
}
