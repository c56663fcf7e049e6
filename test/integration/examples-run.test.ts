// Every example runs and prints what it should (SimGrid's examples are golden-output tests too).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explain, tsmpi } from '../helpers/run-job.ts';

test('examples/pi.ts: the README main job prints pi to 1e-9', async () => {
  const result = await tsmpi(['run', '-n', '4', 'examples/pi.ts', '2000000']);
  assert.equal(result.code, 0, explain(result));
  const match = /pi is approximately (\d\.\d+), error (\S+)/.exec(result.stdout);
  assert.ok(match, explain(result));
  assert.ok(Math.abs(Number(match[1]) - Math.PI) < 1e-9, match[1]);
  assert.match(result.stdout, /2000000 intervals on 4 ranks in \d+\.\d+ s/);
});

test('examples/ring.ts: the README example passes the token and sums', async () => {
  const result = await tsmpi(['run', '-n', '4', 'examples/ring.ts']);
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /hops 3, sum\[0\] = 6/);
  for (let r = 0; r < 4; r++) assert.match(result.stdout, new RegExp(`^${r} Float64Array\\(1\\) \\[ ${r} \\] \\{ source: ${r}, tag: 7, bytes: 8 \\}$`, 'm'));
});

test('examples/diffusion.ts: the drifting hot spot is balanced and no cell is lost', async () => {
  const result = await tsmpi(['run', '-n', '4', 'examples/diffusion.ts', '12']);
  assert.equal(result.code, 0, explain(result));
  const cells = /cells per rank at the end: (\d+) (\d+) (\d+) (\d+)/.exec(result.stdout);
  assert.ok(cells, explain(result));
  assert.equal(cells.slice(1).reduce((a, b) => a + Number(b), 0), 256);
  assert.match(result.stdout, /12 iterations balanced \(learned model\) in \d+\.\d+ s \(checksum ok\)/);
  assert.match(result.stdout, /^iteration 0: max \/ mean busy \d+\.\d\d, rank 0 holds \d+ cells$/m);
});

// ---- heat.ts, exchange.ts, pool.ts: threads, processes (--procs) and the simulator --------------
// Small sizes: the simulator measures real compute, and these run on 2 busy cores.

/** Every way the new examples are launched: tsmpi arguments before the program. */
const launches: { name: string; args: string[] }[] = [
  { name: 'threads', args: ['run', '-n', '4'] },
  { name: '--procs', args: ['run', '-n', '3', '--procs'] },
  { name: 'sim', args: ['sim', '-n', '4', '--quiet'] },
];

/** The result line of heat.ts without its rank count (which is the only part that may differ). */
function heatLine(stdout: string, ranks: number): string | undefined {
  const match = /^heat (\d+x\d+) on (\d+) ranks?: (.*)$/m.exec(stdout);
  if (match === null || Number(match[2]) !== ranks) return undefined;
  return `heat ${match[1]}: ${match[3]}`;
}

// 45 rows: 4 (2x2), 7 (7x1) and 8 (4x2) ranks all get uneven blocks; on 4 and 8 the columns are
// split too. 50 iterations stop at the limit.
const heatArgs = ['examples/heat.ts', '48', '45', '50'];
/** Observed once (1 rank, threads); every rank count and mode must print exactly this. */
const heatKnown = 'heat 48x45: 50 iterations (iteration limit), residual 4.847423e-1, checksum 15661.8130632';
let heatReference: Promise<string> | undefined;
/** The line of a 1-rank run, computed once for the tests that compare against it. */
function heatOnOneRank(): Promise<string> {
  heatReference ??= tsmpi(['run', '-n', '1', ...heatArgs]).then((result) => {
    assert.equal(result.code, 0, explain(result));
    const line = heatLine(result.stdout, 1);
    assert.ok(line, explain(result));
    return line;
  });
  return heatReference;
}

test('examples/heat.ts on 1 rank prints the known-good iterations, residual and checksum', { timeout: 60_000 }, async () => {
  assert.equal(await heatOnOneRank(), heatKnown);
});

const heatRuns: { name: string; args: string[]; ranks: number }[] = [
  { name: 'threads, 4 ranks', args: ['run', '-n', '4'], ranks: 4 },
  { name: 'threads, 7 ranks', args: ['run', '-n', '7'], ranks: 7 },
  { name: '--procs, 3 ranks', args: ['run', '-n', '3', '--procs'], ranks: 3 },
  { name: 'sim, 4 ranks', args: ['sim', '-n', '4', '--quiet'], ranks: 4 },
  { name: 'sim, 8 ranks on cluster.xml', args: ['sim', '-n', '8', '--quiet', '--platform', 'examples/platforms/cluster.xml', '--ranks-per-host', '2'], ranks: 8 },
  { name: 'sim, 8 ranks on cluster.json', args: ['sim', '-n', '8', '--quiet', '--platform', 'examples/platforms/cluster.json', '--ranks-per-host', '2'], ranks: 8 },
];
for (const run of heatRuns) {
  test(`examples/heat.ts (${run.name}) prints the same result as 1 rank`, { timeout: 120_000 }, async () => {
    const reference = await heatOnOneRank();
    const result = await tsmpi([...run.args, ...heatArgs]);
    assert.equal(result.code, 0, explain(result));
    assert.equal(heatLine(result.stdout, run.ranks), reference, explain(result));
    assert.match(result.stdout, /^heat time: \d+\.\d+ s, \d+\.\d us per iteration, \d+x\d+ ranks, rows per block [\d ]+, columns per block [\d ]+$/m);
    if (run.args[0] === 'sim') assert.match(result.stdout, new RegExp(`makespan .* on ${run.ranks} ranks`));
  });
}

