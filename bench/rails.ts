/**
 * Multi-rail scheduling, measured and simulated (PARTS=real,sim,scale; all by default).
 *
 * real: two network namespaces joined by two veth rails shaped with tbf (test/infra/rails.sh,
 *   root only), one rank in each. For rail sets 1:1, 4:1 and 10:1 and messages of 64 KiB to
 *   64 MiB, the goodput of each policy against the fast rail alone (plain TCP on rail 0, measured
 *   in the same invocation), as a share of the sum of the available rates (tbf rate x 1448/1514:
 *   TCP/IP headers in 1514-byte frames). Then TSMPI_SEG_MAX at 4:1, and a dynamic run: 16 MiB
 *   messages back to back at 4:1 while the fast rail drops to 50% and later recovers, with the
 *   time each policy takes to get back to 0.90 of the new sum.
 * sim: the same rank program, settings, rails (each a simulated plane at the rate's TCP goodput),
 *   sizes, policies and dynamic run under `tsmpi sim`, printed beside the measured figures.
 * scale (simulator only): 256 and 1024 ranks on a two-level fat tree with two rails of
 *   10 and 2.5 Gbit/s, an all-to-all and a halo exchange per policy, and the halo exchange with
 *   the fast rail at half its rate in the middle third of the run.
 *   npm run bench -- rails
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tsmpiRun, type Record as Line } from './lib/jobs.ts';
import { median, param, printTable, writeResults } from './lib/report.ts';
import { SIM_RAIL_LATENCY, simulateRails } from './lib/sim-rails.ts';
import type { Platform } from '../src/sim/platform/platform.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
// The scale part runs the compiled simulator (npm run build), as `tsmpi sim` does: under tsx every
// function carries a kept name, about 2.6 KB per multi-rail link, 2.7 GB at 1024 ranks.
const { fatTree } = (await import(`${root}dist/sim/platform/topologies.js`)) as typeof import('../src/sim/platform/topologies.ts');
const { simulate } = (await import(`${root}dist/sim/simulate.js`)) as typeof import('../src/sim/simulate.ts');
const { buildWorkload } = (await import(`${root}dist/sim/workloads/registry.js`)) as typeof import('../src/sim/workloads/registry.ts');
const railsScript = `${root}test/infra/rails.sh`;
const cli = `${root}dist/cli/main.js`;
const parts = new Set((process.env.PARTS ?? 'real,sim,scale').split(',').filter((p) => p !== ''));
console.log(`# PARTS=${[...parts].join(',')}${process.env.PARTS === undefined ? ' (default)' : ''}: real (namespaces, root), sim (the same under tsmpi sim), scale (simulator, 256 and 1024 ranks)`);
const reps = param('REPS', 5, 'timed messages per size (after one untimed)');
const streamSeconds = param('STREAM_SECONDS', 9, 'length of each dynamic run');
const maxSize = param('MAX_MB', 64, 'largest message, MiB');
const scaleRanks = (process.env.SCALE_RANKS ?? '256,1024').split(',').map(Number);
console.log(`# SCALE_RANKS=${scaleRanks.join(',')}: ranks of the scale part (squares of even numbers: the halo grid is square)`);
const scalePatterns = (process.env.SCALE_PATTERNS ?? 'all-to-all,halo').split(',').filter((p) => p !== '');
console.log(`# SCALE_PATTERNS=${scalePatterns.join(',')}: workloads of the scale part (all-to-all, halo; the rail drop runs with halo)`);
const sizes = [64 << 10, 1 << 20, 8 << 20, 64 << 20].filter((s) => s <= maxSize * 1048576);
const POLICIES = ['round-robin', 'q-learning', 'weighted', 'adaptive'] as const;
// A 1024-rank all-to-all takes 2-45 min and ~13 GB per policy: rows can be run one at a time.
const scalePolicies = (process.env.SCALE_POLICIES ?? ['fast rail only', ...POLICIES].join(',')).split(',').filter((p) => p !== '');
console.log(`# SCALE_POLICIES=${scalePolicies.join(',')}: rows of the scale part ("fast rail only" is the baseline of the speed-ups)`);
const TCP_EFFICIENCY = 1448 / 1514;
const NAMESPACES = ['--procs', '--netns', 'tsmpiA,tsmpiB', '--rendezvous-address', '198.19.0.254'];

function rails(...args: string[]): void {
  const r = spawnSync('bash', [railsScript, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`rails.sh ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
}

const mbit = (text: string): number => Number(text.replace('mbit', ''));
const scenarios = [
  { name: '1:1', rates: ['400mbit', '400mbit'] },
  { name: '4:1', rates: ['800mbit', '200mbit'] },
  { name: '10:1', rates: ['800mbit', '80mbit'] },
];
/** Bytes/s of TCP goodput a tbf rate gives (what a simulated rail carries). */
const goodput = (rate: string): number => (mbit(rate) * 1e6 * TCP_EFFICIENCY) / 8;

