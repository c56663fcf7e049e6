/**
 * The comparison suite that leaves SimGrid as it is: MPI programs in C
 * (test/fixtures/simgrid-programs), compiled with smpicc, traced by SimGrid 3.32's own tracer
 * (`smpirun -trace-ti`), then replayed by SimGrid (`smpirun -replay ... smpireplaymain`) and by
 * `tsmpi sim --replay`, on a crossbar, a 2:1 fat tree and two clusters joined by a slow link,
 * under SimGrid's default configuration (SMPI model) and CM02 with and without cross-traffic.
 * SimGrid keeps its own collective selection and protocol thresholds; tsmpi runs with its
 * defaults for a replay (SimGrid's collectives) and the matching `--network`.
 *
 * The tracer writes an MPI_ANY_SOURCE receive as source -333, which SimGrid's own replayer never
 * matches (it deadlocks); SimGrid gets a copy with -555, its ANY_SOURCE, and tsmpi the trace as
 * written.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simgridReplay, type SimgridTools } from './simgrid.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const PROGRAM_DIR = resolve(here, '../../test/fixtures/simgrid-programs');
const CLI = resolve(here, '../../dist/cli/main.js');

export type PlatformKind = 'crossbar' | 'fat-tree' | 'two-clusters';
export const PLATFORM_KINDS: readonly PlatformKind[] = ['crossbar', 'fat-tree', 'two-clusters'];

/** A network model as both simulators spell it. */
export interface ModelSetting {
  name: string;
  simgrid: readonly string[];
  tsmpi: readonly string[];
}

export const MODELS: readonly ModelSetting[] = [
  { name: 'SimGrid default (SMPI)', simgrid: [], tsmpi: ['--network', 'smpi'] },
  { name: 'CM02', simgrid: ['network/model:CM02'], tsmpi: ['--network', 'cm02'] },
  { name: 'CM02, no cross-traffic', simgrid: ['network/model:CM02', 'network/crosstraffic:0'], tsmpi: ['--network', 'cm02', '--crosstraffic', 'off'] },
];

export interface ProgramCase {
  name: string;
  program: string;
  args: readonly string[];
  np: number;
}

/**
 * The suite's programs at `np` ranks (a power of two). The alltoall sizes straddle the selector's
 * switches at each scale (Bruck below 512-1024 B, linear, pairwise from 256 KiB at 64-128 ranks
 * and 32 KiB at 256-511) and go largest first: SimGrid 3.32's replayer crashes (heap corruption)
 * on a trace whose alltoall grows after a smaller one. Above 64 ranks the sizes shrink so that
 * SimGrid's tracer, which runs the program with real buffers, fits in memory (256 ranks of 80 KB
 * blocks need ~10 GB), and the every-collective program stays at 64 ranks: SimGrid's replay of
 * its 256-rank trace, even with 1 KB blocks, did not end within 10 minutes.
 */
export function programCases(np: number): ProgramCase[] {
  const px = 2 ** Math.ceil(Math.log2(np) / 2);
  const alltoall = np <= 64 ? ['262144', '65536', '1000', '4'] : np <= 256 ? ['32768', '1000', '4'] : ['4'];
  return [
    { name: 'halo 2-D, 100 KB faces', program: 'halo2d', args: [String(px), '100000', '3', '1e6'], np },
    { name: 'halo 2-D, 8 KB faces', program: 'halo2d', args: [String(px), '8000', '3', '1e5'], np },
    { name: `alltoall ${alltoall.map(bytesLabel).join(', ')}`, program: 'alltoall', args: ['1', ...alltoall], np },
    { name: 'sendrecv ring, then reduce', program: 'ring', args: ['100000', '4', '1e6'], np },
    { name: 'sparse exchange, ANY_SOURCE', program: 'sparse', args: ['4', '70000'], np },
    ...(np <= 64 ? [{ name: 'every collective, 1 KB and 80 KB', program: 'collectives', args: ['1000', '80000'], np }] : []),
  ];
}

