import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSimgrid } from './bench/lib/simgrid.ts';
import { compilePrograms, traceProgram, simgridCopy, programCases, platformXml, compareTrace, MODELS } from './bench/lib/simgrid-programs.ts';
const tools = findSimgrid()!;
const np = Number(process.env.N ?? 1024);
const root = `/tmp/sg4/w${np}`;
const bins = compilePrograms(join(root, 'bin'));
for (const [i, c] of programCases(np).entries()) {
  if (process.env.ONLY && !process.env.ONLY.split(',').includes(c.program)) continue;
  const dir = join(root, `case-${i}`);
  let t0 = performance.now();
  const index = traceProgram(tools, bins.get(c.program)!, c, dir);
  console.log(`${c.name}: traced in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const sgIndex = simgridCopy(index);
  const pdir = join(dir, 'fat-tree'); mkdirSync(pdir, { recursive: true });
  const platform = join(pdir, 'platform.xml'); writeFileSync(platform, platformXml('fat-tree', np));
  const rows = compareTrace(tools, index, sgIndex, platform, np, pdir, MODELS.slice(0, Number(process.env.M ?? 3)));
  console.log(rows.map((r) => `${r.model}: ${r.simgrid} ${r.tsmpi} ${(r.difference * 100).toFixed(2)}% wall ${r.simgridWallSeconds.toFixed(1)}/${r.tsmpiWallSeconds.toFixed(1)}`).join('\n'));
}
