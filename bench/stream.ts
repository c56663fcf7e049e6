/**
 * Streaming bandwidth (a window of 64 non-blocking sends, then an ack; osu_bw style), 64 KiB to
 * 16 MiB, against Open MPI's shared memory.   npm run bench -- stream [--with-openmpi]
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [64 << 10, 1 << 20, 16 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));

compare({
  name: 'stream',
  title: 'Streaming bandwidth, window of 64, 2 ranks',
  unit: 'GB/s',
  better: 'higher',
  reps,
  figures: sizes.map((b) => ({ label: sizeLabel(b), pick: (r) => r.find((x) => x.bench === 'stream' && x.bytes === b)?.gbps as number | undefined })),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['stream', ...sizes]),
  ...(mpi ? { runPeer: () => mpi.run(2, 'p2p', ['stream', ...sizes]) } : {}),
  extra: { peerVersion: mpi?.version },
});
