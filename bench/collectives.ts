/**
 * Collectives: microseconds per call (slowest rank) of barrier, bcast, allreduce, allgather,
 * alltoall and reduce-scatter at 8 B, 64 KiB and 1 MiB, on 2 ranks (one per core) and 4 ranks (two per core), against
 * Open MPI in the same invocation.   npm run bench -- collectives [--with-openmpi]
 * With --check: the cost of collective argument checking, tsmpi with TSMPI_CHECK=1 against
 * tsmpi without it, in the same invocation (no Open MPI rows).
 * With --alloc-mem: 64 KiB and 1 MiB with every array from allocMem (one copy between rank
 * threads) instead, against Open MPI and against ordinary arrays, in the same invocation.
 */
import { availableParallelism } from 'node:os';
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const rankList = (process.env.RANKS ?? '2,4').split(',').map(Number);
console.log(`# RANKS=${rankList.join(',')}${process.env.RANKS ? '' : ' (default)'}: rank counts (the machine has 2 cores: 4 oversubscribes both sides)`);
const sizes = [8, 64 << 10, 1 << 20];
const cores = availableParallelism();
const mpi = openMpi(wantsOpenMpi(process.argv));
const ops = ['barrier', 'bcast', 'allreduce', 'allgather', 'alltoall', 'reducescatter'];
const figures = ops.flatMap((op) =>
  (op === 'barrier' ? [0] : sizes).map((bytes) => ({
    label: `${op} ${op === 'barrier' ? '' : sizeLabel(bytes)}`.trim(),
    pick: (r: { [k: string]: number | string }[]) => r.find((x) => x.op === op && x.bytes === bytes)?.us as number | undefined,
  })),
);

const checking = process.argv.includes('--check');
for (const ranks of rankList) {
  if (checking) {
    compare({
      name: `collectives-check-${ranks}`,
      title: `Collectives on ${ranks} ranks with TSMPI_CHECK=1, us per call (slowest rank)`,
      unit: 'us',
      better: 'lower',
      reps,
      figures,
      runTsmpi: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', sizes, { TSMPI_CHECK: '1' }),
      peers: [{ name: 'no check', run: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', sizes, { TSMPI_CHECK: '0' }) }],
      extra: { ranks, check: true },
    });
    continue;
  }
  if (process.argv.includes('--alloc-mem')) {
    const large = sizes.filter((b) => b >= 64 << 10);
    const largeFigures = figures.filter((f) => large.some((b) => f.label.endsWith(sizeLabel(b))));
    compare({
      name: `collectives-${ranks}-alloc-mem`,
      title: `Collectives on ${ranks} ranks, arrays from allocMem, us per call (slowest rank)`,
      subject: 'tsmpi allocMem',
      unit: 'us',
      better: 'lower',
      reps,
      figures: largeFigures,
      runTsmpi: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', large, { BENCH_ALLOC_MEM: '1' }),
      peers: [...(mpi ? [{ name: 'Open MPI', run: () => mpi.run(ranks, 'coll', large) }] : []), { name: 'ordinary arrays', run: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', large) }],
      extra: { ranks, allocMem: true, peerVersion: mpi?.version },
    });
    continue;
  }
  compare({
    name: `collectives-${ranks}`,
    title: `Collectives on ${ranks} ranks, us per call (slowest rank)`,
    unit: 'us',
    better: 'lower',
    reps,
    figures,
    runTsmpi: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', sizes),
    ...(mpi ? { runPeer: () => mpi.run(ranks, 'coll', sizes) } : {}),
    extra: { ranks, peerVersion: mpi?.version },
  });
  // More ranks than cores: the same with the ranks sharing one thread per core, against Open MPI
  // and against a thread per rank (the default), in the same invocation.
  if (ranks > cores && ranks % cores === 0) {
    const perThread = ranks / cores;
    const shared = { TSMPI_RANKS_PER_THREAD: String(perThread) };
    compare({
      name: `collectives-${ranks}-shared`,
      title: `Collectives on ${ranks} ranks, ${perThread} per thread (TSMPI_RANKS_PER_THREAD=${perThread}), us per call (slowest rank)`,
      subject: 'tsmpi shared',
      unit: 'us',
      better: 'lower',
      reps,
      figures,
      runTsmpi: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', sizes, shared),
      peers: [...(mpi ? [{ name: 'Open MPI', run: () => mpi.run(ranks, 'coll', sizes) }] : []), { name: 'a thread per rank', run: () => tsmpiRun(ranks, 'bench/ranks/collectives.ts', sizes) }],
      extra: { ranks, ranksPerThread: perThread, peerVersion: mpi?.version },
    });
  }
}
