/**
 * One-sided latency: put + flush and get + flush between 2 ranks, 8 B to 1 MiB, against Open
 * MPI's MPI_Put / MPI_Get in its default configuration, in the same invocation.
 *   npm run bench -- rma [--procs] [--with-openmpi]
 * On thread ranks Win.allocate shares one buffer, so put and get are copies, as Open MPI's
 * shared-memory windows (its default osc on one node) are. With --procs the two ranks are
 * processes: a window is then active messages over TCP served by the target's progress, while Open
 * MPI's two processes still share memory (its default); the peer row is the same program, and a
 * second row runs it with Open MPI's windows over its TCP transport (osc pt2pt, btl tcp).
 */
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [8, 1024, 64 << 10, 1 << 20];
const procs = process.argv.includes('--procs');
console.log(`# ${procs ? '--procs: ranks are processes (active messages over TCP)' : 'no --procs: ranks are worker threads (one shared buffer)'}`);
const mpi = openMpi(wantsOpenMpi(process.argv));
const pick = (op: string, bytes: number) => (records: { [k: string]: number | string }[]) =>
  records.find((r) => r.bench === op && r.bytes === bytes)?.us as number | undefined;

compare({
  name: procs ? 'rma-procs' : 'rma',
  title: `One-sided latency (op + flush under a shared lock), 2 ranks${procs ? ' as processes (TCP)' : ''}`,
  unit: 'us',
  better: 'lower',
  reps,
  figures: ['put', 'get'].flatMap((op) => sizes.map((b) => ({ label: `${op} ${sizeLabel(b)}`, pick: pick(op, b) }))),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/rma.ts', sizes, {}, procs ? ['--procs'] : []),
  peers: mpi
    ? [
        { name: 'Open MPI (default osc)', run: () => mpi.run(2, 'rma', sizes.map(String), []) },
        // Over TCP, a second row: Open MPI's windows as active messages over its TCP transport.
        ...(procs ? [{ name: 'Open MPI (btl tcp, osc pt2pt)', run: () => mpi.run(2, 'rma', sizes.map(String), ['--mca', 'btl', 'tcp,self', '--mca', 'osc', 'pt2pt']) }] : []),
      ]
    : [],
  extra: { peerVersion: mpi?.version, procs },
});
