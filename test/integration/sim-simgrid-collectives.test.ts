// Traces replayed with SimGrid 3.32's own collective algorithms (`--collectives simgrid`, the
// default for --replay) against SimGrid itself in its default collective selection, under CM02
// without cross-traffic (SimGrid's only settings here): every case within 5% of SimGrid's
// makespan, with the algorithm switches of its alltoall decision (linear, Bruck) and blocking
// (>= 64 KiB) and detached binomial bcast sends. Skipped when SimGrid is missing, unless
// TSMPI_REQUIRE_SIMGRID=1 (CI installs it).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findSimgrid, simgridReplay } from '../../bench/lib/simgrid.ts';
import { simgridAlltoallAlgorithm } from '../../src/comm/collectives/select.ts';
import { explain, repoRoot, tsmpi } from '../helpers/run-job.ts';

const tools = findSimgrid();
const required = process.env.TSMPI_REQUIRE_SIMGRID === '1';
const skip = tools === undefined && !required ? 'SimGrid is not installed (apt-get install libsimgrid-dev)' : false;
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-simgrid-colls-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const N = 16;
/** Per case: the lines every rank runs (datatype 0 = MPI_DOUBLE, 1 = MPI_INT, 6 = MPI_BYTE). */
const CASES: Record<string, (r: number) => string[]> = {
  'bcast 1 MiB (blocking sends)': () => ['bcast 131072 0 0'],
  'bcast 8000 B from rank 3 (detached sends)': () => ['bcast 1000 3 0'],
  'allreduce 1 MiB (flat reduce + binomial bcast)': () => ['allreduce 131072 0 0'],
  'reduce 1 MiB to rank 2 (flat)': () => ['reduce 131072 0 2 0'],
  'alltoall 256 KiB per pair (basic linear)': () => ['alltoall 32768 32768 0 0'],
  'alltoall 4 B per pair x 50 (Bruck)': () => Array<string>(50).fill('alltoall 1 1 1 1'),
  'gather, scatter, allgather, alltoallv': () => ['gather 10000 10000 0 0 0', 'scatter 10000 10000 1 0 0', 'allgather 10000 10000 0 0', `alltoallv 160000 ${Array<string>(N).fill('10000').join(' ')} 160000 ${Array<string>(N).fill('10000').join(' ')} 0 0`],
  "100 barriers (SMPI's 16-byte envelopes share rank 0's link)": () => Array<string>(100).fill('barrier'),
  'reducescatter, unequal blocks of 100-300 doubles (MPICH recursive halving)': () => [`reducescatter ${Array.from({ length: N }, (_, i) => 100 * (1 + (i % 3))).join(' ')} 0 0`],
  'reducescatter, unequal blocks, 775000 ints in all (MPICH pairwise)': () => [`reducescatter ${Array.from({ length: N }, (_, i) => 25000 * (1 + (i % 3))).join(' ')} 0 1`],
  // 1.2 MB, but 155000 elements: the rule counts elements, so still recursive halving.
  'reducescatter, unequal blocks, 155000 doubles in all (recursive halving: the rule counts elements)': () => [`reducescatter ${Array.from({ length: N }, (_, i) => 5000 * (1 + (i % 3))).join(' ')} 0 0`],
  'sendRecv ring then reduce': (r) => [`sendRecv 100000 ${(r + 1) % N} 100000 ${(r - 1 + N) % N} 6 6`, 'compute 1e6', 'reduce 50000 1e6 0 0'],
};

const platform = join(repoRoot, 'test/fixtures/platforms/cluster-64.xml');
const hostfile = join(dir, 'hosts');
writeFileSync(hostfile, `${Array.from({ length: 64 }, (_, i) => `node-${i}`).join('\n')}\n`);

test('SimGrid 3.32 alltoall decision: algorithms by ranks and bytes per pair', () => {
  assert.equal(simgridAlltoallAlgorithm(16, 262144), 'basic-linear');
  assert.equal(simgridAlltoallAlgorithm(16, 4), 'bruck');
  assert.equal(simgridAlltoallAlgorithm(16, 2), 'basic-linear');
  assert.equal(simgridAlltoallAlgorithm(64, 262144), 'pairwise');
  assert.equal(simgridAlltoallAlgorithm(64, 262143), 'basic-linear');
  assert.equal(simgridAlltoallAlgorithm(64, 4), 'bruck');
  assert.equal(simgridAlltoallAlgorithm(256, 32768), 'pairwise');
  assert.equal(simgridAlltoallAlgorithm(1024, 1 << 20), 'basic-linear');
  assert.equal(simgridAlltoallAlgorithm(2, 100), 'pairwise');
  assert.equal(simgridAlltoallAlgorithm(2, 1000), 'basic-linear');
  assert.equal(simgridAlltoallAlgorithm(4, 600000), 'pairwise');
});

for (const [i, [name, lines]] of Object.entries(CASES).entries()) {
  test(`--collectives simgrid against SimGrid 3.32: ${name} (${N} ranks, CM02 without cross-traffic)`, { skip, timeout: 120_000 }, async () => {
    const caseDir = join(dir, `case-${i}`);
    mkdirSync(caseDir);
    const files = Array.from({ length: N }, (_, r) => {
      const file = join(caseDir, `rank${r}.txt`);
      writeFileSync(file, [`${r} init`, ...lines(r).map((l) => `${r} ${l}`), `${r} finalize`, ''].join('\n'));
      return file;
    });
    const description = join(caseDir, 'index');
    writeFileSync(description, `${files.join('\n')}\n`);
    const simgrid = simgridReplay(tools!, { platform, description, hostfile, np: N, config: ['network/model:CM02', 'network/crosstraffic:0'] }).makespan;
    const json = join(caseDir, 'summary.json');
    const result = await tsmpi(['sim', '--quiet', '--replay', description, '--platform', platform, '--hostfile', hostfile, '--json', json]);
    assert.equal(result.code, 0, explain(result));
    const summary = JSON.parse(readFileSync(json, 'utf8')) as { makespan: number; collectives: string };
    assert.equal(summary.collectives, 'simgrid');
    const difference = summary.makespan / simgrid - 1;
    assert.ok(Math.abs(difference) <= 0.05, `tsmpi ${summary.makespan} s against SimGrid ${simgrid} s: ${(difference * 100).toFixed(2)}%`);
  });
}