interface StaticRow {
  scenario: string;
  policy: string;
  bytes: number;
  seconds: number[];
  mbitPerSecond: number;
  efficiency: number;
  vsFastOnly: number;
}

function envFor(policy: string, rates: readonly string[]): NodeJS.ProcessEnv {
  // The fast rail alone: plain TCP on rail 0 (under the simulator, rail 0 of the platform).
  if (policy === 'fast rail only') return { TSMPI_TCP_ADDRESS: 'rail0', TSMPI_RAILS: '' };
  return { TSMPI_RAILS: rates.map((r, i) => `rail${i}@${r}`).join(','), TSMPI_RAIL_POLICY: policy };
}
const simEnvFor = (policy: string, rates: readonly string[]): NodeJS.ProcessEnv => (policy === 'fast rail only' ? { TSMPI_RAILS: 'rail0' } : envFor(policy, rates));

/** One row per (policy, size) from a run's records. */
function rowsOf(scenario: string, policy: string, records: Line[], available: number, fastOnly: Map<number, number>): StaticRow[] {
  return sizes.map((bytes) => {
    const seconds = records.filter((r: Line) => r.bench === 'rails' && r.bytes === bytes).map((r) => Number(r.seconds));
    const mbps = (bytes * 8) / median(seconds) / 1e6;
    if (policy === 'fast rail only') fastOnly.set(bytes, mbps);
    return { scenario, policy, bytes, seconds, mbitPerSecond: mbps, efficiency: mbps / available, vsFastOnly: mbps / fastOnly.get(bytes)! };
  });
}

const label = (b: number): string => (b >= 1 << 20 ? `${b >> 20} MiB` : `${b >> 10} KiB`);
const small = sizes.filter((b) => b <= 1 << 20);
const large = sizes.filter((b) => b > 1 << 20);
// Messages of 1 MiB and less take milliseconds: many more of them, for a stable median.
const staticArgs = (sizesOf: number[], many: boolean): (string | number)[] => ['static', many ? 2 : 1, many ? reps * 4 : reps, ...sizesOf];

// ---- real: static ---------------------------------------------------------------------------

const realRows: StaticRow[] = [];
const segRows: { segMax: string; policy: string; bytes: number; efficiency: number }[] = [];
const states: { scenario: string; policy: string; state: string }[] = [];
let realReady = false;
if (parts.has('real')) {
  const check = spawnSync('bash', [railsScript, 'check'], { encoding: 'utf8' });
  if (check.status !== 0) console.log(`# real part skipped: it needs network namespaces and tbf (root): ${check.stdout}${check.stderr}`);
  else realReady = true;
}

