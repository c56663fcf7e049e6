// SimGrid's own traces, as a SimGrid user has them: MPI programs in C compiled with smpicc,
// traced by `smpirun -trace-ti`, replayed unmodified by `tsmpi sim --replay --hostfile` and by
// SimGrid's smpireplaymain in its own configuration (SMPI model, its collective selector, its
// protocol thresholds), then CM02 with and without cross-traffic: every case within 5% of
// SimGrid's makespan, on a crossbar, a 2:1 fat tree and two clusters joined by a 50 us link.
// Skipped when SimGrid is missing, unless TSMPI_REQUIRE_SIMGRID=1 (CI installs it).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compareProgram, compareTrace, compilePrograms, MODELS, PLATFORM_KINDS, platformXml, programCases, simgridCopy, traceProgram, type ProgramCase } from '../../bench/lib/simgrid-programs.ts';
import { findSimgrid } from '../../bench/lib/simgrid.ts';

const tools = findSimgrid();
const required = process.env.TSMPI_REQUIRE_SIMGRID === '1';
const skip = tools === undefined && !required ? 'SimGrid is not installed (apt-get install libsimgrid-dev)' : false;
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-simgrid-programs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let binaries: Map<string, string> | undefined;
function binary(name: string): string {
  binaries ??= compilePrograms(join(dir, 'bin'));
  return binaries.get(name)!;
}

function check(c: ProgramCase, kinds: readonly string[], caseDir: string): void {
  const index = traceProgram(tools!, binary(c.program), c, caseDir);
  // The trace is SimGrid's, unmodified: its ANY_SOURCE receives say -333.
  if (c.program === 'sparse') assert.match(readFileSync(join(caseDir, 'trace.txt_files', readFileSync(index, 'utf8').split('\n')[0]!.split('/').pop()!), 'utf8'), /irecv -333 /);
  const simgridIndex = simgridCopy(index);
  const failures: string[] = [];
  for (const kind of kinds) {
    const platformDir = join(caseDir, kind);
    mkdirSync(platformDir);
    const platform = join(platformDir, 'platform.xml');
    writeFileSync(platform, platformXml(kind as 'crossbar', c.np));
    for (const row of compareTrace(tools!, index, simgridIndex, platform, c.np, platformDir)) {
      const line = `${kind}, ${row.model}: tsmpi ${row.tsmpi} s, SimGrid ${row.simgrid} s (${(row.difference * 100).toFixed(2)}%)`;
      if (!(Math.abs(row.difference) <= 0.05)) failures.push(line);
    }
  }
  assert.deepEqual(failures, [], `more than 5% from SimGrid:\n${failures.join('\n')}`);
}

for (const [i, c] of programCases(16).entries()) {
  test(`SimGrid's trace of ${c.program} ${c.args.join(' ')} (${c.name}), 16 ranks: within 5% of SimGrid under SMPI, CM02 and CM02 without cross-traffic, on ${PLATFORM_KINDS.join(', ')}`, { skip, timeout: 300_000 }, () => {
    check(c, PLATFORM_KINDS, join(dir, `np16-${i}`));
  });
}

// At 64 ranks the alltoall selector picks pairwise for 256 KiB and the collectives' protocol
// switches come at other places.
for (const [i, c] of programCases(64).entries()) {
  if (c.program !== 'alltoall' && c.program !== 'collectives') continue;
  test(`SimGrid's trace of ${c.program} (${c.name}), 64 ranks, fat tree: within 5% of SimGrid in all ${MODELS.length} models`, { skip, timeout: 300_000 }, () => {
    check(c, ['fat-tree'], join(dir, `np64-${i}`));
  });
}

// A program, not its trace: collectives.c run by SMPI and its tsmpi twin (collectives.ts, the same
// calls but MPI_Reduce_scatter) under `tsmpi sim --collectives simgrid`, where the runtime's
// collectives take SimGrid's algorithms (TSMPI_COLL_RULES=simgrid), sizes around the selector's
// and the protocol's switch points.
for (const [np, kinds] of [
  [16, PLATFORM_KINDS],
  [64, ['fat-tree']],
] as const) {
  test(`collectives.c under smpirun and collectives.ts under tsmpi sim --collectives simgrid, ${np} ranks: within 1% in all ${MODELS.length} models on ${kinds.join(', ')}`, { skip, timeout: 300_000 }, () => {
    const sizes = ['8', '1000', '65536', '80000'];
    const failures: string[] = [];
    for (const kind of kinds) {
      const platformDir = join(dir, `program-np${np}-${kind}`);
      mkdirSync(platformDir, { recursive: true });
      const platform = join(platformDir, 'platform.xml');
      writeFileSync(platform, platformXml(kind, np));
      for (const row of compareProgram(tools!, binary('collectives'), ['-no-reduce-scatter', ...sizes], sizes, platform, np, platformDir)) {
        const line = `${kind}, ${row.model}: tsmpi ${row.tsmpi} s, SimGrid ${row.simgrid} s (${(row.difference * 100).toFixed(3)}%)`;
        if (!(Math.abs(row.difference) <= 0.01)) failures.push(line);
      }
    }
    assert.deepEqual(failures, [], `more than 1% from SimGrid:\n${failures.join('\n')}`);
  });
}
