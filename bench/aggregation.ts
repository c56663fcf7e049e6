/**
 * Batch scheduling (seed 2): (a) Bale-style kernels on the real runtime, aggregated (the
 * conveyor, and comm.exchange with per-peer buffers) against one message per item (exchange
 * `direct`); (b) supersteps of mixed sizes through comm.exchange, each planner against `direct`,
 * over shared memory and over TCP; (c) the six application patterns in the simulator on 4 and 16
 * nodes of a fat tree with 16 ranks each, each planner against `direct`, beside the paper's
 * +12.59% (4 nodes) and +11.27% (16 nodes).
 *   npm run bench -- aggregation
 */
import { init } from '../src/bootstrap/init.ts';
import { PLANNER_NAMES, type PlannerName } from '../src/policy/batch/types.ts';
import { fatTree } from '../src/sim/platform/topologies.ts';
import { simulate } from '../src/sim/simulate.ts';
import { replayBatched } from '../src/sim/workloads/batched.ts';
import { buildWorkload } from '../src/sim/workloads/registry.ts';
import { tsmpiRun, type Record } from './lib/jobs.ts';
import { median, param, printTable, writeResults } from './lib/report.ts';

const parts = (process.env.PARTS ?? 'a,b,c').split(',');
console.log(`# PARTS=${parts.join(',')}: (a) kernels, (b) supersteps, (c) simulated patterns`);
const reps = param('REPS', 5, 'repetitions of each real-runtime measurement');
const kernelRanks = param('KERNEL_RANKS', 2, 'ranks of the kernel runs (2: one per core; 4 oversubscribes and the spread triples)');
const ranks = param('RANKS', 4, 'ranks of the superstep runs');
const items = param('ITEMS', 200_000, 'items per rank, aggregated kernels');
const directItems = param('DIRECT_ITEMS', 40_000, 'items per rank, one message per item (slower: fewer)');
const simNodes = (process.env.SIM_NODES ?? '4,16').split(',').filter((x) => x !== '').map(Number);
console.log(`# SIM_NODES=${simNodes.join(',')}: node counts of the simulated fat trees (16 ranks each; empty: skip)`);
const simSteps = param('SIM_STEPS', 3, 'supersteps (time steps) of each simulated pattern; 16 nodes run 2');
const solveInterval = param('SIM_SOLVE_INTERVAL', 1e-6, 'flow model re-solve interval on 16 nodes (s; 0 = exact, slow for all-to-all at 256 ranks)');
const overhead = param('SIM_OVERHEAD_US', 5, 'simulated CPU cost per message between nodes, us (Node over TCP)');
const localOverhead = param('SIM_LOCAL_OVERHEAD_US', 1, 'simulated CPU cost per message inside a node, us (shared memory)');

// ---- (a) kernels ----------------------------------------------------------------------------------

