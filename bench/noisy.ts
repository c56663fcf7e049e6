/**
 * A noisy neighbour: 2-rank latency and small collectives with one CPU-bound process beside the
 * ranks (2 ranks + 1 busy process on this machine's 2 cores), against the same job alone, in the
 * same invocation; tsmpi bound (its default) and unbound; the same for Open MPI when it is
 * installed (it binds ranks to cores by default). The ratio is how much the neighbour costs
 * (1.0: nothing). Every timed loop, tsmpi's and Open MPI's, alone and beside the neighbour, lasts
 * at least BENCH_MIN_TIMED_MS (200): Open MPI's 8-byte ping-pong took ~0.2 ms, tsmpi's ~6 ms, and
 * whether the neighbour took a rank's CPU inside so short a loop was luck.
 *   npm run bench -- noisy [--with-openmpi]     (REPS, BENCH_MIN_TIMED_MS)
 */
import { compare } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi, type Record } from './lib/jobs.ts';
import { besideNoisyNeighbour } from './lib/noisy-neighbour.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
// Read by bench/ranks/p2p.ts and collectives.ts and by the C peers (their environment is this one's).
process.env.BENCH_MIN_TIMED_MS = String(param('BENCH_MIN_TIMED_MS', 200, 'shortest timed loop, ms'));
const mpi = openMpi(wantsOpenMpi(process.argv));
const figures = [
  { label: 'ping-pong 8 B one-way', pick: (r: Record[]) => r.find((x) => x.bench === 'pingpong' && x.bytes === 8)?.oneWayUs as number | undefined },
  ...['barrier', 'bcast', 'allreduce', 'allgather', 'alltoall'].map((op) => ({
    label: op === 'barrier' ? op : `${op} 8 B`,
    pick: (r: Record[]) => r.find((x) => x.bench === 'collective' && x.op === op)?.us as number | undefined,
  })),
];

/** One subject's job beside the neighbour against alone, REPS times interleaved. */
function besideAndAlone(name: string, title: string, job: () => Record[], extra?: object): void {
  compare({ name, title, subject: 'beside a busy process', unit: 'us', better: 'lower', reps, figures, runTsmpi: () => besideNoisyNeighbour(job), peers: [{ name: 'alone', run: job }], ...(extra ? { extra } : {}) });
}

const tsmpiJob = (env: NodeJS.ProcessEnv) => (): Record[] => [...tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', 8], env), ...tsmpiRun(2, 'bench/ranks/collectives.ts', [8], env)];
besideAndAlone('noisy-tsmpi', 'tsmpi, 2 ranks (bound to a CPU each, the default), beside one CPU-bound process against alone, us', tsmpiJob({}));
// The same unbound: what the binding buys beside a busy process.
besideAndAlone('noisy-tsmpi-unbound', 'tsmpi, 2 ranks unbound (TSMPI_BIND=none), beside one CPU-bound process against alone, us', tsmpiJob({ TSMPI_BIND: 'none' }));
if (mpi) {
  besideAndAlone(`noisy-openmpi`, `Open MPI ${mpi.version}, 2 ranks, beside one CPU-bound process against alone, us`, () => [...mpi.run(2, 'p2p', ['pingpong', 8]), ...mpi.run(2, 'coll', [8])], { peerVersion: mpi.version });
}
