/**
 * Startup: N ranks ready (init and a barrier done), against N bare worker threads spawned in the
 * same invocation, and against Open MPI (`mpirun -n N` of MPI_Init + barrier + finalize). Also
 * tsmpi with the ranks sharing a thread per core (TSMPI_RANKS_PER_THREAD = N / cores): fewer
 * isolates to boot.
 *   npm run bench -- startup [--with-openmpi]
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { openMpi, timeCommand, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { median, param, printTable, spread, writeResults } from './lib/report.ts';

const reps = param('REPS', 5, 'interleaved repetitions');
const sizes = [8, 64];
const mpi = openMpi(wantsOpenMpi(process.argv));
const bare = fileURLToPath(new URL('./lib/bare-workers.mjs', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const program = fileURLToPath(new URL('./ranks/startup.ts', import.meta.url));

type Sample = { readyMs: number; bareReadyMs: number; ratio: number; sharedReadyMs: number; sharedRatio: number; wallMs: number; bareWallMs: number; mpiWallMs?: number };
const cores = availableParallelism();
const samples = new Map<number, Sample[]>(sizes.map((n) => [n, []]));

for (let rep = 0; rep < reps; rep++) {
  for (const n of sizes) {
    const bareRun = JSON.parse(
      (await import('node:child_process')).spawnSync(process.execPath, [bare, String(n)], { encoding: 'utf8' }).stdout.trim(),
    ) as { readyMs: number };
    const ours = tsmpiRun(n, 'bench/ranks/startup.ts', []).find((r) => r.bench === 'startup')!;
    const shared = tsmpiRun(n, 'bench/ranks/startup.ts', [], { TSMPI_RANKS_PER_THREAD: String(Math.max(1, Math.ceil(n / cores))) }).find((r) => r.bench === 'startup')!;
    const wallMs = timeCommand(process.execPath, [cli, 'run', '-n', String(n), program]);
    const bareWallMs = timeCommand(process.execPath, [bare, String(n)]);
    const sample: Sample = {
      readyMs: ours.readyMs as number,
      bareReadyMs: bareRun.readyMs,
      ratio: (ours.readyMs as number) / bareRun.readyMs,
      sharedReadyMs: shared.readyMs as number,
      sharedRatio: (shared.readyMs as number) / bareRun.readyMs,
      wallMs,
      bareWallMs,
    };
    if (mpi) {
      const [cmd, args] = mpi.command(n, 'hello');
      sample.mpiWallMs = timeCommand(cmd, args);
    }
    samples.get(n)!.push(sample);
  }
  process.stdout.write(`# rep ${rep + 1}/${reps} done\n`);
}

const rows = sizes.map((n) => {
  const s = samples.get(n)!;
  return [
    n,
    spread(s.map((x) => x.readyMs)),
    spread(s.map((x) => x.bareReadyMs)),
    `${spread(s.map((x) => x.ratio))}x`,
    spread(s.map((x) => x.sharedReadyMs)),
    `${spread(s.map((x) => x.sharedRatio))}x`,
    spread(s.map((x) => x.wallMs)),
    spread(s.map((x) => x.bareWallMs)),
    mpi ? spread(s.map((x) => x.mpiWallMs!)) : '-',
  ];
});
printTable(
  `Startup, ms (median [min-max] of ${reps} reps; lower is better)`,
  ['ranks', 'tsmpi spawn->ready', 'bare workers spawn->ready', 'tsmpi / bare', `tsmpi, ${cores} threads (ranks per thread = ranks / ${cores})`, 'shared / bare', 'tsmpi run (whole command)', 'node bare-workers (whole)', 'mpirun hello (whole)'],
  rows,
);
writeResults('startup', {
  peerVersion: mpi?.version,
  sizes: Object.fromEntries(sizes.map((n) => [n, { ratioMedian: median(samples.get(n)!.map((x) => x.ratio)), samples: samples.get(n) }])),
});
