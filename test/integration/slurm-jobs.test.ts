// tsmpi under a real SLURM (Debian's slurmctld, slurmd, munge, started by test/infra/slurm-up.sh):
// srun -n 4 tsmpi exec runs the semantics suites, a failing task ends the job, partial
// initialisation works, and a job without PMI-2 fails loudly instead of running N one-rank jobs;
// four nodes (a slurmd in each of four test hosts, network namespaces with their own addresses:
// test/infra/hosts.sh) get their layout right, run the examples across real interfaces, and a
// node cut off mid-job is named while its tasks end on their own.
// Set TSMPI_REQUIRE_SLURM=1 (.ci/run does) to make a missing SLURM a failure, not a skip.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CCO_SUITE_LINES, P2P_SUITE_LINES, explain, fixture } from '../helpers/run-job.ts';
import { cancelSteps, slurmMissing, srunExec, startSlurm, stopSlurm } from '../helpers/slurm.ts';
import { hostAddress, hosts, hostsMissing, processesOnHost } from '../helpers/hosts.ts';
import { rankOfTrack, readTimeline } from '../helpers/trace.ts';

const missing = slurmMissing();
if (missing !== undefined && process.env.TSMPI_REQUIRE_SLURM === '1') throw new Error(`SLURM tests required but ${missing}`);
const skip = missing ?? false;
const hostsUnavailable = hostsMissing();
if (hostsUnavailable !== undefined && process.env.TSMPI_REQUIRE_HOSTS === '1') throw new Error(`multi-host tests required but ${hostsUnavailable}`);
const hostsSkip = hostsUnavailable ?? false;

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

