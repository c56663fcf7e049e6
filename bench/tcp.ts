/**
 * TCP between processes: ping-pong and streaming of tsmpi (`tsmpi run -n 2 --procs`) against a
 * plain Node TCP connection (bench/lib/raw-tcp.mjs) and Open MPI's TCP path
 * (`--mca pml ob1 --mca btl tcp,self`), all in the same invocation, on 127.0.0.1.
 *   npm run bench -- tcp [--with-openmpi]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compare, sizeLabel, type Peer } from './lib/compare.ts';
import { openMpi, tsmpiRun, wantsOpenMpi, type Record } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const pingSizes = [8, 64 << 10, 1 << 20, 16 << 20];
const streamSizes = [64 << 10, 1 << 20, 16 << 20];
const mpi = openMpi(wantsOpenMpi(process.argv));
const rawScript = fileURLToPath(new URL('./lib/raw-tcp.mjs', import.meta.url));
const ompiTcp = ['--mca', 'pml', 'ob1', '--mca', 'btl', 'tcp,self', '--mca', 'btl_tcp_if_include', 'lo'];

function raw(mode: string, sizes: number[]): Record[] {
  const result = spawnSync(process.execPath, [rawScript, mode, ...sizes.map(String)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`raw-tcp failed: ${result.stderr}`);
  return result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record);
}

function peers(mode: string, sizes: number[]): Peer[] {
  const list: Peer[] = [{ name: 'raw Node TCP', run: () => raw(mode, sizes) }];
  if (mpi) list.push({ name: 'Open MPI TCP', run: () => mpi.run(2, 'p2p', [mode, ...sizes], ompiTcp) });
  return list;
}

compare({
  name: 'tcp-pingpong',
  title: 'TCP ping-pong one-way latency, 2 processes on 127.0.0.1',
  unit: 'us',
  better: 'lower',
  reps,
  figures: pingSizes.map((b) => ({ label: sizeLabel(b), pick: (r) => r.find((x) => x.bench === 'pingpong' && x.bytes === b)?.oneWayUs as number | undefined })),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...pingSizes], {}, ['--procs']),
  peers: peers('pingpong', pingSizes),
  extra: { peerVersion: mpi?.version },
});

compare({
  name: 'tcp-stream',
  title: 'TCP streaming bandwidth, window of 64, 2 processes on 127.0.0.1',
  unit: 'GB/s',
  better: 'higher',
  reps,
  figures: streamSizes.map((b) => ({ label: sizeLabel(b), pick: (r) => r.find((x) => x.bench === 'stream' && x.bytes === b)?.gbps as number | undefined })),
  runTsmpi: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['stream', ...streamSizes], {}, ['--procs']),
  peers: peers('stream', streamSizes),
  extra: { peerVersion: mpi?.version },
});