if (realReady) {
  try {
    for (const s of scenarios) {
      rails('up', ...s.rates);
      const available = s.rates.reduce((sum, r) => sum + mbit(r), 0) * TCP_EFFICIENCY;
      const fastOnly = new Map<number, number>();
      for (const policy of ['fast rail only', ...POLICIES]) {
        console.log(`# real ${s.name} ${policy}`);
        const records = [
          ...(small.length ? tsmpiRun(2, 'bench/ranks/rails.ts', staticArgs(small, true), envFor(policy, s.rates), NAMESPACES) : []),
          ...(large.length ? tsmpiRun(2, 'bench/ranks/rails.ts', staticArgs(large, false), envFor(policy, s.rates), NAMESPACES) : []),
        ];
        const state = records.findLast((r) => r.bench === 'rails-state');
        if (state) states.push({ scenario: s.name, policy, state: String(state.state) });
        realRows.push(...rowsOf(s.name, policy, records, available, fastOnly));
      }
    }
  } finally {
    rails('down');
  }
  printTable(
    'measured: goodput / sum of available rates (median of REPS messages, 4 x REPS up to 1 MiB), and against the fast rail alone (64 KiB is below TSMPI_RAIL_MIN_SPLIT: every policy sends it whole on rail 0)',
    ['rails', 'policy', ...sizes.map(label)],
    tableRows(realRows),
  );

  // ---- real: segment size at 4:1 -------------------------------------------------------------
  const segSizes = (process.env.SEGS ?? '256k,1M,4M').split(',').filter((x) => x !== '');
  console.log(`# SEGS=${segSizes.join(',')}: TSMPI_SEG_MAX values compared at 4:1 (empty: skip)`);
  if (segSizes.length > 0 && large.length > 0) {
    rails('up', '800mbit', '200mbit');
    try {
      const available = 1000 * TCP_EFFICIENCY;
      for (const segMax of segSizes) {
        for (const policy of ['round-robin', 'adaptive']) {
          console.log(`# real 4:1 ${policy} TSMPI_SEG_MAX=${segMax}`);
          const records = tsmpiRun(2, 'bench/ranks/rails.ts', staticArgs(large, false), { ...envFor(policy, ['800mbit', '200mbit']), TSMPI_SEG_MAX: segMax }, NAMESPACES);
          for (const bytes of large) {
            const seconds = records.filter((r: Line) => r.bench === 'rails' && r.bytes === bytes).map((r) => Number(r.seconds));
            segRows.push({ segMax, policy, bytes, efficiency: (bytes * 8) / median(seconds) / 1e6 / available });
          }
        }
      }
    } finally {
      rails('down');
    }
    printTable(
      'measured: TSMPI_SEG_MAX at 4:1, goodput / sum of available rates',
      ['TSMPI_SEG_MAX', 'policy', ...large.map(label)],
      segSizes.flatMap((segMax) => ['round-robin', 'adaptive'].map((p) => [segMax, p, ...segRows.filter((r) => r.segMax === segMax && r.policy === p).map((r) => r.efficiency.toFixed(2))])),
    );
  }
}

function tableRows(rows: StaticRow[]): string[][] {
  return scenarios.flatMap((s) =>
    ['fast rail only', ...POLICIES].map((p) => [
      `${s.name} (${s.rates.join('+')})`,
      p,
      ...sizes.map((b) => {
        const row = rows.find((r) => r.scenario === s.name && r.policy === p && r.bytes === b)!;
        return p === 'fast rail only' ? `${row.efficiency.toFixed(2)} (${row.mbitPerSecond.toFixed(0)} Mbit/s)` : `${row.efficiency.toFixed(2)} (${row.vsFastOnly.toFixed(2)}x)`;
      }),
    ]),
  );
}

// ---- sim: static ----------------------------------------------------------------------------

