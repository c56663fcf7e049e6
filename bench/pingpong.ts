/**
 * Ping-pong latency and bandwidth between 2 ranks, 1 B to 16 MiB, against Open MPI's shared memory
 * (ob1/vader) in the same invocation, and up to 1 KiB against two bare JavaScript threads
 * (bench/lib/bare-pingpong.mjs: a shared counter each way and the awaits an async API takes per
 * send and receive: the floor of JavaScript).   npm run bench -- pingpong [--with-openmpi] [--alloc-mem]
 * With --alloc-mem: 64 KiB to 16 MiB with tsmpi's buffers from allocMem (one copy, by the
 * receiver), against Open MPI and against ordinary arrays, in the same invocation.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compare, sizeLabel, type Peer } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const allocMem = process.argv.includes('--alloc-mem');
const sizes = allocMem ? [64 << 10, 1 << 20, 16 << 20] : [1, 8, 1024, 64 << 10, 1 << 20, 16 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));
const pick = (bytes: number, key: 'oneWayUs' | 'gbps') => (records: { [k: string]: number | string }[]) =>
  records.find((r) => r.bench === 'pingpong' && r.bytes === bytes)?.[key] as number | undefined;
const ordinary = () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...sizes]);
const peers: Peer[] = mpi ? [{ name: 'Open MPI', run: () => mpi.run(2, 'p2p', ['pingpong', ...sizes]) }] : [];
if (allocMem) peers.push({ name: 'ordinary arrays', run: ordinary });
else {
  const barePingpong = fileURLToPath(new URL('./lib/bare-pingpong.mjs', import.meta.url));
  const bare = (): { [k: string]: number | string }[] => {
    const result = spawnSync(process.execPath, [barePingpong, ...sizes.filter((b) => b <= 1024).map(String)], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`bare-pingpong failed: ${result.stderr}`);
    return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { [k: string]: number | string });
  };
  peers.push({ name: 'bare threads', run: bare });
}

compare({
  name: allocMem ? 'pingpong-alloc-mem' : 'pingpong',
  title: `Ping-pong one-way latency, 2 ranks${allocMem ? ', buffers from allocMem' : ''}`,
  ...(allocMem ? { subject: 'tsmpi allocMem' } : {}),
  unit: 'us',
  better: 'lower',
  reps,
  figures: sizes.map((b) => ({ label: sizeLabel(b), pick: pick(b, 'oneWayUs') })),
  runTsmpi: allocMem ? () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...sizes], { BENCH_ALLOC_MEM: '1' }) : ordinary,
  peers,
  extra: { peerVersion: mpi?.version, allocMem },
});