const kernelRows: { kernel: string; bytes: number; mode: string; itemsPerSecond: number[] }[] = [];
for (let rep = 0; rep < (parts.includes('a') ? reps : 0); rep++) {
  for (const bytes of [8, 16, 64]) {
    for (const [mode, n] of [['conveyor', items], ['aggregate', items], ['direct', directItems]] as const) {
      const r = tsmpiRun(kernelRanks, 'bench/ranks/aggregation.ts', ['histogram', n, bytes, mode]).find((x: Record) => x.bench === 'histogram')!;
      let row = kernelRows.find((x) => x.kernel === 'histogram' && x.bytes === bytes && x.mode === mode);
      if (!row) kernelRows.push((row = { kernel: 'histogram', bytes, mode, itemsPerSecond: [] }));
      row.itemsPerSecond.push(Number(r.itemsPerSecond));
    }
  }
  for (const [mode, n] of [['conveyor', items / 2], ['direct', directItems / 2]] as const) {
    const r = tsmpiRun(kernelRanks, 'bench/ranks/aggregation.ts', ['gather', n, mode]).find((x: Record) => x.bench === 'gather')!;
    let row = kernelRows.find((x) => x.kernel === 'index-gather' && x.mode === mode);
    if (!row) kernelRows.push((row = { kernel: 'index-gather', bytes: 8, mode, itemsPerSecond: [] }));
    row.itemsPerSecond.push(Number(r.itemsPerSecond));
  }
  console.log(`# kernels: rep ${rep + 1}/${reps} done`);
}
const rate = (kernel: string, bytes: number, mode: string): number => median(kernelRows.find((x) => x.kernel === kernel && x.bytes === bytes && x.mode === mode)!.itemsPerSecond);
if (parts.includes('a')) printTable(
  `(a) kernels on ${kernelRanks} ranks (worker threads, shared memory): items per second (all ranks), median of ${reps}; aggregated against one message per item`,
  ['kernel', 'item bytes', 'one message per item', 'exchange, 64 KiB buffers per peer', 'conveyor', 'conveyor / per item'],
  [
    ...[8, 16, 64].map((b) => ['histogram', String(b), rate('histogram', b, 'direct').toFixed(0), `${rate('histogram', b, 'aggregate').toFixed(0)} (${(rate('histogram', b, 'aggregate') / rate('histogram', b, 'direct')).toFixed(1)}x)`, rate('histogram', b, 'conveyor').toFixed(0), `${(rate('histogram', b, 'conveyor') / rate('histogram', b, 'direct')).toFixed(1)}x`]),
    ['index-gather', '8 (+12 reply)', rate('index-gather', 8, 'direct').toFixed(0), '-', rate('index-gather', 8, 'conveyor').toFixed(0), `${(rate('index-gather', 8, 'conveyor') / rate('index-gather', 8, 'direct')).toFixed(1)}x`],
  ],
);

// ---- (b) supersteps on the real runtime -------------------------------------------------------------

const stepRows: { transport: string; planner: PlannerName; seconds: number[] }[] = [];
for (const [transport, runArgs] of parts.includes('b') ? ([['shared memory', []], ['TCP (--procs)', ['--procs']]] as const) : []) {
  for (let rep = 0; rep < reps; rep++) {
    for (const planner of PLANNER_NAMES) {
      const records = tsmpiRun(ranks, 'bench/ranks/aggregation.ts', ['superstep', 400, 5, planner], {}, [...runArgs]).filter((x: Record) => x.bench === 'superstep');
      let row = stepRows.find((x) => x.transport === transport && x.planner === planner);
      if (!row) stepRows.push((row = { transport, planner, seconds: [] }));
      row.seconds.push(...records.map((x) => Number(x.seconds)));
    }
  }
  console.log(`# supersteps over ${transport} done`);
}
if (parts.includes('b')) printTable(
  `(b) supersteps of 400 messages per rank on ${ranks} ranks (70% 16-256 B, 25% 1-16 KiB, 5% 64-512 KiB, random ranks): ms per exchange, median of ${reps} x 5; gain over direct`,
  ['transport', ...PLANNER_NAMES],
  ['shared memory', 'TCP (--procs)'].map((t) => {
    const base = median(stepRows.find((x) => x.transport === t && x.planner === 'direct')!.seconds);
    return [t, ...PLANNER_NAMES.map((p) => {
      const m = median(stepRows.find((x) => x.transport === t && x.planner === p)!.seconds);
      return p === 'direct' ? `${(m * 1e3).toFixed(2)}` : `${(m * 1e3).toFixed(2)} (${(((base - m) / base) * 100).toFixed(1)}%)`;
    })];
  }),
);

// ---- (c) the six patterns in the simulator ---------------------------------------------------------

