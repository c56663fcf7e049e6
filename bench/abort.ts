/**
 * Abort: how long the launcher takes to end a job once a rank fails (throws, exits 3, calls
 * abort(5)) while the others wait for it in a barrier, and that the job's code is the failing
 * rank's own. The peer: Open MPI's mpirun (its default configuration) on the same failure in C
 * (exit(3) before finalize, MPI_Abort(5)), in the same invocation.
 *   npm run bench -- abort [--with-openmpi]       REPS=5 RANKS=4
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMpi, wantsOpenMpi } from './lib/jobs.ts';
import { median, param, printTable, spread, writeResults } from './lib/report.ts';

const reps = param('REPS', 5, 'repetitions of each case');
const ranks = param('RANKS', 4, 'ranks per job');
const failing = ranks - 2;
const mpi = openMpi(wantsOpenMpi(process.argv));
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const program = fileURLToPath(new URL('./ranks/abort.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-bench-abort-'));

const modes: Record<string, string[]> = { threads: [], procs: ['--procs'], 'ranks-per-proc 2': ['--ranks-per-proc', '2'] };
const kinds = [
  { kind: 'throw', code: 1, peer: undefined },
  { kind: 'exit3', code: 3, peer: 'exit3' },
  { kind: 'abort5', code: 5, peer: 'abort5' },
] as const;

/** Runs a job whose rank writes its failure instant to a file; ms from that instant to the job's end, and its code. */
function timeFailure(command: string, args: string[]): { endMs: number; code: number | null } {
  const stamp = join(dir, 'stamp');
  rmSync(stamp, { force: true });
  const result = spawnSync(command, [...args, stamp], { encoding: 'utf8', env: { ...process.env, TSMPI_HANG_WARN: '0' }, timeout: 120_000 });
  const ended = performance.timeOrigin + performance.now();
  const failedAt = Number(readFileSync(stamp, 'utf8'));
  return { endMs: ended - failedAt, code: result.status };
}

type Row = { mode: string; kind: string; expected: number; codes: (number | null)[]; endMs: number[]; peerEndMs?: number[]; peerCodes?: (number | null)[] };
const rows: Row[] = [];
for (const [mode, flags] of Object.entries(modes)) {
  for (const { kind, code, peer } of kinds) {
    const row: Row = { mode, kind, expected: code, codes: [], endMs: [] };
    for (let rep = 0; rep < reps; rep++) {
      const ours = timeFailure(process.execPath, [cli, 'run', '-n', String(ranks), ...flags, program, String(failing), kind]);
      row.codes.push(ours.code);
      row.endMs.push(ours.endMs);
      if (mpi && peer && mode === 'procs') {
        const [cmd, argv] = mpi.command(ranks, 'abort', [String(failing), peer], []);
        const theirs = timeFailure(cmd, argv);
        (row.peerEndMs ??= []).push(theirs.endMs);
        (row.peerCodes ??= []).push(theirs.code);
      }
    }
    rows.push(row);
    process.stdout.write(`# ${mode} ${kind} done\n`);
  }
}
rmSync(dir, { recursive: true, force: true });

printTable(
  `Job end after rank ${failing} of ${ranks} fails, ms from the failure to the launcher's exit (median [min-max] of ${reps}); exit codes`,
  ['launch', 'failure', 'tsmpi ms', 'tsmpi codes (want)', 'mpirun ms', 'mpirun codes', 'tsmpi / mpirun'],
  rows.map((r) => [
    r.mode,
    r.kind,
    spread(r.endMs),
    `${[...new Set(r.codes)].join(',')} (${r.expected})`,
    r.peerEndMs ? spread(r.peerEndMs) : '-',
    r.peerCodes ? [...new Set(r.peerCodes)].join(',') : '-',
    r.peerEndMs ? `${(median(r.endMs) / median(r.peerEndMs)).toFixed(2)}x` : '-',
  ]),
);
writeResults('abort', { ranks, failing, peerVersion: mpi?.version, rows });
if (rows.some((r) => r.codes.some((c) => c !== r.expected))) process.exitCode = 1;