describe('SLURM, one node', { skip }, () => {
  before(() => startSlurm('single'));
  after(() => stopSlurm());

  test('srun -n 4 tsmpi exec: the point-to-point suite', { timeout: 300_000 }, async () => {
    const result = await srunExec(['-n', '4'], fixture('p2p-suite.ts'));
    assert.equal(result.code, 0, explain(result));
    assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('p2p ok ')).length, P2P_SUITE_LINES, explain(result));
  });

  test('srun -n 3 tsmpi exec: the collectives suite', { timeout: 300_000 }, async () => {
    const result = await srunExec(['-n', '3'], fixture('cco-suite.ts'), [], {}, 280_000);
    assert.equal(result.code, 0, explain(result));
    assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('cco ok ')).length, CCO_SUITE_LINES, explain(result));
  });

  test('under srun: one job-wide hang report in rank order, from the coordinator in task 0 (issue 22)', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '4'], fixture('deadlock.ts'), [], { TSMPI_HANG_TIMEOUT: '3' }, 90_000);
    assert.notEqual(result.code, 0, explain(result));
    const output = result.stdout + result.stderr;
    assert.equal(output.match(/no rank made progress for 3 s/g)?.length, 1, `one report\n${explain(result)}`);
    const lines = output.split('\n').filter((l) => /^ {2}rank \d+: /.test(l)).map((l) => l.replace(/barrier from rank \d/, 'barrier from rank N'));
    assert.deepEqual(lines, ['  rank 0: waiting in recv from rank 1, tag 7, on world', '  rank 1: waiting in recv from rank 0, tag 8, on world', '  rank 2: waiting in barrier from rank N on world', '  rank 3: waiting in barrier from rank N on world'], explain(result));
  });

  test("under srun: rank 0 reads srun's stdin, every other rank an empty one; --stdin's variable moves it", { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '3'], fixture('stdin-read.ts'), ['0'], {}, 60_000, { input: 'one\ntwo\n' });
    assert.equal(result.code, 0, explain(result));
    assert.deepEqual(result.stdout.split('\n').filter((l) => l !== '').sort(), ['rank 0 read "one\\ntwo\\n"', 'rank 1 read ""', 'rank 2 read ""', 'ranks 3'], explain(result));
    const moved = await srunExec(['-n', '3'], fixture('stdin-read.ts'), ['others'], { TSMPI_STDIN: '2' }, 60_000, { input: 'to two\n' });
    assert.equal(moved.code, 0, explain(moved));
    assert.deepEqual(moved.stdout.split('\n').filter((l) => l !== '').sort(), ['rank 0 read ""', 'rank 1 read ""', 'rank 2 read "to two\\n"', 'ranks 3'], explain(moved));
  });

  test('under srun: a wait for a task that ended fails at once, naming both (issue 22)', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '3'], fixture('peer-gone.ts'), ['exit'], {}, 60_000);
    assert.notEqual(result.code, 0, explain(result));
    assert.match(result.stdout + result.stderr, /rank 0, recv: recv from rank 1, tag 5, on world: world rank 1 exited \(code 0\), so this can never complete/, explain(result));
    const delivered = await srunExec(['-n', '3'], fixture('peer-gone.ts'), ['delivered'], {}, 60_000);
    assert.equal(delivered.code, 0, explain(delivered));
    assert.match(delivered.stdout, /rank 0 received first, 131072 doubles of 1\.5, \{"last":true\}/, explain(delivered));
  });

  test('srun -n 4 tsmpi exec examples/pi.ts --pool: the task pool under SLURM', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '4'], 'examples/pi.ts', ['--pool', '2000000', '100']);
    assert.equal(result.code, 0, explain(result));
    const pi = /pi is approximately (\d\.\d+)/.exec(result.stdout);
    assert.ok(pi && Math.abs(Number(pi[1]) - Math.PI) < 1e-9, explain(result));
    const counts = /tasks per rank \(central\): rank 0: (\d+), rank 1: (\d+), rank 2: (\d+), rank 3: (\d+)/.exec(result.stdout);
    assert.ok(counts, explain(result));
    assert.equal(counts.slice(1).reduce((a, b) => a + Number(b), 0), 100);
  });

  test('srun -n 4 tsmpi exec with TSMPI_TRACE: task 0 merges every task\'s timeline once all have ended (issue 16)', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsmpi-slurm-trace-'));
    try {
      const file = join(dir, 'ring.json');
      const result = await srunExec(['-n', '4'], 'examples/ring.ts', [], { TSMPI_TRACE: file });
      assert.equal(result.code, 0, explain(result));
      const t = readTimeline(file);
      assert.equal(t.other.ranks, 4);
      assert.deepEqual(t.other.missingRanks, []);
      assert.deepEqual([...new Set(t.slices.map((s) => rankOfTrack(t, s)))].sort(), [0, 1, 2, 3]);
      assert.equal(t.flows.length, t.other.messages);
      assert.equal(t.other.unmatchedReceives, 0);
      for (const { from, to } of t.flows) assert.ok(to.ts! >= from.ts! - 200, `an arrow back in time: ${from.ts} -> ${to.ts}`);
      assert.deepEqual(readdirSync(dir), ['ring.json'], 'the part files are merged and removed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a task that throws ends the job non-zero, naming its rank', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '3', '--kill-on-bad-exit=1'], fixture('fail-throw.ts'), ['1', 'throw']);
    assert.notEqual(result.code, 0, explain(result));
    assert.match(result.stderr, /tsmpi: rank 1 failed:\n.*deliberate failure on rank 1/);
  });

  test('without --kill-on-bad-exit, the failed task aborts the step through PMI-2', { timeout: 120_000 }, async () => {
    // Ranks 0 and 2 wait for rank 1 and have no connection to it yet: only the abort ends them.
    const result = await srunExec(['-n', '3'], fixture('fail-throw.ts'), ['1', 'throw'], {}, 60_000);
    assert.equal(result.signal, null, `the job did not end\n${explain(result)}`);
    assert.notEqual(result.code, 0, explain(result));
    assert.match(result.stderr, /rank 1 failed/);
    assert.match(result.stderr, /STEP \d+\.\d+ ON \S+ CANCELLED/);
  });

  test('a task that exits 3 while the others wait in a barrier ends the step, naming its code (issue 12)', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '3'], fixture('fail-throw.ts'), ['1', 'exit3-barrier'], {}, 60_000);
    assert.equal(result.signal, null, `the job did not end\n${explain(result)}`);
    assert.notEqual(result.code, 0, explain(result));
    assert.match(result.stderr, /tsmpi: rank 1 exited with code 3/);
    assert.match(result.stderr, /STEP \d+\.\d+ ON \S+ CANCELLED/);
  });

  test('TSMPI_CG_PER_PROCESS=2 under srun: tasks 0 and 2 form the world', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '4'], fixture('partial-init.ts'), [], { TSMPI_CG_PER_PROCESS: '2' });
    assert.equal(result.code, 0, explain(result));
    const out = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { resource: number; member: boolean; rank: number; sum?: number }).sort((a, b) => a.resource - b.resource);
    assert.deepStrictEqual(out.map((l) => [l.resource, l.member, l.rank]), [[0, true, 0], [1, false, -1], [2, true, 1], [3, false, -1]]);
    assert.equal(out[0]!.sum, 2);
  });

  test('srun without PMI-2 fails loudly instead of running separate one-rank jobs', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-n', '2', '--mpi=none'], fixture('slurm-layout.ts'));
    assert.notEqual(result.code, 0, explain(result));
    assert.match(result.stderr, /SLURM started 2 tasks without PMI-2, so they cannot find each other/);
    assert.match(result.stderr, /srun --mpi=pmi2 tsmpi exec/);
    assert.doesNotMatch(result.stdout, /"size":1/);
  });
});

