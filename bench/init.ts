/**
 * On-demand initialisation (seed 5): what 64 ranks hold with TSMPI_CG_PER_PROCESS = 1, 2, 4, 8
 * and with a mapping file (every 4th id, reversed), as worker threads of one process and as 64
 * processes: members, links, reserved ring space, heap per rank, RSS, and init time.
 *   npm run bench -- init        (MODES=threads,procs RANKS=64 REPS=3)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, param, printTable, spread, writeResults } from './lib/report.ts';

const reps = param('REPS', 3, 'repetitions');
const ranks = param('RANKS', 64, 'ranks');
const modes = (process.env.MODES ?? 'threads,procs').split(',');
console.log(`# MODES=${modes.join(',')}${process.env.MODES ? '' : ' (default)'}: worker threads of one process, and/or one process per rank`);
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const program = fileURLToPath(new URL('./ranks/init-state.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-init-bench-'));
const mapping = join(dir, 'every-4th-reversed.txt');
writeFileSync(mapping, `${Array.from({ length: ranks / 4 }, (_, i) => ranks - 4 - 4 * i).join('\n')}\n`);

interface Line {
  resource: number;
  member: boolean;
  links: number;
  arenaBytes: number;
  heapBytes: number;
  rssBytes: number;
  pid: number;
  initMs: number;
}

const variants: [string, NodeJS.ProcessEnv][] = [
  ['k=1 (plain)', { TSMPI_CG_PER_PROCESS: '1' }],
  ['k=2', { TSMPI_CG_PER_PROCESS: '2' }],
  ['k=4', { TSMPI_CG_PER_PROCESS: '4' }],
  ['k=8', { TSMPI_CG_PER_PROCESS: '8' }],
  ['mapping (n/4, reversed)', { TSMPI_MAPPING_FILE: mapping }],
];

const MiB = 1024 * 1024;
const results: Record<string, Record<string, number[]>> = {};
for (let rep = 0; rep < reps; rep++) {
  for (const mode of modes) {
    for (const [name, env] of variants) {
      const args = ['run', '-n', String(ranks), ...(mode === 'procs' ? ['--procs'] : []), program];
      const t0 = performance.now();
      const out = spawnSync(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
      const wallMs = performance.now() - t0;
      if (out.status !== 0) throw new Error(`${name} (${mode}) failed:\n${out.stderr}`);
      const lines = out.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);
      const members = lines.filter((l) => l.member);
      const byPid = new Map<number, number>();
      for (const l of lines) byPid.set(l.pid, Math.max(byPid.get(l.pid) ?? 0, l.rssBytes));
      const arenaByPid = new Map<number, number>();
      for (const l of members) arenaByPid.set(l.pid, l.arenaBytes);
      const key = `${mode}|${name}`;
      const r = (results[key] ??= {});
      const push = (k: string, v: number): void => void (r[k] ??= []).push(v);
      push('members', members.length);
      push('links', members.reduce((n, l) => n + l.links, 0));
      push('nonMemberLinks', lines.filter((l) => !l.member).reduce((n, l) => n + l.links, 0));
      push('arenaMiB', [...arenaByPid.values()].reduce((a, b) => a + b, 0) / MiB);
      push('heapMiBPerRank', lines.reduce((n, l) => n + l.heapBytes, 0) / lines.length / MiB);
      push('heapMiBPerMember', members.reduce((n, l) => n + l.heapBytes, 0) / Math.max(1, members.length) / MiB);
      push('rssMiBTotal', [...byPid.values()].reduce((a, b) => a + b, 0) / MiB);
      push('initMsMax', Math.max(...members.map((l) => l.initMs)));
      push('wallMs', wallMs);
    }
  }
  process.stdout.write(`# rep ${rep + 1}/${reps} done\n`);
}

for (const mode of modes) {
  const rows = variants.map(([name]) => {
    const r = results[`${mode}|${name}`]!;
    return [
      name,
      median(r.members!),
      median(r.links!),
      median(r.nonMemberLinks!),
      spread(r.arenaMiB!),
      spread(r.heapMiBPerMember!),
      spread(r.heapMiBPerRank!),
      spread(r.rssMiBTotal!),
      spread(r.initMsMax!),
      spread(r.wallMs!),
    ];
  });
  printTable(
    `On-demand init, ${ranks} ranks as ${mode === 'procs' ? 'processes' : 'worker threads of one process'} (median [min-max] of ${reps})`,
    ['variant', 'members', 'links (all members)', 'links (non-members)', 'ring space reserved MiB', 'heap MiB / member', 'heap MiB / rank', 'RSS MiB (all processes)', 'init ms (last member)', 'job wall ms'],
    rows,
  );
}
writeResults('init', { ranks, results });
