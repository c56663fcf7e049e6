/**
 * Load balancing (seeds 3 and 4): (a) makespan over the capacity-weighted ideal on 8 real ranks,
 * 2 of them slowed 2-4x, for a static split, the centralized task pool, work stealing and the
 * random-diffusion balancer (both speed models), plus a periodic drift for the speed-model
 * ablation; (b) per-task overhead of the pool against Piscina on the same tiny tasks in the same
 * run; (c) the diffusion policy at P = 1024 and 4096 (gossip coverage, messages, migration
 * volume) with heterogeneous speeds; (d) the same rank program under `tsmpi sim` on a cluster
 * with slow hosts.
 *   npm run bench -- balance            (PARTS=a,b,c,d by default; a1 or a2 for half of a)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { defaultGossipRounds } from '../src/policy/balance/gossip.ts';
import { simulateBalanceStep } from './lib/balance-lockstep.ts';
import { Rng } from '../src/rng.ts';
import { tsmpiRun, type Record } from './lib/jobs.ts';
import { median, param, printTable, writeResults } from './lib/report.ts';

const parts = (process.env.PARTS ?? 'a,b,c,d').split(',').flatMap((p) => (p === 'a' ? ['a1', 'a2'] : [p]));
console.log(`# PARTS=${parts.join(',')}: (a1) one task set, (a2) iterative (a: both), (b) per-task overhead vs Piscina, (c) policy at scale, (d) simulator`);
const reps = param('REPS', 3, 'repetitions of each real-runtime measurement (median)');
const ranks = param('RANKS', 8, 'ranks of the makespan runs (2 of them slowed)');
const oneShotTasks = param('TASKS_PER_RANK', 64, 'one task set: tasks per rank (lognormal cost, CV 0.5)');
const oneShotMs = param('MEAN_MS', 10, 'one task set: mean task cost, ms (a timed wait: no CPU used)');
const iterations = param('ITERATIONS', 20, 'iterative runs: iterations (supersteps)');
const iterTasks = param('ITER_TASKS_PER_RANK', 32, 'iterative runs: tasks per rank per iteration');
const iterMs = param('ITER_MEAN_MS', 5, 'iterative runs: mean task cost, ms');
const tinyTasks = param('TINY_TASKS', 100_000, 'tiny tasks of the overhead runs');
const poolThreads = param('POOL_THREADS', 4, 'threads of the overhead runs: tsmpi ranks = Piscina workers');
const simSizes = (process.env.SIM_RANKS ?? '256').split(',').map(Number);
console.log(`# SIM_RANKS=${simSizes.join(',')}: ranks of the simulated runs (one per host)`);
const simIterations = param('SIM_ITERATIONS', 10, 'iterations of the simulated runs');
const root = fileURLToPath(new URL('../', import.meta.url));
const results: { [part: string]: unknown } = {};

// ---- (a) makespan -------------------------------------------------------------------------------

const label = (profile: string, factor: number): string =>
  profile === 'fixed' ? `ranks ${ranks - 2},${ranks - 1} slowed ${factor}x` : profile === 'drift' ? `rank ${ranks - 2} ${factor}x on even iterations, ${ranks - 1} on odd` : 'none slowed';
const ratioOf = (runs: Record[]): string => median(runs.map((r) => Number(r.ratio))).toFixed(2);

/** Runs each (profile, factor) x method REPS times; returns the runs by case and method. */
function measure(cases: [string, number][], methods: readonly string[], iters: number, perRank: number, meanMs: number): Map<string, Record[]> {
  const runs = new Map<string, Record[]>();
  for (const [profile, factor] of cases) {
    for (const method of methods) {
      const list: Record[] = [];
      for (let rep = 0; rep < reps; rep++) {
        list.push(tsmpiRun(ranks, 'bench/ranks/balance.ts', ['makespan', method, profile, factor, iters, perRank, rep + 1, meanMs]).find((r) => r.bench === 'makespan')!);
      }
      runs.set(`${profile}/${factor}/${method}`, list);
      console.log(`# ${label(profile, factor)}, ${method}: makespan / ideal ${ratioOf(list)} (${list.map((r) => Number(r.ratio).toFixed(3)).join(', ')})`);
    }
  }
  return runs;
}

