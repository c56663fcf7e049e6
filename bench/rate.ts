/**
 * Small-message rate: windows of 64 non-blocking 8-byte sends, against Open MPI's shared memory.
 *   npm run bench -- rate [--with-openmpi]
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [8];
const mpi = openMpi(wantsOpenMpi(process.argv));

compare({
  name: 'rate',
  title: 'Message rate, window of 64, 2 ranks',
  unit: 'M msg/s',
  better: 'higher',
  reps,
  figures: sizes.map((b) => ({ label: sizeLabel(b), pick: (r) => ((r.find((x) => x.bench === 'rate' && x.bytes === b)?.msgsPerSec as number) ?? NaN) / 1e6 })),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['rate', ...sizes]),
  ...(mpi ? { runPeer: () => mpi.run(2, 'p2p', ['rate', ...sizes]) } : {}),
  extra: { peerVersion: mpi?.version },
});
