// recvInto from one source and tag takes a message as it lands (Endpoint.receiveSoon): the same
// order, statuses, contents and errors as a posted receive, between threads (looking in place),
// with waits that never spin, and between processes (always posted); and a window of irecvInto
// posted once its messages have landed, tags interleaved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const expected: Record<number, string[]> = {
  0: [
    'tag 6 first: [[1,6,4],[3]]',
    'tag 5, the earlier: [[1,5,16],[1,2]]',
    'tag 5, the later: [[1,5,16],[4,5]]',
    'large: [[1,8,300000],true]',
    'too long: "TSMPI_ERR_TRUNCATE"',
    'posted first: [1,2,3]',
    'window: [0,0,100,101]',
    'ping-pong rounds wrong: 0',
  ],
  1: ['ping-pong rounds wrong: 0'],
};

for (const [mode, flags, env] of [
  ['threads', [], {}],
  ['threads, waits that sleep at once', [], { TSMPI_SPIN_US: '0' }],
  ['processes', ['--procs'], {}],
] as const) {
  test(`recvInto taken as it lands: order, tags, statuses, contents (${mode})`, { timeout: 60_000 }, async () => {
    const result = await tsmpi(['run', '-n', '2', ...flags, fixture('recv-soon.ts')], { env });
    assert.equal(result.code, 0, explain(result));
    const reports = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number; lines: string[] });
    assert.deepEqual(reports.map((r) => r.rank).sort(), [0, 1], explain(result));
    for (const report of reports) assert.deepEqual(report.lines, expected[report.rank], `rank ${report.rank}`);
  });
}