if (parts.includes('a1')) {
  // (a1) one task set (the seed's pi case, anchors' B1 / C1): static cyclic split vs the pools.
  const oneShotCases: [string, number][] = [['fixed', 2], ['fixed', 3], ['fixed', 4], ['none', 1]];
  const oneShot = measure(oneShotCases, ['static', 'central', 'stealing'], 1, oneShotTasks, oneShotMs);
  printTable(
    `(a1) one task set: makespan / capacity-weighted ideal, ${ranks} ranks (worker threads), ${oneShotTasks * ranks} tasks (lognormal, mean ${oneShotMs} ms, CV 0.5), median of ${reps}`,
    ['slow ranks', 'static (cyclic)', 'central pool', 'work stealing'],
    oneShotCases.map(([p, f]) => [label(p, f), ...['static', 'central', 'stealing'].map((m) => ratioOf(oneShot.get(`${p}/${f}/${m}`)!))]),
  );
  results.oneShot = Object.fromEntries(oneShot);
}
if (parts.includes('a2')) {
  // (a2) an iterative program: every iteration (superstep) runs the same tasks.
  const METHODS = ['static', 'central', 'stealing', 'diffusion-last', 'diffusion-learned'] as const;
  const iterCases: [string, number][] = [['fixed', 3], ['drift', 3], ['none', 1]];
  const iterative = measure(iterCases, METHODS, iterations, iterTasks, iterMs);
  const cost = (runs: Record[]): string => `${(100 * median(runs.map((r) => Number(r.balanceSeconds) / Number(r.makespan)))).toFixed(1)}%`;
  printTable(
    `(a2) iterative: makespan / ideal, ${ranks} ranks, ${iterations} iterations of ${iterTasks * ranks} tasks (lognormal, mean ${iterMs} ms), median of ${reps}; the pools run each iteration as one map(); balancing cost = time in rebalance() on the last rank to arrive / makespan`,
    ['slow ranks', ...METHODS, 'balancing cost (last / learned)'],
    iterCases.map(([p, f]) => [
      label(p, f),
      ...METHODS.map((m) => ratioOf(iterative.get(`${p}/${f}/${m}`)!)),
      `${cost(iterative.get(`${p}/${f}/diffusion-last`)!)} / ${cost(iterative.get(`${p}/${f}/diffusion-learned`)!)}`,
    ]),
  );
  results.iterative = Object.fromEntries(iterative);
}

// ---- (b) per-task overhead against Piscina --------------------------------------------------------

if (parts.includes('b')) {
  const tsmpi: { [mode: string]: number[] } = { central: [], stealing: [] };
  const piscina: number[] = [];
  const pool = new Piscina({ filename: new URL('./lib/piscina-add.mjs', import.meta.url).href, minThreads: poolThreads, maxThreads: poolThreads, idleTimeout: 60_000 });
  await Promise.all(Array.from({ length: 1000 }, (_, i) => pool.run(i))); // start the threads
  for (let rep = 0; rep < reps; rep++) {
    for (const mode of ['central', 'stealing']) {
      const r = tsmpiRun(poolThreads, 'bench/ranks/balance.ts', ['overhead', tinyTasks, mode]).find((x) => x.bench === 'overhead')!;
      tsmpi[mode]!.push(Number(r.tasksPerSecond));
    }
    const start = performance.now();
    const out = await Promise.all(Array.from({ length: tinyTasks }, (_, i) => pool.run(i) as Promise<number>));
    const seconds = (performance.now() - start) / 1000;
    if (out[tinyTasks - 1] !== tinyTasks) throw new Error('piscina: wrong result');
    piscina.push(tinyTasks / seconds);
    console.log(`# overhead rep ${rep + 1}/${reps}: tsmpi central ${tsmpi.central!.at(-1)!.toFixed(0)}/s, stealing ${tsmpi.stealing!.at(-1)!.toFixed(0)}/s, Piscina ${piscina.at(-1)!.toFixed(0)}/s`);
  }
  await pool.destroy();
  const p = median(piscina);
  printTable(
    `(b) ${tinyTasks} tiny tasks (x => x + 1), ${poolThreads} threads each (tsmpi: ${poolThreads} ranks, the master computing too; Piscina ${Piscina.version ?? ''}: ${poolThreads} workers, submitted from the main thread), median of ${reps}`,
    ['pool', 'tasks/s', 'us per task', 'vs Piscina'],
    [
      ['Piscina', p.toFixed(0), (1e6 / p).toFixed(2), '1.00x'],
      ...(['central', 'stealing'] as const).map((m) => {
        const t = median(tsmpi[m]!);
        return [`tsmpi TaskPool ${m}`, t.toFixed(0), (1e6 / t).toFixed(2), `${(t / p).toFixed(2)}x`];
      }),
    ],
  );
  results.overhead = { tsmpi, piscina, tinyTasks, poolThreads };
}

