/**
 * Where V8 compiles: the first pass of programs whose ranks fill the machine's cores, with the
 * default (TSMPI_JIT_ON_RANK on there: each rank optimises its hot functions in place) against
 * TSMPI_JIT_ON_RANK=off (V8's background compiler) and =all (running loops replaced in place
 * too), in the same invocation. Each figure is the span the program times itself (seconds, first
 * pass: what a fresh rank's warm-up costs); the first row is the start-up to ready (init and a
 * barrier), which `all` makes longer (V8 refuses Node's own code cache under it).
 *   npm run bench -- jit
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compare } from './lib/compare.ts';
import type { Record } from './lib/jobs.ts';
import { param } from './lib/report.ts';

const reps = param('REPS', 3, 'interleaved repetitions');
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const root = fileURLToPath(new URL('../', import.meta.url));
const cores = availableParallelism();
const rankCounts = [cores, 2 * cores];

const programs = [
  { name: 'start-up to ready', args: ['bench/ranks/startup.ts'], span: /"readyMs":([\d.eE+-]+)/, scale: 1e-3 },
  // Its first Jacobi step alone, every rank computing at once: the loop's warm-up itself.
  { name: 'first stencil step', args: ['bench/ranks/first-steps.ts'], span: /"step1":([\d.eE+-]+)/, scale: 1e-3 },
  { name: 'heat', args: ['examples/heat.ts'], span: /heat time: ([\d.]+) s/ },
  { name: 'exchange', args: ['examples/exchange.ts'], span: /exchange time: ([\d.]+) s/ },
  { name: 'alltoall 64 KiB', args: ['bench/ranks/predict.ts', 'alltoall'], span: /^span ([\d.eE+-]+)$/m },
  { name: 'allreduce 8 B', args: ['bench/ranks/predict.ts', 'allreduce'], span: /^span ([\d.eE+-]+)$/m },
];
const modes: [string, string[]][] = [
  ['threads', []],
  ['procs', ['--procs']],
];

function runAll(setting: 'default' | 'off' | 'all'): Record[] {
  const records: Record[] = [];
  for (const program of programs) {
    for (const [mode, flags] of modes) {
      for (const np of rankCounts) {
        const env = { ...process.env, ...(setting === 'default' ? {} : { TSMPI_JIT_ON_RANK: setting }) };
        const result = spawnSync(process.execPath, [cli, 'run', ...flags, '-n', String(np), `${root}${program.args[0]}`, ...program.args.slice(1)], { env, encoding: 'utf8' });
        const match = program.span.exec(result.stdout);
        if (result.status !== 0 || match === null) throw new Error(`${program.name} on ${np} ${mode} failed (${result.status}):\n${result.stdout}${result.stderr}`);
        records.push({ program: program.name, mode, np, seconds: Number(match[1]) * (program.scale ?? 1) });
      }
    }
  }
  return records;
}

compare({
  name: 'jit',
  title: `First pass of programs whose ranks fill the ${cores} cores, seconds: functions compiled in place (the default there) against V8's background compiler and against loops replaced in place too`,
  subject: 'in place (default)',
  unit: 's',
  better: 'lower',
  reps,
  figures: programs.flatMap((p) =>
    modes.flatMap(([mode]) =>
      rankCounts.map((np) => ({
        label: `${p.name}, ${np} ${mode}`,
        pick: (r: Record[]) => r.find((x) => x.program === p.name && x.mode === mode && x.np === np)?.seconds as number | undefined,
      })),
    ),
  ),
  runTsmpi: () => runAll('default'),
  peers: [
    { name: 'TSMPI_JIT_ON_RANK=off', run: () => runAll('off') },
    { name: 'TSMPI_JIT_ON_RANK=all', run: () => runAll('all') },
  ],
  extra: { cores },
});
