/**
 * Barrier of rank threads in one process: the shared barrier (a counter in shared memory) against
 * the dissemination barrier (messages), in the same invocation, a thread per rank and ranks
 * sharing threads. What TSMPI_SHARED_BARRIER_RANKS's default (4 ranks per core) rests on.
 *   npm run bench -- barrier          REPS=3, RANKS=4,8,16,32,64
 */
import { availableParallelism } from 'node:os';
import { tsmpiRun } from './lib/jobs.ts';
import { median, param, printTable, spread, writeResults } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const rankList = (process.env.RANKS ?? '4,8,16,32,64').split(',').map(Number);
const cores = availableParallelism();
// Barriers per run, timed and warm-up: fewer for many ranks (a 64-rank barrier takes tens of
// milliseconds on 2 cores), about a second each; a rank's code needs thousands of calls to be
// compiled at its best.
const counts = (ranks: number): [number, number] => {
  const count = Math.max(30, Math.round(300000 / (ranks * ranks)));
  return [count, Math.max(10, Math.round(count / 3))];
};

interface Row {
  ranks: number;
  perThread: number;
  shared: number[];
  dissemination: number[];
}
const rows: Row[] = [];
for (const ranks of rankList) {
  for (const perThread of [1, Math.max(1, Math.round(ranks / cores))]) {
    if (perThread > 1 && ranks / perThread < 2) continue;
    const row: Row = { ranks, perThread, shared: [], dissemination: [] };
    for (let rep = 0; rep < reps; rep++) {
      for (const algorithm of ['shared', 'dissemination'] as const) {
        const env = { TSMPI_COLL_BARRIER: algorithm, TSMPI_RANKS_PER_THREAD: String(perThread) };
        const record = tsmpiRun(ranks, 'bench/ranks/barrier-loop.ts', counts(ranks), env).find((r) => r.bench === 'barrier')!;
        row[algorithm].push(record.us as number);
      }
    }
    rows.push(row);
    process.stdout.write(`# ${ranks} ranks, ${perThread} per thread: shared ${median(row.shared).toFixed(1)} us, dissemination ${median(row.dissemination).toFixed(1)} us\n`);
  }
}
printTable(
  `Barrier, us per call (slowest rank), ${cores} cores (median [min-max] of ${reps} interleaved reps; lower is better)`,
  ['ranks', 'ranks per thread', 'shared us', 'dissemination us', 'shared / dissemination'],
  rows.map((r) => [r.ranks, r.perThread, spread(r.shared), spread(r.dissemination), `${spread(r.shared.map((s, i) => s / r.dissemination[i]!))}x`]),
);
writeResults('barrier', { cores, rows });
