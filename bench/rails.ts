/**
 * Multi-rail scheduling over real shaped networks: two network namespaces joined by two veth
 * rails shaped with tbf (test/infra/rails.sh, root only), one rank in each. For rail sets 1:1, 4:1
 * and 10:1 and messages of 64 KiB to 64 MiB, the goodput of each policy against the fast rail
 * alone (plain TCP on rail 0, measured in the same invocation), as a share of the sum of the
 * available rates (tbf rate x 1448/1514: TCP/IP headers in 1514-byte frames). Then a dynamic run:
 * 16 MiB messages back to back at 4:1 while the fast rail drops to 50% and later recovers, with
 * the time each policy takes to get back to 0.90 of the new sum.
 *   npm run bench -- rails
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tsmpiRun, type Record } from './lib/jobs.ts';
import { median, param, printTable, writeResults } from './lib/report.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const railsScript = `${root}test/infra/rails.sh`;
const cli = `${root}dist/cli/main.js`;
const reps = param('REPS', 5, 'timed messages per size (after one untimed)');
const streamSeconds = param('STREAM_SECONDS', 9, 'length of each dynamic run');
const maxSize = param('MAX_MB', 64, 'largest message, MiB');
const sizes = [64 << 10, 1 << 20, 8 << 20, 64 << 20].filter((s) => s <= maxSize * 1048576);
const POLICIES = ['round-robin', 'q-learning', 'weighted', 'adaptive'] as const;
const TCP_EFFICIENCY = 1448 / 1514;
const NAMESPACES = ['--procs', '--netns', 'tsmpiA,tsmpiB', '--rendezvous-address', '198.19.0.254'];

function rails(...args: string[]): void {
  const r = spawnSync('bash', [railsScript, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`rails.sh ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
}

const check = spawnSync('bash', [railsScript, 'check'], { encoding: 'utf8' });
if (check.status !== 0) {
  console.error(`bench rails needs network namespaces and tbf (root): ${check.stdout}${check.stderr}`);
  process.exit(1);
}

const mbit = (text: string): number => Number(text.replace('mbit', ''));
const scenarios = [
  { name: '1:1', rates: ['400mbit', '400mbit'] },
  { name: '4:1', rates: ['800mbit', '200mbit'] },
  { name: '10:1', rates: ['800mbit', '80mbit'] },
];

interface StaticRow {
  scenario: string;
  policy: string;
  bytes: number;
  seconds: number[];
  mbitPerSecond: number;
  efficiency: number;
  vsFastOnly: number;
}

const staticRows: StaticRow[] = [];
const states: { scenario: string; policy: string; state: string }[] = [];

function envFor(policy: string, rates: readonly string[]): NodeJS.ProcessEnv {
  if (policy === 'fast rail only') return { TSMPI_TCP_ADDRESS: 'rail0', TSMPI_RAILS: '' };
  return { TSMPI_RAILS: rates.map((r, i) => `rail${i}@${r}`).join(','), TSMPI_RAIL_POLICY: policy };
}

try {
  for (const s of scenarios) {
    rails('up', ...s.rates);
    const available = s.rates.reduce((sum, r) => sum + mbit(r), 0) * TCP_EFFICIENCY;
    const fastOnly = new Map<number, number>();
    for (const policy of ['fast rail only', ...POLICIES]) {
      console.log(`# ${s.name} ${policy}`);
      // Messages of 1 MiB and less take milliseconds: many more of them, for a stable median.
      const small = sizes.filter((b) => b <= 1 << 20);
      const large = sizes.filter((b) => b > 1 << 20);
      const records = [
        ...(small.length ? tsmpiRun(2, 'bench/ranks/rails.ts', ['static', 2, reps * 4, ...small], envFor(policy, s.rates), NAMESPACES) : []),
        ...(large.length ? tsmpiRun(2, 'bench/ranks/rails.ts', ['static', 1, reps, ...large], envFor(policy, s.rates), NAMESPACES) : []),
      ];
      const state = records.findLast((r) => r.bench === 'rails-state');
      if (state) states.push({ scenario: s.name, policy, state: String(state.state) });
      for (const bytes of sizes) {
        const seconds = records.filter((r: Record) => r.bench === 'rails' && r.bytes === bytes).map((r) => Number(r.seconds));
        const mbps = (bytes * 8) / median(seconds) / 1e6;
        if (policy === 'fast rail only') fastOnly.set(bytes, mbps);
        staticRows.push({ scenario: s.name, policy, bytes, seconds, mbitPerSecond: mbps, efficiency: mbps / available, vsFastOnly: mbps / fastOnly.get(bytes)! });
      }
    }
  }
} finally {
  rails('down');
}

const label = (b: number): string => (b >= 1 << 20 ? `${b >> 20} MiB` : `${b >> 10} KiB`);
printTable(
  'goodput / sum of available rates (median of REPS messages, 4 x REPS up to 1 MiB), and against the fast rail alone (64 KiB is below TSMPI_RAIL_MIN_SPLIT: every policy sends it whole on rail 0)',
  ['rails', 'policy', ...sizes.map(label)],
  scenarios.flatMap((s) =>
    ['fast rail only', ...POLICIES].map((p) => [
      `${s.name} (${s.rates.join('+')})`,
      p,
      ...sizes.map((b) => {
        const row = staticRows.find((r) => r.scenario === s.name && r.policy === p && r.bytes === b)!;
        return p === 'fast rail only' ? `${row.efficiency.toFixed(2)} (${row.mbitPerSecond.toFixed(0)} Mbit/s)` : `${row.efficiency.toFixed(2)} (${row.vsFastOnly.toFixed(2)}x)`;
      }),
    ]),
  ),
);

// ---- segment size: TSMPI_SEG_MAX at 4:1 ---------------------------------------------------------

const segSizes = (process.env.SEGS ?? '256k,1M,4M').split(',').filter((x) => x !== '');
console.log(`# SEGS=${segSizes.join(',')}: TSMPI_SEG_MAX values compared at 4:1 (empty: skip)`);
const segRows: { segMax: string; policy: string; bytes: number; efficiency: number }[] = [];
if (segSizes.length > 0) {
  rails('up', '800mbit', '200mbit');
  try {
    const available = 1000 * TCP_EFFICIENCY;
    for (const segMax of segSizes) {
      for (const policy of ['round-robin', 'adaptive']) {
        console.log(`# 4:1 ${policy} TSMPI_SEG_MAX=${segMax}`);
        const records = tsmpiRun(2, 'bench/ranks/rails.ts', ['static', 1, reps, ...sizes.filter((b) => b >= 8 << 20)], { ...envFor(policy, ['800mbit', '200mbit']), TSMPI_SEG_MAX: segMax }, NAMESPACES);
        for (const bytes of sizes.filter((b) => b >= 8 << 20)) {
          const seconds = records.filter((r: Record) => r.bench === 'rails' && r.bytes === bytes).map((r) => Number(r.seconds));
          segRows.push({ segMax, policy, bytes, efficiency: (bytes * 8) / median(seconds) / 1e6 / available });
        }
      }
    }
  } finally {
    rails('down');
  }
  printTable(
    'TSMPI_SEG_MAX at 4:1: goodput / sum of available rates',
    ['TSMPI_SEG_MAX', 'policy', ...sizes.filter((b) => b >= 8 << 20).map(label)],
    segSizes.flatMap((segMax) => ['round-robin', 'adaptive'].map((p) => [segMax, p, ...segRows.filter((r) => r.segMax === segMax && r.policy === p).map((r) => r.efficiency.toFixed(2))])),
  );
}

// ---- dynamic: the fast rail drops to 50% and recovers -----------------------------------------

interface DynamicResult {
  policy: string;
  messages: { end: number; seconds: number; efficiency: number }[];
  phases: { from: string; sum: number; meanEfficiency: number; adaptSeconds: number | null }[];
}

const dynamic: DynamicResult[] = [];
const rates = ['800mbit', '200mbit'];
const dropAt = streamSeconds / 3;
const recoverAt = (2 * streamSeconds) / 3;

async function streamRun(policy: string): Promise<DynamicResult> {
  rails('up', ...rates);
  const lines: Record[] = [];
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
        const record = JSON.parse(line) as Record;
        lines.push(record);
        if (record.bench === 'rails-stream' && started === 0) {
          // The stream has started: schedule the drop and the recovery from now.
          started = Date.now();
          setTimeout(() => {
            changes.push(Date.now());
            rails('rate', '0', '400mbit');
          }, (dropAt - 0.2) * 1000);
          setTimeout(() => {
            changes.push(Date.now());
            rails('rate', '0', '800mbit');
          }, (recoverAt - 0.2) * 1000);
        }
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`stream run of ${policy} exited ${code}`))));
  });
  rails('down');
  const full = (800 + 200) * TCP_EFFICIENCY;
  const dropped = (400 + 200) * TCP_EFFICIENCY;
  const sums = [full, dropped, full];
  const bounds = [-Infinity, changes[0] ?? Infinity, changes[1] ?? Infinity, Infinity];
  const messages = lines
    .filter((r) => r.bench === 'rails-stream')
    .map((r) => {
      const end = Number(r.end);
      const phase = end < bounds[1]! ? 0 : end < bounds[2]! ? 1 : 2;
      return { end, seconds: Number(r.seconds), efficiency: (Number(r.bytes) * 8) / Number(r.seconds) / 1e6 / sums[phase]!, phase };
    });
  const phases = sums.map((sum, phase) => {
    const inPhase = messages.filter((m) => m.phase === phase);
    // A message that started before the change mixes both states: judge from the first one sent after it.
    const after = inPhase.filter((m) => phase === 0 || m.end - m.seconds * 1000 >= bounds[phase]!);
    // Adapted: from the first message whose rolling mean with the next two is >= 0.90 of the new sum.
    let adapt: number | null = null;
    if (phase > 0) {
      for (let i = 0; i + 3 <= after.length; i++) {
        if (after.slice(i, i + 3).reduce((a, m) => a + m.efficiency, 0) / 3 >= 0.9) {
          adapt = (after[i]!.end - bounds[phase]!) / 1000;
          break;
        }
      }
    }
    const settled = phase === 0 ? after.slice(2) : after;
    return { from: ['start', 'fast rail at 50%', 'fast rail back'][phase]!, sum, meanEfficiency: settled.length ? settled.reduce((a, m) => a + m.efficiency, 0) / settled.length : 0, adaptSeconds: adapt };
  });
  return { policy, messages, phases };
}

for (const policy of POLICIES) {
  console.log(`# dynamic ${policy}`);
  dynamic.push(await streamRun(policy));
}

printTable(
  `dynamic: 16 MiB messages back to back at 800+200 Mbit/s; rail 0 drops to 400 at ${dropAt.toFixed(1)} s and recovers at ${recoverAt.toFixed(1)} s: mean goodput / sum of available rates, and seconds from each change until messages reach 0.90 of the new sum (rolling mean of 3, ~0.15 s each)`,
  ['policy', 'before', 'rail 0 at 50%', 'adapt s', 'recovered', 'adapt s'],
  dynamic.map((d) => [
    d.policy,
    d.phases[0]!.meanEfficiency.toFixed(2),
    d.phases[1]!.meanEfficiency.toFixed(2),
    d.phases[1]!.adaptSeconds === null ? 'never' : d.phases[1]!.adaptSeconds.toFixed(2),
    d.phases[2]!.meanEfficiency.toFixed(2),
    d.phases[2]!.adaptSeconds === null ? 'never' : d.phases[2]!.adaptSeconds.toFixed(2),
  ]),
);

const file = writeResults('rails', { tcpEfficiency: TCP_EFFICIENCY, scenarios, sizes, static: staticRows, segments: segRows, dynamic, states });
console.log(`\n# results: ${file}`);
