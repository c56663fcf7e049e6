/**
 * What a timeline costs (`--trace`): ping-pong one-way latency with the rank's recorder on
 * against the same run without it, on 2 thread ranks (shared memory) and 2 processes (TCP), and
 * the cost of one event: the extra time of a round trip divided by the 12 events it records
 * (each rank: a send and a receive slice, begin and end, and the message sent or matched).
 *   npm run bench -- trace
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, sizeLabel } from './lib/compare.ts';
import { tsmpiRun } from './lib/jobs.ts';
import { param, printTable, writeResults } from './lib/report.ts';

const reps = param('REPS', 5, 'interleaved repetitions');
const dir = mkdtempSync(join(tmpdir(), 'tsmpi-trace-bench-'));
const sizes = [8, 65536];
const EVENTS_PER_ROUND_TRIP = 12;

try {
  const rows: string[][] = [];
  const costs: Record<string, number> = {};
  for (const [mode, runArgs] of [
    ['threads', []],
    ['--procs', ['--procs']],
  ] as const) {
    const medians = { on: new Map<number, number[]>(), off: new Map<number, number[]>() };
    const pick = (records: { [k: string]: number | string }[], bytes: number): number | undefined => records.find((r) => r.bench === 'pingpong' && r.bytes === bytes)?.oneWayUs as number | undefined;
    compare({
      name: `trace-pingpong-${mode.replace(/\W/g, '')}`,
      title: `Ping-pong one-way latency, 2 ranks (${mode}), tsmpi = with --trace, against the same run without`,
      unit: 'us',
      better: 'lower',
      reps,
      figures: sizes.map((b) => ({
        label: sizeLabel(b),
        pick: (r) => {
          const v = pick(r, b);
          return v;
        },
      })),
      runTsmpi: () => {
        const records = tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...sizes], { TSMPI_TRACE: join(dir, `t-${mode.replace(/\W/g, '')}.json`) }, [...runArgs]);
        for (const b of sizes) medians.on.set(b, [...(medians.on.get(b) ?? []), pick(records, b)!]);
        return records;
      },
      peers: [
        {
          name: 'without --trace',
          run: () => {
            const records = tsmpiRun(2, 'bench/ranks/p2p.ts', ['pingpong', ...sizes], {}, [...runArgs]);
            for (const b of sizes) medians.off.set(b, [...(medians.off.get(b) ?? []), pick(records, b)!]);
            return records;
          },
        },
      ],
    });
    for (const b of sizes) {
      const sorted = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
      const on = sorted(medians.on.get(b)!);
      const off = sorted(medians.off.get(b)!);
      const ns = (((on - off) * 2) / EVENTS_PER_ROUND_TRIP) * 1000;
      costs[`${mode} ${sizeLabel(b)}`] = ns;
      rows.push([mode, sizeLabel(b), on.toFixed(2), off.toFixed(2), ns.toFixed(0)]);
    }
  }
  printTable('Cost of one timeline event (median round trip with --trace minus without, / 12 events)', ['mode', 'size', 'on us', 'off us', 'ns per event'], rows);
  writeResults('trace-cost', { nsPerEvent: costs });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