const simRows: StaticRow[] = [];
if (parts.has('sim')) {
  console.log(`# sim: two simulated hosts, one crossbar per rail at the rate's TCP goodput, ${SIM_RAIL_LATENCY * 1e6} us per link (a small message's one-way time over TCP here is ~100 us: npm run bench -- tcp); declared compute`);
  for (const s of scenarios) {
    const available = s.rates.reduce((sum, r) => sum + mbit(r), 0) * TCP_EFFICIENCY;
    const fastOnly = new Map<number, number>();
    for (const policy of ['fast rail only', ...POLICIES]) {
      const rates = s.rates.map(goodput);
      const env = simEnvFor(policy, s.rates);
      const records = [
        ...(small.length ? (await simulateRails({ rates, env, args: staticArgs(small, true) })).records : []),
        ...(large.length ? (await simulateRails({ rates, env, args: staticArgs(large, false) })).records : []),
      ];
      simRows.push(...rowsOf(s.name, policy, records, available, fastOnly));
    }
  }
  printTable('simulated (tsmpi sim): goodput / sum of available rates, and against the fast rail alone', ['rails', 'policy', ...sizes.map(label)], tableRows(simRows));
  if (realRows.length > 0) {
    const diffs: number[] = [];
    printTable(
      'measured / simulated goodput as a share of the sum of the rates (* where they differ by more than 0.05)',
      ['rails', 'policy', ...sizes.map(label)],
      scenarios.flatMap((s) =>
        ['fast rail only', ...POLICIES].map((p) => [
          `${s.name} (${s.rates.join('+')})`,
          p,
          ...sizes.map((b) => {
            const m = realRows.find((r) => r.scenario === s.name && r.policy === p && r.bytes === b)!.efficiency;
            const v = simRows.find((r) => r.scenario === s.name && r.policy === p && r.bytes === b)!.efficiency;
            diffs.push(Math.abs(m - v));
            return `${m.toFixed(2)} / ${v.toFixed(2)}${Math.abs(m - v) > 0.05 ? ' *' : ''}`;
          }),
        ]),
      ),
    );
    console.log(`# cells within 0.05: ${diffs.filter((d) => d <= 0.05).length} of ${diffs.length}; by size: ${sizes.map((b, i) => `${label(b)} ${diffs.filter((d, k) => k % sizes.length === i && d <= 0.05).length}/${diffs.length / sizes.length}`).join(', ')}`);
  }
}

// ---- dynamic: the fast rail drops to 50% and recovers ---------------------------------------

interface DynamicResult {
  policy: string;
  messages: { end: number; seconds: number; efficiency: number }[];
  phases: { from: string; sum: number; meanEfficiency: number; adaptSeconds: number | null }[];
}

const rates = ['800mbit', '200mbit'];
const dropAt = streamSeconds / 3;
const recoverAt = (2 * streamSeconds) / 3;
const full = (800 + 200) * TCP_EFFICIENCY;
const dropped = (400 + 200) * TCP_EFFICIENCY;

/** Mean efficiency per phase and the time to 0.90 after each change, from messages with `end` in seconds. */
function phasesOf(policy: string, records: Line[], endOf: (r: Line) => number, changes: readonly number[]): DynamicResult {
  const sums = [full, dropped, full];
  const bounds = [-Infinity, changes[0] ?? Infinity, changes[1] ?? Infinity, Infinity];
  const messages = records
    .filter((r) => r.bench === 'rails-stream')
    .map((r) => {
      const end = endOf(r);
      const phase = end < bounds[1]! ? 0 : end < bounds[2]! ? 1 : 2;
      return { end, seconds: Number(r.seconds), efficiency: (Number(r.bytes) * 8) / Number(r.seconds) / 1e6 / sums[phase]!, phase };
    });
  const phases = sums.map((sum, phase) => {
    const inPhase = messages.filter((m) => m.phase === phase);
    // A message that started before the change mixes both states: judge from the first one sent after it.
    const after = inPhase.filter((m) => phase === 0 || m.end - m.seconds >= bounds[phase]!);
    // Adapted: from the first message whose rolling mean with the next two is >= 0.90 of the new sum.
    let adapt: number | null = null;
    if (phase > 0) {
      for (let i = 0; i + 3 <= after.length; i++) {
        if (after.slice(i, i + 3).reduce((a, m) => a + m.efficiency, 0) / 3 >= 0.9) {
          adapt = after[i]!.end - bounds[phase]!;
          break;
        }
      }
    }
    const settled = phase === 0 ? after.slice(2) : after;
    return { from: ['start', 'fast rail at 50%', 'fast rail back'][phase]!, sum, meanEfficiency: settled.length ? settled.reduce((a, m) => a + m.efficiency, 0) / settled.length : 0, adaptSeconds: adapt };
  });
  return { policy, messages, phases };
}

