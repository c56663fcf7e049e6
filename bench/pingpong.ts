/**
 * Ping-pong latency and bandwidth between 2 ranks, 1 B to 16 MiB, against Open MPI's shared memory
 * (ob1/vader) in the same invocation.   npm run bench -- pingpong [--with-openmpi]
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [1, 8, 1024, 64 << 10, 1 << 20, 16 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));
const pick = (bytes: number, key: 'oneWayUs' | 'gbps') => (records: { [k: string]: number | string }[]) =>
  records.find((r) => r.bench === 'pingpong' && r.bytes === bytes)?.[key] as number | undefined;

compare({
  name: 'pingpong',
  title: 'Ping-pong one-way latency, 2 ranks',
  unit: 'us',
  better: 'lower',
  reps,
  figures: sizes.map((b) => ({ label: sizeLabel(b), pick: pick(b, 'oneWayUs') })),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...sizes]),
  ...(mpi ? { runPeer: () => mpi.run(2, 'p2p', ['pingpong', ...sizes]), peerName: 'Open MPI' } : {}),
  extra: { peerVersion: mpi?.version },
});
