/**
 * Streaming bandwidth (a window of 64 non-blocking sends, then an ack; osu_bw style), 64 KiB to
 * 16 MiB, against Open MPI's shared memory and against a bare ring of two JavaScript threads
 * (bench/lib/bare-ring.mjs: the copy-in, copy-out pipeline alone, the ceiling of ordinary arrays
 * here).   npm run bench -- stream [--with-openmpi] [--alloc-mem]
 * With --alloc-mem: tsmpi with its buffers from allocMem (one copy, by the receiver), against the
 * same peers and against ordinary arrays, in the same invocation.
 */
import { compare, sizeLabel, type Peer } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi, type Record } from './lib/jobs.ts';
import { param, runBareRing } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const sizes = [64 << 10, 1 << 20, 16 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));
const allocMem = process.argv.includes('--alloc-mem');
const bare = (): Record[] => sizes.map((bytes) => runBareRing(bytes) as Record);

const ordinary = (): Record[] => tsmpiRun(2, 'bench/ranks/p2p.ts', ['stream', ...sizes]);
const peers: Peer[] = [...(mpi ? [{ name: 'Open MPI', run: () => mpi.run(2, 'p2p', ['stream', ...sizes]) }] : []), { name: 'bare ring', run: bare }];
if (allocMem) peers.push({ name: 'ordinary arrays', run: ordinary });

compare({
  name: allocMem ? 'stream-alloc-mem' : 'stream',
  title: `Streaming bandwidth, window of 64, 2 ranks${allocMem ? ', buffers from allocMem' : ''}`,
  ...(allocMem ? { subject: 'tsmpi allocMem' } : {}),
  unit: 'GB/s',
  better: 'higher',
  reps,
  figures: sizes.map((b) => ({ label: sizeLabel(b), pick: (r) => r.find((x) => x.bench === 'stream' && x.bytes === b)?.gbps as number | undefined })),
  runTsmpi: allocMem ? () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['stream', ...sizes], { BENCH_ALLOC_MEM: '1' }) : ordinary,
  peers,
  extra: { peerVersion: mpi?.version, allocMem },
});