test('examples/heat.ts stops at the tolerance after the same iterations on 1, 3, 4 and 7 ranks', { timeout: 120_000 }, async () => {
  // 14 rows: 3 ranks take 5 5 4, 7 ranks take 2 each; 4 ranks make a 2x2 grid of 7x10 blocks.
  for (const np of [1, 3, 4, 7]) {
    const result = await tsmpi(['run', '-n', String(np), 'examples/heat.ts', '20', '14', '400', '5e-2']);
    assert.equal(result.code, 0, explain(result));
    assert.equal(heatLine(result.stdout, np), 'heat 20x14: 173 iterations (converged), residual 4.990014e-2, checksum 8376.93673378', explain(result));
  }
});

/** The lines exchange.ts prints on `np` ranks with 20000 items per rank (checksums observed). */
function exchangeLines(np: number): string[] {
  const checksum = { 3: 30713210, 4: 40979080 }[np as 3 | 4];
  return [
    `exchange: ${np} ranks, ${15 * np} messages in 5 supersteps (direct, reorder, aggregate, pipelined, adaptive), all delivered`,
    `conveyor: ${np} ranks, ${20000 * np} items, histogram ok (checksum ${checksum})`,
  ];
}
for (const launch of launches) {
  test(`examples/exchange.ts (${launch.name}) delivers every message and item`, { timeout: 120_000 }, async () => {
    const result = await tsmpi([...launch.args, 'examples/exchange.ts', '20000']);
    assert.equal(result.code, 0, explain(result));
    const np = Number(launch.args[2]);
    for (const line of exchangeLines(np)) assert.ok(result.stdout.split('\n').includes(line), `missing: ${line}\n${explain(result)}`);
    assert.match(result.stdout, /^conveyor flow control: push\(\) returned false \d+ times$/m);
  });
}

// pi(200000) = 17984; 32 tasks, task 13 fails, task 13 + 16 = 29 is cancelled, both run again.
const poolLine = 'pool: 32 tasks, 30 done, 1 failed (task 13: RangeError: bad range [87500, 81250)), 1 cancelled (task 29), 2 resubmitted; primes below 200000: 17984';
const poolLaunches = [...launches, { name: 'threads, TSMPI_POOL=stealing', args: ['run', '-n', '4'], env: { TSMPI_POOL: 'stealing' } }];
for (const launch of poolLaunches) {
  test(`examples/pool.ts (${launch.name}) reports the failed and the cancelled task and counts every prime`, { timeout: 120_000 }, async () => {
    const env = 'env' in launch ? launch.env : {};
    const result = await tsmpi([...launch.args, 'examples/pool.ts', '200000', '32'], { env });
    assert.equal(result.code, 0, explain(result));
    assert.ok(result.stdout.split('\n').includes(poolLine), explain(result));
    // Per-rank counts vary from run to run; their sum does not: 32 - 1 cancelled + 2 resubmitted.
    const perRank = /^pool tasks per rank \((central|stealing)\): (.*)$/m.exec(result.stdout);
    assert.ok(perRank, explain(result));
    assert.equal(perRank[1], 'env' in launch ? 'stealing' : 'central');
    const counts = [...perRank[2]!.matchAll(/rank \d+: (\d+) \(/g)].map((m) => Number(m[1]));
    assert.equal(counts.length, Number(launch.args[2]), explain(result));
    assert.equal(counts.reduce((a, b) => a + b, 0), 33, explain(result));
  });
}

// Issue 22: a sample sort (alltoallv) and a k-means (allreduce of sums and counts), as a new user
// writes them from the guide, on threads, processes and the simulator.
const sortSums: Record<number, string> = { 1: '14261659367961', 3: '42938476599710', 4: '57177224237673' };
for (const launch of [...launches, { name: 'threads, 1 rank', args: ['run', '-n', '1'] }]) {
  test(`examples/sample-sort.ts (${launch.name}) sorts every key, none lost`, { timeout: 120_000 }, async () => {
    const np = Number(launch.args[launch.args.indexOf('-n') + 1]);
    const result = await tsmpi([...launch.args, 'examples/sample-sort.ts', '30000']);
    assert.equal(result.code, 0, explain(result));
    const line = new RegExp(`^sorted ${30000 * np} keys on ${np} ranks?: in order, none lost \\(key sum (\\d+)\\)$`, 'm').exec(result.stdout);
    assert.ok(line, explain(result));
    if (sortSums[np]) assert.equal(line[1], sortSums[np]);
    const perRank = /^keys per rank ([\d ]+) in /m.exec(result.stdout);
    assert.ok(perRank, explain(result));
    assert.equal(perRank[1]!.split(' ').reduce((a, b) => a + Number(b), 0), 30000 * np, explain(result));
  });
}

// The same four centroids and cluster sizes, and the same iterations, on every rank count and mode.
const kmeansLines = [
  'centroid (-10.274739, -0.044600): 10041 points',
  'centroid (-0.011180, 10.254870): 10071 points',
  'centroid (0.028552, -10.302065): 9938 points',
  'centroid (10.288006, -0.008490): 9950 points',
];
for (const launch of [...launches, { name: 'threads, 1 rank', args: ['run', '-n', '1'] }, { name: 'threads, 7 ranks', args: ['run', '-n', '7'] }]) {
  test(`examples/kmeans.ts (${launch.name}) finds the same clusters`, { timeout: 120_000 }, async () => {
    const result = await tsmpi([...launch.args, 'examples/kmeans.ts']);
    assert.equal(result.code, 0, explain(result));
    assert.deepEqual(result.stdout.split('\n').filter((l) => l.startsWith('centroid ')), kmeansLines, explain(result));
    assert.match(result.stdout, /^40000 points, k = 4: converged after 20 iterations on \d+ ranks? in /m, explain(result));
  });
}
