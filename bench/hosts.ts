/**
 * Several machines over ssh: the test hosts of test/infra/hosts.sh (4 network namespaces with
 * their own sshd, on a bridge; root needed), built and torn down by the benchmark.
 *   1. launch: the whole command for 8 ranks on 4 hosts (`tsmpi run --hostfile`, 2 ranks per
 *      host, a process per host started over ssh) against the same 4 processes of 2 ranks on this
 *      machine without ssh (`--ranks-per-proc 2`), and against Open MPI's `mpirun --hostfile`
 *      over the same ssh (its default configuration);
 *   2. ping-pong between ranks on two hosts (TCP across veth and a bridge) against two processes
 *      on 127.0.0.1 (`--procs`), and against Open MPI across the same two hosts (its defaults, and
 *      --bind-to none: the test hosts share this machine's cores, see below).
 *   npm run bench -- hosts [--with-openmpi]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compare, sizeLabel } from './lib/compare.ts';
import { openMpi, timeCommand, tsmpiRun, wantsOpenMpi } from './lib/jobs.ts';
import { median, param, printTable, spread, writeResults } from './lib/report.ts';

const reps = param('REPS', 5, 'interleaved repetitions');
const root = fileURLToPath(new URL('../', import.meta.url));
const cli = `${root}dist/cli/main.js`;
const hostsScript = `${root}test/infra/hosts.sh`;
const hostfile = '/tmp/tsmpi-hosts/hostfile';
const mpi = openMpi(wantsOpenMpi(process.argv));

function hosts(...args: string[]): void {
  const r = spawnSync('bash', [hostsScript, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hosts.sh ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
}

hosts('up', '4');
try {
  // 1. Launch.
  const program = `${root}bench/ranks/startup.ts`;
  const launch = { hosts: [] as number[], local: [] as number[], mpi: [] as number[] };
  for (let rep = 0; rep < reps; rep++) {
    launch.hosts.push(timeCommand(process.execPath, [cli, 'run', '--hostfile', hostfile, '-n', '8', program]));
    launch.local.push(timeCommand(process.execPath, [cli, 'run', '-n', '8', '--ranks-per-proc', '2', program]));
    if (mpi) {
      const [cmd, args] = mpi.command(8, 'hello', [], ['--hostfile', hostfile]);
      launch.mpi.push(timeCommand(cmd, args));
    }
    process.stdout.write(`# launch rep ${rep + 1}/${reps} done\n`);
  }
  const ratio = launch.hosts.map((h, i) => h / launch.local[i]!);
  printTable(`Launch of 8 ranks (init + barrier), whole command, ms (median [min-max] of ${reps} reps; lower is better)`, ['tsmpi --hostfile (4 hosts, ssh)', 'tsmpi --ranks-per-proc 2 (this machine)', 'hosts / local', 'mpirun --hostfile (4 hosts, ssh)', 'tsmpi / mpirun'], [
    [spread(launch.hosts), spread(launch.local), `${spread(ratio)}x`, mpi ? spread(launch.mpi) : '-', mpi ? `${spread(launch.hosts.map((h, i) => h / launch.mpi[i]!))}x` : '-'],
  ]);
  writeResults('hosts-launch', { peerVersion: mpi?.version, hostsOverLocalMedian: median(ratio), samples: launch });

  // 2. Ping-pong across two hosts.
  const sizes = [8, 64 << 10, 1 << 20];
  const pair = '198.18.64.1:1,198.18.64.2:1';
  compare({
    name: 'hosts-pingpong',
    title: 'Ping-pong one-way latency, rank 0 on host 1 and rank 1 on host 2 (TCP over veth + bridge)',
    unit: 'us',
    better: 'lower',
    reps,
    figures: sizes.map((b) => ({ label: sizeLabel(b), pick: (r) => r.find((x) => x.bench === 'pingpong' && x.bytes === b)?.oneWayUs as number | undefined })),
    runTsmpi: () => {
      const result = spawnSync(process.execPath, [cli, 'run', '-H', pair, `${root}bench/ranks/p2p.ts`, 'pingpong', ...sizes.map(String)], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`tsmpi run -H failed:\n${result.stderr}`);
      return result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { [key: string]: number | string });
    },
    peers: [
      { name: 'tsmpi --procs on 127.0.0.1', run: () => tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...sizes], {}, ['--procs']) },
      // Open MPI binds each rank to a core by default; the test hosts share this machine's cores
      // and each believes it owns them, so both ranks land on core 0 and take turns by the
      // scheduler's tick. Both rows: the default, and without binding (as on real machines).
      ...(mpi
        ? [
            { name: 'Open MPI across the hosts (default: --bind-to core)', run: () => mpi.run(2, 'p2p', ['pingpong', ...sizes], ['-H', pair]) },
            { name: 'Open MPI across the hosts, --bind-to none', run: () => mpi.run(2, 'p2p', ['pingpong', ...sizes], ['-H', pair, '--bind-to', 'none']) },
          ]
        : []),
    ],
  });
} finally {
  hosts('down');
}
