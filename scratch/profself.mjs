import { readFileSync } from 'node:fs';
const files = process.argv.slice(2);
const self = new Map(); let total = 0;
for (const f of files) {
  const p = JSON.parse(readFileSync(f, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  for (const [id, t] of dt) { const n = byId.get(id); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-1)[0]}:${cf.lineNumber}`; self.set(key, (self.get(key) ?? 0) + t); total += t; }
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40));
for (const [k, t] of rows) console.log((t / 1000).toFixed(1).padStart(9), 'ms', (100 * t / total).toFixed(1).padStart(5), '%', k);
console.log('total', (total / 1000).toFixed(0), 'ms');
