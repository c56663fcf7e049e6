/**
 * Running the two sides of a comparison: tsmpi jobs (the real `tsmpi run`) and the Open MPI peer
 * programs of bench/peers/ (compiled with mpicc on first use). Both print one JSON object per
 * line; these helpers return the parsed lines.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = `${root}dist/cli/main.js`;
const peersDir = `${root}bench/peers/`;
const binDir = `${root}bench/peers/bin/`;

export type Record = { [key: string]: number | string };

function parseLines(stdout: string): Record[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record);
}

/** Runs `tsmpi run -n np program args` and returns rank 0's JSON lines. */
export function tsmpiRun(np: number, program: string, args: (string | number)[], env: NodeJS.ProcessEnv = {}, runArgs: string[] = []): Record[] {
  const result = spawnSync(process.execPath, [cli, 'run', '-n', String(np), ...runArgs, `${root}${program}`, ...args.map(String)], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`tsmpi run ${program} failed (${result.status}):\n${result.stderr}`);
  return parseLines(result.stdout);
}

/** Wall-clock milliseconds of a whole command. */
export function timeCommand(command: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  const t0 = performance.now();
  const result = spawnSync(command, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return performance.now() - t0;
}

export interface OpenMpi {
  /** Runs a peer program on np ranks with Open MPI; returns its JSON lines. */
  run(np: number, peer: string, args: (string | number)[], mca?: string[]): Record[];
  /** The command line for `peer` (to time whole launches). */
  command(np: number, peer: string, args?: string[], mca?: string[]): [string, string[]];
  version: string;
}

/**
 * Open MPI, when `mpicc` and `mpirun` exist (or --with-openmpi asks for it). Peers are built into
 * bench/peers/bin/. Open MPI runs as root here, so it needs --allow-run-as-root; with 2 cores,
 * more than 2 ranks need --oversubscribe (then Open MPI yields when idle).
 */
export function openMpi(required: boolean): OpenMpi | undefined {
  const probe = spawnSync('mpicc', ['--showme:version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    if (required) throw new Error('--with-openmpi: mpicc is not installed (apt-get install openmpi-bin libopenmpi-dev)');
    console.log('# Open MPI not found (no mpicc): comparisons skipped; apt-get install openmpi-bin libopenmpi-dev to enable');
    return undefined;
  }
  const version = (spawnSync('mpirun', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? 'unknown').trim();
  mkdirSync(binDir, { recursive: true });
  const build = (peer: string): string => {
    const source = `${peersDir}${peer}.c`;
    const binary = `${binDir}${peer}`;
    if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
      const compiled = spawnSync('mpicc', ['-O2', '-o', binary, source], { encoding: 'utf8' });
      if (compiled.status !== 0) throw new Error(`mpicc ${source} failed:\n${compiled.stderr}`);
    }
    return binary;
  };
  const command = (np: number, peer: string, args: string[] = [], mca: string[] = ['--mca', 'pml', 'ob1', '--mca', 'btl', 'vader,self']): [string, string[]] => [
    'mpirun',
    ['--allow-run-as-root', '--oversubscribe', '-n', String(np), ...mca, build(peer), ...args],
  ];
  return {
    version,
    command,
    run(np, peer, args, mca) {
      const [cmd, argv] = command(np, peer, args.map(String), mca);
      const result = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 << 20 });
      if (result.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (${result.status}):\n${result.stderr}`);
      return parseLines(result.stdout);
    },
  };
}

/** True when the benchmark was asked to require Open MPI. */
export function wantsOpenMpi(argv: string[]): boolean {
  return argv.includes('--with-openmpi');
}