async function realStream(policy: string): Promise<DynamicResult> {
  rails('up', ...rates);
  const lines: Line[] = [];
  const changes: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'run', '-n', '2', ...NAMESPACES, `${root}bench/ranks/rails.ts`, 'stream', String(16 << 20), String(streamSeconds)], {
      env: { ...process.env, ...envFor(policy, rates) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pending = '';
    let started = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        const record = JSON.parse(line) as Line;
        lines.push(record);
        if (record.bench === 'rails-stream' && started === 0) {
          // The stream has started: schedule the drop and the recovery from now.
          started = Date.now();
          setTimeout(() => {
            changes.push(Date.now() / 1000);
            rails('rate', '0', '400mbit');
          }, (dropAt - 0.2) * 1000);
          setTimeout(() => {
            changes.push(Date.now() / 1000);
            rails('rate', '0', '800mbit');
          }, (recoverAt - 0.2) * 1000);
        }
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`stream run of ${policy} exited ${code}`))));
  });
  rails('down');
  return phasesOf(policy, lines, (r) => Number(r.end) / 1000, changes);
}

async function simStream(policy: string): Promise<DynamicResult> {
  // Rail 0 at half its rate in the same window of the stream, in virtual seconds.
  const profile = [
    { time: dropAt, factor: 0.5 },
    { time: recoverAt, factor: 1 },
  ];
  const { records } = await simulateRails({ rates: rates.map(goodput), profile, env: envFor(policy, rates), args: ['stream', 16 << 20, streamSeconds] });
  return phasesOf(policy, records, (r) => Number(r.clock), [dropAt, recoverAt]);
}

const dynamicTitle = (what: string): string =>
  `${what}: 16 MiB messages back to back at 800+200 Mbit/s; rail 0 drops to 400 at ${dropAt.toFixed(1)} s and recovers at ${recoverAt.toFixed(1)} s: mean goodput / sum of available rates, and seconds from each change until messages reach 0.90 of the new sum (rolling mean of 3, ~0.15 s each)`;
const dynamicRows = (results: DynamicResult[]): string[][] =>
  results.map((d) => [
    d.policy,
    d.phases[0]!.meanEfficiency.toFixed(2),
    d.phases[1]!.meanEfficiency.toFixed(2),
    d.phases[1]!.adaptSeconds === null ? 'never' : d.phases[1]!.adaptSeconds.toFixed(2),
    d.phases[2]!.meanEfficiency.toFixed(2),
    d.phases[2]!.adaptSeconds === null ? 'never' : d.phases[2]!.adaptSeconds.toFixed(2),
  ]);
const dynamicHeader = ['policy', 'before', 'rail 0 at 50%', 'adapt s', 'recovered', 'adapt s'];

const realDynamic: DynamicResult[] = [];
if (realReady) {
  for (const policy of POLICIES) {
    console.log(`# real dynamic ${policy}`);
    realDynamic.push(await realStream(policy));
  }
  printTable(dynamicTitle('measured, dynamic'), dynamicHeader, dynamicRows(realDynamic));
}
const simDynamic: DynamicResult[] = [];
if (parts.has('sim')) {
  for (const policy of POLICIES) simDynamic.push(await simStream(policy));
  printTable(dynamicTitle('simulated, dynamic'), dynamicHeader, dynamicRows(simDynamic));
}

// ---- scale: 256 and 1024 ranks, two rails on a fat tree (simulator) -------------------------

interface ScaleRow {
  ranks: number;
  pattern: string;
  policy: string;
  makespan: number;
  drop?: boolean;
  wallSeconds: number;
}
const scaleRows: ScaleRow[] = [];
const FAST = 1.25e9;
const SLOW = 3.125e8;

function scalePlatform(ranks: number, drop?: { from: number; to: number }): Platform {
  const side = Math.round(Math.sqrt(ranks));
  return fatTree({
    // Full bisection: `side` hosts per leaf switch, one uplink from each leaf to each top switch.
    shape: `2;${side},${side};1,${side};1,1`,
    hostBandwidth: FAST,
    latency: 1e-6,
    speed: 1e9,
    rails: [
      { bandwidth: FAST, latency: 1e-6, ...(drop ? { profile: [{ time: drop.from, factor: 0.5 }, { time: drop.to, factor: 1 }] } : {}) },
      { bandwidth: SLOW, latency: 2e-6 },
    ],
    source: `fat tree ${side}x${side}, 10 + 2.5 Gbit/s rails`,
  });
}