describe('SLURM, four hosts (a slurmd in each test host\'s namespace, its own address)', { skip: skip || hostsSkip }, () => {
  before(() => {
    hosts('up', '4');
    startSlurm('hosts');
  });
  after(() => {
    stopSlurm();
    hosts('down');
  });
  /** On the hosts, ranks listen on their node's own address (the default), not loopback. */
  const onHosts = { TSMPI_TCP_ADDRESS: '' };

  test('srun -N 4 --ntasks-per-node=2: every rank knows its node', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-N', '4', '--ntasks-per-node=2'], fixture('slurm-layout.ts'), [], onHosts);
    assert.equal(result.code, 0, explain(result));
    const out = JSON.parse(result.stdout.trim()) as {
      size: number;
      sum: number;
      all: { rank: number; processor: string; slurmNode: string; procid: number; localId: string; localRank: string; localSize: string }[];
      nodes: string[];
      nodeOfRank: number[];
      launcher: string;
    };
    assert.equal(out.size, 8);
    assert.equal(out.sum, 28);
    assert.equal(out.launcher, 'slurm');
    assert.deepStrictEqual(out.nodes, ['h1', 'h2', 'h3', 'h4']);
    assert.deepStrictEqual(out.nodeOfRank, [0, 0, 1, 1, 2, 2, 3, 3]);
    for (const r of out.all) assert.equal(r.slurmNode, out.nodes[out.nodeOfRank[r.rank]!], `rank ${r.rank}`);
    // MPI_Get_processor_name: the node SLURM runs the task on.
    for (const r of out.all) assert.equal(r.processor, r.slurmNode, `rank ${r.rank}`);
    // TSMPI_LOCAL_RANK is the rank's place on its node, as SLURM_LOCALID (issue 22).
    for (const r of out.all) assert.deepEqual([r.localRank, r.localSize], [r.localId, '2'], `rank ${r.rank}`);
  });

  test('srun -N 4: each task runs in its node\'s namespace and listens on that node\'s address (issue 17)', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-N', '4', '--ntasks-per-node=2'], fixture('hosts-job.ts'), ['layout'], onHosts);
    assert.equal(result.code, 0, explain(result));
    const out = JSON.parse(result.stdout.trim()) as { all: { rank: number; reachedAt: string; hostAddresses: string[] }[] };
    for (const r of out.all) {
      const address = hostAddress(Math.floor(r.rank / 2) + 1);
      assert.deepEqual(r.hostAddresses, [address], `rank ${r.rank}`);
      assert.equal(r.reachedAt.split(':')[0], address, `rank ${r.rank}`);
    }
  });

  test('srun -N 4: pi, the stencil (heat.ts) and pi --pool across the hosts (issue 17)', { timeout: 180_000 }, async () => {
    const pi = await srunExec(['-N', '4', '--ntasks-per-node=2'], 'examples/pi.ts', [], onHosts);
    assert.equal(pi.code, 0, explain(pi));
    assert.match(pi.stdout, /pi is approximately 3\.14159265358\d+/, explain(pi));
    const heat = await srunExec(['-N', '4', '--ntasks-per-node=2'], 'examples/heat.ts', ['48', '45', '50'], onHosts);
    assert.equal(heat.code, 0, explain(heat));
    assert.match(heat.stdout, /^heat 48x45 on 8 ranks: 50 iterations \(iteration limit\), residual 4\.847423e-1, checksum 15661\.8130632$/m, explain(heat));
    const pool = await srunExec(['-N', '4', '--ntasks-per-node=2'], 'examples/pi.ts', ['--pool', '2000000', '100'], onHosts);
    assert.equal(pool.code, 0, explain(pool));
    const counts = /tasks per rank \(central\): (.*)$/m.exec(pool.stdout);
    assert.ok(counts, explain(pool));
    assert.equal([...counts[1]!.matchAll(/rank \d+: (\d+)/g)].reduce((a, m) => a + Number(m[1]), 0), 100, explain(pool));
  });

  test('srun -N 4 with TSMPI_TRACE: one timeline, a group per node, the other nodes\' clocks measured against task 0\'s (issue 16)', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsmpi-slurm-trace-'));
    try {
      const file = join(dir, 'ring.json');
      const result = await srunExec(['-N', '4', '--ntasks-per-node=2'], 'examples/ring.ts', [], { ...onHosts, TSMPI_TRACE: file });
      assert.equal(result.code, 0, explain(result));
      const t = readTimeline(file);
      assert.deepEqual(t.other.nodes, ['h1', 'h2', 'h3', 'h4']);
      assert.deepEqual(t.other.missingRanks, []);
      assert.equal(t.flows.length, t.other.messages);
      const clocks = (t.other as unknown as { clockOffsets: { node: string; offsetMs: number; roundTripMs: number }[] }).clockOffsets;
      assert.deepEqual([...new Set(clocks.map((c) => c.node))].sort(), ['h2', 'h3', 'h4']);
      // One machine's clock: the true offset is 0, an estimate is off by at most half its round trip.
      for (const c of clocks) assert.ok(c.roundTripMs > 0 && Math.abs(c.offsetMs) <= c.roundTripMs / 2 + 1, JSON.stringify(c));
      const slack = Math.max(...clocks.map((c) => c.roundTripMs)) * 1e3 + 1200;
      for (const { from, to } of t.flows) assert.ok(to.ts! >= from.ts! - slack, `an arrow back in time: ${from.ts} -> ${to.ts}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('srun -N 2 --ntasks-per-node=2: splitType(SHARED) gives each node its tasks, a process each (issue 20)', { timeout: 120_000 }, async () => {
    const result = await srunExec(['-N', '2', '--ntasks-per-node=2'], fixture('comm-management.ts'), ['splitTypes'], onHosts);
    assert.equal(result.code, 0, explain(result));
    assert.match(result.stdout, /^manage placement shared 2,2,2,2 process 1,1,1,1$/m, explain(result));
    assert.equal(result.stdout.split('\n').filter((l) => l.startsWith('manage ok splitTypes ')).length, 2, explain(result));
  });

  // Last here: SLURM itself cannot reach the cut-off node's step, and srun waits for it.
  test('a node whose link goes down mid-job: the coordinator names its tasks within the host timeout, and they end on their own (issue 17)', { timeout: 180_000 }, async () => {
    let cut = false;
    let named: () => void = () => {};
    const namedSoon = new Promise<void>((resolve) => (named = resolve));
    let stderrSoFar = '';
    const job = srunExec(['-N', '4', '--ntasks-per-node=2'], fixture('hosts-job.ts'), ['ring', '100'], { ...onHosts, TSMPI_HOST_TIMEOUT: '4' }, 150_000, {
      onStdout: (text) => {
        if (!cut && text.includes('ready')) {
          cut = true;
          setTimeout(() => void hosts('link', '4', 'down'), 500);
        }
      },
      onStderr: (text) => {
        stderrSoFar += text;
        if (/has not been heard from/.test(stderrSoFar)) named();
      },
    });
    try {
      const timer = new Promise<void>((resolve) => setTimeout(resolve, 60_000));
      await Promise.race([namedSoon, timer]);
      assert.match(stderrSoFar, /task [67] \(rank [67] on h4\) has not been heard from for \d+ s \(TSMPI_HOST_TIMEOUT 4\)/, stderrSoFar);
      // Cut off, h4's tasks end by themselves once the coordinator goes unheard.
      const deadline = performance.now() + 20_000;
      let left = processesOnHost(4).filter((pid) => ['node', 'esbuild'].includes(commOf(pid)));
      while (left.length > 0 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        left = processesOnHost(4).filter((pid) => ['node', 'esbuild'].includes(commOf(pid)));
      }
      assert.deepEqual(left, [], 'tsmpi processes still run on the cut-off node');
    } finally {
      hosts('link', '4', 'up');
      cancelSteps();
      await job;
    }
  });
});
