/**
 * Pairwise exchange, 2 ranks: each starts a send to the other, receives the other's message, then
 * waits for its send, 8 B to 1 MiB; the other's message often arrives before its receive is posted
 * (an unexpected message, held by the receiver until then). Against Open MPI's shared memory in the
 * same invocation.   npm run bench -- exchange [--with-openmpi]
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [8, 1024, 4096, 32 << 10, 64 << 10, 1 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));

compare({
  name: 'exchange',
  title: 'Pairwise exchange (isend, recv, wait), 2 ranks, us per exchange',
  unit: 'us',
  better: 'lower',
  reps,
  figures: sizes.map((b) => ({ label: sizeLabel(b), pick: (r) => r.find((x) => x.bench === 'exchange' && x.bytes === b)?.us as number | undefined })),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['exchange', ...sizes]),
  ...(mpi ? { runPeer: () => mpi.run(2, 'p2p', ['exchange', ...sizes]) } : {}),
  extra: { peerVersion: mpi?.version },
});