const workloads: Record<string, (ranks: number) => string[]> = {
  // Every pair, 256 KiB each way (above TSMPI_RAIL_MIN_SPLIT: split over the rails), one step, in
  // n - 1 pairwise rounds (all at once, 1024 ranks hold a million transfers: over 15 GB).
  'all-to-all': (ranks) => [`ranks=${ranks}`, 'steps=1', 'bytes=262144', 'flops=0', 'p2p=true', 'rounds=true'],
  // A 2-D halo of 4 MiB faces, 4 steps, 1 ms of compute a step.
  halo: (ranks) => [`px=${Math.round(Math.sqrt(ranks))}`, `py=${Math.round(Math.sqrt(ranks))}`, 'steps=4', 'bytes=4194304', 'flops=1e6'],
};

async function scaleRun(ranks: number, pattern: string, policy: string, drop?: { from: number; to: number }): Promise<ScaleRow> {
  const program = buildWorkload(pattern === 'halo' ? 'stencil2d' : pattern, workloads[pattern]!(ranks), ranks, 1);
  const env = policy === 'fast rail only' ? { TSMPI_RAILS: 'rail0' } : { TSMPI_RAIL_POLICY: policy };
  const result = await simulate({ program, platform: scalePlatform(ranks, drop), network: 'flow', env: { ...process.env, ...env } });
  const row = { ranks, pattern, policy, makespan: result.makespan, ...(drop ? { drop: true } : {}), wallSeconds: result.wallSeconds };
  console.log(`# scale ${ranks} ${pattern} ${policy}${drop ? ' (rail 0 at 50% mid-run)' : ''}: ${row.makespan.toFixed(4)} s (${row.wallSeconds.toFixed(1)} s to simulate)`);
  return row;
}

if (parts.has('scale')) {
  for (const ranks of scaleRanks) {
    for (const pattern of Object.keys(workloads).filter((p) => scalePatterns.includes(p))) {
      for (const policy of ['fast rail only', ...POLICIES].filter((p) => scalePolicies.includes(p))) scaleRows.push(await scaleRun(ranks, pattern, policy));
    }
    if (!scalePatterns.includes('halo')) continue;
    // The fast rail at half its rate in the middle third of the fast-rail-only halo run.
    const baseRow = scaleRows.find((r) => r.ranks === ranks && r.pattern === 'halo' && r.policy === 'fast rail only');
    if (baseRow === undefined) continue;
    const base = baseRow.makespan;
    for (const policy of ['fast rail only', ...POLICIES].filter((p) => scalePolicies.includes(p))) scaleRows.push(await scaleRun(ranks, 'halo', policy, { from: base / 3, to: (2 * base) / 3 }));
  }
  const cell = (ranks: number, pattern: string, policy: string, drop = false): string => {
    const row = scaleRows.find((r) => r.ranks === ranks && r.pattern === pattern && r.policy === policy && (r.drop ?? false) === drop);
    const fast = scaleRows.find((r) => r.ranks === ranks && r.pattern === pattern && r.policy === 'fast rail only' && (r.drop ?? false) === drop);
    if (row === undefined || fast === undefined) return '-';
    return policy === 'fast rail only' ? `${(row.makespan * 1e3).toFixed(1)} ms` : `${(row.makespan * 1e3).toFixed(1)} ms (${(fast.makespan / row.makespan).toFixed(2)}x)`;
  };
  printTable(
    'simulated at scale: makespan per policy (and speed-up over the fast rail alone), two-level fat tree, rails of 10 and 2.5 Gbit/s; ideal speed-up 1.25x',
    ['ranks', 'policy', 'all-to-all 256 KiB', 'halo 4 MiB x 4 steps', 'halo, rail 0 at 50% mid-run'],
    scaleRanks.flatMap((ranks) => ['fast rail only', ...POLICIES].map((p) => [String(ranks), p, cell(ranks, 'all-to-all', p), cell(ranks, 'halo', p), cell(ranks, 'halo', p, true)])),
  );
}

writeResults('rails', { tcpEfficiency: TCP_EFFICIENCY, simRailLatency: SIM_RAIL_LATENCY, scenarios, sizes, static: realRows, simulated: simRows, segments: segRows, dynamic: realDynamic, simulatedDynamic: simDynamic, scale: scaleRows, states });