// ---- (c) the policy at P = 1024 and 4096 ---------------------------------------------------------

/** Speeds of P ranks: a quarter of them slowed 2-4x (other people's jobs), the rest at 1. */
function heterogeneousSpeeds(size: number, seed: number): number[] {
  const rng = new Rng(`speeds:${seed}`);
  return Array.from({ length: size }, () => (rng.next() < 0.25 ? 1 / rng.uniform(2, 4) : 1));
}
if (parts.includes('c')) {
  const rows: (string | number)[][] = [];
  const raw: unknown[] = [];
  const seeds = [1, 2, 3];
  // Two situations: a quarter of the ranks slowed (most ranks underloaded), and three ranks 4x
  // faster than the rest (three underloaded ranks: the gossip's hard case).
  const scenarios = [
    { name: 'a quarter slowed 2-4x', speeds: heterogeneousSpeeds, loads: (size: number) => new Array<number>(size).fill(32) },
    { name: '3 ranks 4x faster', speeds: (size: number) => Array.from({ length: size }, (_, r) => (r < 3 ? 4 : 1)), loads: (size: number) => new Array<number>(size).fill(32) },
  ];
  for (const scenario of scenarios) {
    for (const size of [1024, 4096]) {
      for (const quietRounds of [0, 2]) {
        const rounds = defaultGossipRounds(size);
        const figures = seeds.map((seed) => {
          const speeds = scenario.speeds(size, seed);
          const loads = scenario.loads(size);
          const started = performance.now();
          const step = simulateBalanceStep({ loads, speeds, taskCost: 1, fanout: 2, rounds, seed, quietRounds });
          const ms = performance.now() - started;
          // Two more steps from where the first left off (B3: max/avg <= 1.05 within 3 steps).
          let after = step;
          for (let k = 2; k <= 3; k++) after = simulateBalanceStep({ loads: after.loadsAfter, speeds, taskCost: 1, fanout: 2, rounds, seed: seed * 100 + k, quietRounds });
          return { step, ms, threeSteps: after.imbalanceAfter };
        });
        const med = (f: (x: (typeof figures)[number]) => number): number => median(figures.map(f));
        const to99 = figures.map((x) => x.step.gossip.roundsTo99);
        rows.push([
          scenario.name,
          size,
          quietRounds === 0 ? 'forward once (the seed)' : 'keep forwarding 2 rounds (the driver)',
          rounds,
          to99.every((r) => r >= 0) ? String(median(to99)) : `${to99.filter((r) => r < 0).length} of ${seeds.length} never`,
          `${(100 * med((x) => x.step.gossip.coverage[rounds - 1] ?? x.step.gossip.coverage.at(-1) ?? 1)).toFixed(2)}%`,
          `${med((x) => x.step.gossip.messagesPerRank.max)} / ${med((x) => x.step.gossip.messagesPerRank.mean).toFixed(2)} (cap ${2 * Math.ceil(Math.log2(size))})`,
          // Nothing moves when every excess is under the threshold (max/avg within a few %).
          med((x) => x.step.migrated) === 0 ? 'none moved' : `${med((x) => x.step.migrated / x.step.minimumMigration).toFixed(2)}x`,
          `${med((x) => x.step.imbalanceBefore).toFixed(2)} -> ${med((x) => x.step.imbalanceAfter).toFixed(3)} -> ${med((x) => x.threeSteps).toFixed(3)}`,
          med((x) => x.ms).toFixed(0),
        ]);
        raw.push({ scenario: scenario.name, size, quietRounds, rounds, figures: figures.map((x) => ({ ...x.step, loadsAfter: undefined, targets: undefined, ms: x.ms, threeSteps: x.threeSteps })) });
        console.log(`# policy ${scenario.name} P=${size} quiet=${quietRounds}: rounds to 99% ${to99.join(', ')}`);
      }
    }
  }
  printTable(
    `(c) one balancing step of the diffusion policy (fanout 2), 32 unit tasks per loaded rank, median of ${seeds.length} seeds (policy level: the same functions the runtime driver calls)`,
    ['situation', 'P', 'gossip', 'rounds (ceil(log2 P)+2)', 'rounds to 99%', 'coverage after those rounds', 'messages per rank max / mean', 'migrated / minimum', 'max/avg before -> 1 step -> 3 steps', 'ms per step'],
    rows,
  );
  results.policy = raw;
}

