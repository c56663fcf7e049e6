// node scratch/ab.mjs REPS N OPS SIZE "ENV1" "ENV2" ...   (ENV as "A=1 B=2" or "-")
import { execFileSync } from 'node:child_process';
const [reps, n, ops, size, ...variants] = process.argv.slice(2);
const res = new Map(variants.map((v) => [v, new Map()]));
for (let r = 0; r < Number(reps); r++) for (const v of variants) {
  const env = { ...process.env, BENCH_OPS: ops };
  if (v !== '-') for (const kv of v.split(' ')) { const [k, x] = kv.split('='); env[k] = x; }
  const out = execFileSync('node', ['dist/cli/main.js', 'run', '-n', n, 'bench/ranks/collectives.ts', ...size.split(',')], { env, encoding: 'utf8' });
  for (const line of out.split('\n')) { if (!line.startsWith('{')) continue; const j = JSON.parse(line); const k = `${j.op} ${j.bytes}`; const m = res.get(v); if (!m.has(k)) m.set(k, []); m.get(k).push(j.us); }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
for (const [v, m] of res) for (const [k, a] of m) console.log(`${n} ranks ${k.padEnd(16)} ${v.padEnd(30)} median ${med(a).toFixed(3)} [${Math.min(...a).toFixed(3)}-${Math.max(...a).toFixed(3)}]`);
