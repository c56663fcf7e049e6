import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findSimgrid } from '/work/main/bench/lib/simgrid.ts';
import { compilePrograms, traceProgram, simgridCopy, programCases, platformXml, PLATFORM_KINDS, compareTrace } from '/work/main/bench/lib/simgrid-programs.ts';
const tools = findSimgrid()!;
const np = Number(process.env.N ?? 16);
const root = `/tmp/sg4/w${np}`;
const bins = compilePrograms(join(root, 'bin'));
const only = process.env.ONLY;
for (const [i, c] of programCases(np).entries()) {
  if (only && !c.program.startsWith(only)) continue;
  const dir = join(root, `case-${i}`);
  const index = traceProgram(tools, bins.get(c.program)!, c, dir);
  const sgIndex = simgridCopy(index);
  for (const kind of (process.env.PLATS?.split(',') ?? PLATFORM_KINDS)) {
    const pdir = join(dir, kind); mkdirSync(pdir, { recursive: true });
    const platform = join(pdir, 'platform.xml'); writeFileSync(platform, platformXml(kind as never, np));
    try {
      const rows = compareTrace(tools, index, sgIndex, platform, np, pdir);
      console.log(`${c.name} | ${kind} | ` + rows.map((r) => `${r.model}: ${r.simgrid.toExponential(4)} ${r.tsmpi.toExponential(4)} ${(r.difference*100).toFixed(2)}% (${r.simgridWallSeconds.toFixed(2)}/${r.tsmpiWallSeconds.toFixed(2)}s)`).join(' | '));
    } catch (e) { console.log(`${c.name} | ${kind} | ERROR ${(e as Error).message.slice(0, 600)}`); }
  }
}