// ---- (d) the rank program in the simulator --------------------------------------------------------

if (parts.includes('d')) {
  const dir = mkdtempSync(join(tmpdir(), 'tsmpi-balance-'));
  const rows: (string | number)[][] = [];
  const raw: unknown[] = [];
  for (const size of simSizes) {
    const seed = 1;
    const speeds = heterogeneousSpeeds(size, seed);
    const load: { [host: string]: [number, number][] } = {};
    speeds.forEach((s, i) => {
      if (s < 1) load[String(i)] = [[0, s]];
    });
    const platform = join(dir, `platform-${size}.json`);
    writeFileSync(platform, JSON.stringify({ topology: 'crossbar', hosts: { count: size, speed: 1e9 }, rails: [{ bandwidth: 1.25e9, latency: 2e-6 }], load }));
    const capacity = speeds.reduce((a, b) => a + b, 0);
    const row: (string | number)[] = [`${size} (${Object.keys(load).length} slowed 2-4x)`];
    for (const method of ['static', 'diffusion-last', 'diffusion-learned']) {
      const started = performance.now();
      const result = spawnSync(
        process.execPath,
        [`${root}dist/cli/main.js`, 'sim', '-n', String(size), '--platform', platform, '--compute', 'declared', '--message-overhead', '5e-6', `${root}bench/ranks/balance.ts`, 'makespan', method, 'none', '1', String(simIterations), String(iterTasks), String(seed), String(iterMs)],
        { env: { ...process.env, TSMPI_BENCH_SIMULATED: '1' }, encoding: 'utf8', maxBuffer: 64 << 20 },
      );
      if (result.status !== 0) throw new Error(`tsmpi sim failed:\n${result.stderr}`);
      const r = result.stdout.split('\n').filter((l) => l.startsWith('{"bench"')).map((l) => JSON.parse(l) as Record)[0]!;
      // The ideal on this cluster: all the work over the summed speeds.
      const ideal = (Number(r.ideal) * size) / capacity;
      const ratio = Number(r.makespan) / ideal;
      row.push(
        `${ratio.toFixed(2)}${method === 'static' ? '' : ` (cost ${((100 * Number(r.balanceSeconds)) / Number(r.makespan)).toFixed(1)}%, ${r.migrated} moved; first gossip: ${r.advertisers} advertising, ${(100 * Number(r.coverage)).toFixed(2)}% heard, <= ${r.maxMessages} messages per rank)`}`,
      );
      raw.push({ seed, method, ...r, simIdeal: ideal, simRatio: ratio, wallSeconds: (performance.now() - started) / 1000 });
      console.log(`# sim ${method}: makespan / ideal ${ratio.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(1)} s of wall time)`);
    }
    rows.push(row);
  }
  printTable(
    `(d) under tsmpi sim: ${simSizes.join(' and ')} hosts of 1 Gflop/s (crossbar, 10 Gbit/s, 2 us, 5 us per message), a quarter at 1/2-1/4 of their speed (background load), ${simIterations} iterations of ${iterTasks} tasks per rank (mean ${iterMs} ms); makespan / ideal`,
    ['ranks', 'static', 'diffusion, last interval', 'diffusion, learned'],
    rows,
  );
  results.simulated = raw;
}

console.log(`\nresults: ${writeResults('balance', results)}`);
