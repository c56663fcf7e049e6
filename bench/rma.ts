/**
 * One-sided latency: put + flush and get + flush between 2 ranks, 8 B to 1 MiB, against Open
 * MPI's MPI_Put / MPI_Get in its default configuration, in the same invocation.
 *   npm run bench -- rma [--with-openmpi]
 * A tsmpi window is active messages served by the target's progress; Open MPI's osc component
 * (its default choice here) may write the target's memory directly.
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [8, 1024, 64 << 10, 1 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));
const pick = (op: string, bytes: number) => (records: { [k: string]: number | string }[]) =>
  records.find((r) => r.bench === op && r.bytes === bytes)?.us as number | undefined;

compare({
  name: 'rma',
  title: 'One-sided latency (op + flush under a shared lock), 2 ranks',
  unit: 'us',
  better: 'lower',
  reps,
  figures: ['put', 'get'].flatMap((op) => sizes.map((b) => ({ label: `${op} ${sizeLabel(b)}`, pick: pick(op, b) }))),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/rma.ts', sizes),
  ...(mpi ? { runPeer: () => mpi.run(2, 'rma', sizes.map(String), []), peerName: 'Open MPI (default osc)' } : {}),
  extra: { peerVersion: mpi?.version },
});
