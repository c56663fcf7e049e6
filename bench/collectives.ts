/**
 * Collectives: microseconds per call of barrier, bcast, allreduce, allgather and alltoall at
 * 8 B, 64 KiB and 1 MiB on 4 and 8 ranks, against Open MPI in the same invocation.
 *   npm run bench -- collectives [--with-openmpi]
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const ranks = param('RANKS', 4, 'ranks (the machine has 2 cores: more oversubscribes both sides)');
const sizes = [8, 64 << 10, 1 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));
const ops = ['barrier', 'bcast', 'allreduce', 'allgather', 'alltoall'];
const figures = ops.flatMap((op) =>
  (op === 'barrier' ? [0] : sizes).map((bytes) => ({
    label: `${op} ${op === 'barrier' ? '' : sizeLabel(bytes)}`.trim(),
    pick: (r: { [k: string]: number | string }[]) => r.find((x) => x.op === op && x.bytes === bytes)?.us as number | undefined,
  })),
);

compare({
  name: 'collectives',
  title: `Collectives on ${ranks} ranks, us per call (slowest rank)`,
  unit: 'us',
  better: 'lower',
  reps,
  figures,
  runTsmpi: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', sizes),
  ...(mpi ? { runPeer: () => mpi.run(ranks, 'coll', sizes) } : {}),
  extra: { ranks, peerVersion: mpi?.version },
});