const allPatterns: { name: string; workload: string; params: string[] }[] = [
  { name: 'stencil (electromagnetics, radiation hydrodynamics)', workload: 'stencil2d', params: ['flops=0'] },
  { name: 'particle-in-cell (PIC, laser-plasma)', workload: 'pic', params: ['flopsPerParticle=0', 'fieldFlops=0'] },
  { name: 'transport sweep', workload: 'sweep', params: ['flops=0', 'octants=4'] },
  { name: 'molecular dynamics', workload: 'md', params: ['flops=0'] },
  { name: 'all-to-all', workload: 'all-to-all', params: ['p2p=true', 'bytes=2048', 'flops=0'] },
  { name: 'random sparse', workload: 'random-sparse', params: ['flops=0', 'minBytes=64', 'maxBytes=65536'] },
];
const patternFilter = (process.env.PATTERNS ?? '').split(',').filter((x) => x !== '');
for (const w of patternFilter) {
  if (!allPatterns.some((p) => p.workload === w)) throw new Error(`PATTERNS: no pattern ${w} (have ${allPatterns.map((p) => p.workload).join(', ')})`);
}
const patterns = patternFilter.length === 0 ? allPatterns : allPatterns.filter((p) => patternFilter.includes(p.workload));
if (parts.includes('c')) console.log(`# PATTERNS=${patterns.map((p) => p.workload).join(',')}: simulated patterns (the mean gain is over these)`);
const simRows: { nodes: number; pattern: string; planner: PlannerName; makespan: number; messages: number }[] = [];
for (const nodes of parts.includes('c') ? simNodes : []) {
  const np = nodes * 16;
  const shape = nodes === 4 ? '2;2,2;1,2;1,1' : nodes === 16 ? '2;4,4;1,4;1,1' : `1;${nodes};1;1`;
  const platform = fatTree({ shape, hostBandwidth: 1.25e9, latency: 1e-6, speed: 1e9, cores: 16 });
  for (const p of patterns) {
    const steps = nodes > 4 ? Math.min(2, simSteps) : simSteps;
    const program = buildWorkload(p.workload, [...p.params, `steps=${p.workload === 'sweep' ? 1 : steps}`], np, 1);
    for (const planner of PLANNER_NAMES) {
      let messages = 0;
      const result = await simulate({
        np,
        platform,
        ranksPerHost: 16,
        computeMode: 'declared',
        ...(nodes > 4 && solveInterval > 0 ? { flow: { solveInterval } } : {}),
        messageOverhead: overhead * 1e-6,
        localMessageOverhead: localOverhead * 1e-6,
        program: {
          name: `${p.workload}-${planner}`,
          run: async (rank) => {
            const comm = await init();
            messages += (await replayBatched(comm, program.get(rank) ?? [], planner)).messages;
          },
        },
      });
      simRows.push({ nodes, pattern: p.name, planner, makespan: result.makespan, messages });
    }
    const row = simRows.filter((r) => r.nodes === nodes && r.pattern === p.name);
    console.log(`# simulated ${p.workload} on ${nodes} nodes: ${row.map((r) => `${r.planner} ${(r.makespan * 1e3).toFixed(3)} ms`).join(', ')}`);
  }
  printSimTable(nodes);
}
function printSimTable(nodes: number): void {
  const paper = nodes === 4 ? '+12.59%' : nodes === 16 ? '+11.27%' : '-';
  printTable(
    `(c) simulated, ${nodes} nodes x 16 ranks, 2-level fat tree, 10 Gbit/s, 1 us per link, ${overhead} us per message between nodes and ${localOverhead} us inside one: communication time (ms; no compute) and gain over direct (the paper: ${paper} on average)`,
    ['pattern', ...PLANNER_NAMES],
    [
      ...patterns.map((p) => {
        const base = simRows.find((r) => r.nodes === nodes && r.pattern === p.name && r.planner === 'direct')!.makespan;
        return [p.name, ...PLANNER_NAMES.map((pl) => {
          const m = simRows.find((r) => r.nodes === nodes && r.pattern === p.name && r.planner === pl)!.makespan;
          return pl === 'direct' ? (m * 1e3).toFixed(3) : `${(m * 1e3).toFixed(3)} (${(((base - m) / base) * 100).toFixed(1)}%)`;
        })];
      }),
      ['mean gain', '-', ...PLANNER_NAMES.slice(1).map((pl) => {
        const gains = patterns.map((p) => {
          const base = simRows.find((r) => r.nodes === nodes && r.pattern === p.name && r.planner === 'direct')!.makespan;
          const m = simRows.find((r) => r.nodes === nodes && r.pattern === p.name && r.planner === pl)!.makespan;
          return (base - m) / base;
        });
        return `${((gains.reduce((a, b) => a + b, 0) / gains.length) * 100).toFixed(1)}%`;
      })],
    ],
  );
}

const file = writeResults('aggregation', { kernelRanks, ranks, items, directItems, kernels: kernelRows, supersteps: stepRows, simulated: simRows, overheadUs: overhead, localOverheadUs: localOverhead });
console.log(`\n# results: ${file}`);