function bytesLabel(text: string): string {
  const n = Number(text);
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB` : n >= 1000 && n % 1000 === 0 ? `${n / 1000} KB` : `${n} B`;
}

/** Platform XML with hosts node-0 .. node-(n-1) of 1 Gflop/s. */
export function platformXml(kind: PlatformKind, n: number): string {
  const head = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";
  switch (kind) {
    case 'crossbar':
      // A private 10 Gbit/s, 1 us link per host, no backbone: a full crossbar.
      return `${head}  <cluster id="x" prefix="node-" suffix="" radical="0-${n - 1}" speed="1Gf" bw="1.25GBps" lat="1us"/>\n</platform>\n`;
    case 'fat-tree': {
      // Two levels, leaves of `down` hosts with down/2 uplinks: 2:1 oversubscribed.
      const down = 2 ** Math.ceil(Math.log2(n) / 2);
      const leaves = n / down;
      return `${head}  <cluster id="ft" prefix="node-" suffix="" radical="0-${n - 1}" speed="1Gf" bw="1.25GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;${down},${leaves};1,${Math.max(1, down / 2)};1,1"/>\n</platform>\n`;
    }
    case 'two-clusters': {
      const half = n / 2;
      return `${head}  <zone id="AS0" routing="Full">
    <cluster id="a" prefix="node-" suffix="" radical="0-${half - 1}" speed="1Gf" bw="1.25GBps" lat="1us" bb_bw="10GBps" bb_lat="1us" router_id="a-gw"/>
    <cluster id="b" prefix="node-" suffix="" radical="${half}-${n - 1}" speed="1Gf" bw="1.25GBps" lat="1us" bb_bw="10GBps" bb_lat="1us" router_id="b-gw"/>
    <link id="wan" bandwidth="1.25GBps" latency="50us"/>
    <zoneRoute src="a" dst="b" gw_src="a-gw" gw_dst="b-gw"><link_ctn id="wan"/></zoneRoute>
  </zone>
</platform>
`;
    }
  }
}

/** Compiles the suite's programs with smpicc into `dir`; returns the binaries by name. */
export function compilePrograms(dir: string): Map<string, string> {
  mkdirSync(dir, { recursive: true });
  const out = new Map<string, string>();
  for (const file of readdirSync(PROGRAM_DIR).filter((f) => f.endsWith('.c'))) {
    const name = file.slice(0, -2);
    const binary = join(dir, name);
    const r = spawnSync('smpicc', ['-O1', '-o', binary, join(PROGRAM_DIR, file)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`smpicc ${file} failed:\n${r.stdout}${r.stderr}`);
    out.set(name, binary);
  }
  return out;
}

/** Traces a program with SimGrid's tracer; returns the index file (one rank file per line). */
export function traceProgram(tools: SimgridTools, binary: string, c: ProgramCase, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const platform = join(dir, 'trace-platform.xml');
  writeFileSync(platform, platformXml('crossbar', c.np));
  const hostfile = writeHostfile(dir, c.np);
  const index = join(dir, 'trace.txt');
  // Computation is declared (smpi_execute_flops), not measured: the trace is the same every time.
  const args = ['-trace-ti', '-trace-file', index, '-np', String(c.np), '-platform', platform, '-hostfile', hostfile, '--cfg=smpi/simulate-computation:no', binary, ...c.args];
  const r = spawnSync(tools.smpirun, args, { encoding: 'utf8', cwd: dir, maxBuffer: 64 << 20, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`smpirun ${args.join(' ')} failed (status ${r.status}):\n${`${r.stdout}${r.stderr}`.slice(-3000)}`);
  return index;
}

/** SimGrid's replayer needs ANY_SOURCE as -555: a copy of the trace with -333 sources rewritten (or the trace itself). */
export function simgridCopy(index: string): string {
  const base = dirname(index);
  const files = readFileSync(index, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  let rewritten = false;
  const copies = files.map((file, r) => {
    const path = resolve(base, file.trim());
    const text = readFileSync(path, 'utf8');
    const fixed = text.replace(/^(\d+ i?recv) -333 /gm, '$1 -555 ');
    if (fixed === text) return path;
    rewritten = true;
    const copy = join(base, 'simgrid-copy', `rank-${r}.txt`);
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, fixed);
    return copy;
  });
  if (!rewritten) return index;
  const out = join(base, 'simgrid-copy', 'index.txt');
  writeFileSync(out, `${copies.join('\n')}\n`);
  return out;
}

export function writeHostfile(dir: string, n: number): string {
  const file = join(dir, `hosts-${n}`);
  writeFileSync(file, `${Array.from({ length: n }, (_, i) => `node-${i}`).join('\n')}\n`);
  return file;
}

export interface ModelComparison {
  model: string;
  simgrid: number;
  tsmpi: number;
  difference: number;
  simgridWallSeconds: number;
  tsmpiWallSeconds: number;
}

/** Replays one trace on one platform under every model, in both simulators. */
export function compareTrace(tools: SimgridTools, index: string, simgridIndex: string, platform: string, np: number, dir: string, models: readonly ModelSetting[] = MODELS): ModelComparison[] {
  const hostfile = writeHostfile(dir, np);
  return models.map((m, i) => {
    const sg = simgridReplay(tools, { platform, description: simgridIndex, hostfile, np, config: m.simgrid });
    const json = join(dir, `summary-${i}.json`);
    const started = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'sim', '--quiet', '--replay', index, '--platform', platform, '--hostfile', hostfile, ...m.tsmpi, '--json', json], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const tsmpiWallSeconds = (performance.now() - started) / 1000;
    if (r.status !== 0) throw new Error(`tsmpi sim --replay ${index} ${m.tsmpi.join(' ')} failed (status ${r.status}):\n${r.stderr.slice(-3000)}`);
    const tsmpi = (JSON.parse(readFileSync(json, 'utf8')) as { makespan: number }).makespan;
    return { model: m.name, simgrid: sg.makespan, tsmpi, difference: tsmpi / sg.makespan - 1, simgridWallSeconds: sg.wallSeconds, tsmpiWallSeconds };
  });
}

/**
 * Runs one program both ways under every model: the C program by `smpirun` (SMPI executing it,
 * computation not benchmarked: declared, as the tracer runs it) and its tsmpi twin (the .ts file
 * of the same name) by `tsmpi sim --collectives simgrid --compute declared` (or `tsmpi`: the
 * runtime's own collectives and protocol).
 */
export function compareProgram(tools: SimgridTools, binary: string, args: readonly string[], twinArgs: readonly string[], platform: string, np: number, dir: string, models: readonly ModelSetting[] = MODELS, collectives: 'simgrid' | 'tsmpi' = 'simgrid'): ModelComparison[] {
  const hostfile = writeHostfile(dir, np);
  const twin = join(PROGRAM_DIR, `${binary.split('/').pop()!}.ts`);
  return models.map((m, i) => {
    const sgArgs = ['-np', String(np), '-platform', platform, '-hostfile', hostfile, ...m.simgrid.map((c) => `--cfg=${c}`), '--cfg=smpi/display-timing:1', '--cfg=smpi/simulate-computation:no', binary, ...args];
    let started = performance.now();
    const sg = spawnSync(tools.smpirun, sgArgs, { encoding: 'utf8', cwd: dir, maxBuffer: 64 << 20, timeout: 600_000 });
    const simgridWallSeconds = (performance.now() - started) / 1000;
    const simulated = /Simulated time: ([\d.eE+-]+) seconds/.exec(`${sg.stdout}${sg.stderr}`);
    if (sg.status !== 0 || simulated === null) throw new Error(`smpirun ${sgArgs.join(' ')} failed (status ${sg.status}):\n${`${sg.stdout}${sg.stderr}`.slice(-3000)}`);
    const json = join(dir, `program-summary-${i}.json`);
    started = performance.now();
    const tsArgs = ['sim', '--quiet', '-n', String(np), '--collectives', collectives, '--compute', 'declared', '--platform', platform, '--hostfile', hostfile, ...m.tsmpi, '--json', json, twin, ...twinArgs];
    const r = spawnSync(process.execPath, [CLI, ...tsArgs], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const tsmpiWallSeconds = (performance.now() - started) / 1000;
    if (r.status !== 0) throw new Error(`tsmpi ${tsArgs.join(' ')} failed (status ${r.status}):\n${r.stderr.slice(-3000)}`);
    const tsmpi = (JSON.parse(readFileSync(json, 'utf8')) as { makespan: number }).makespan;
    const simgrid = Number(simulated[1]);
    return { model: m.name, simgrid, tsmpi, difference: tsmpi / simgrid - 1, simgridWallSeconds, tsmpiWallSeconds };
  });
}
