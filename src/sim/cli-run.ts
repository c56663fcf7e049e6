/**
 * What `tsmpi sim` does with its flags: builds the platform, runs the program (or trace, or
 * workload) with simulate(), shows progress on long runs, prints the summary and writes JSON and
 * a Chrome trace when asked.
 */
import { writeFileSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import { ErrorCode, TsmpiError } from '../comm/errors.js';
import { writeChromeTrace } from './output/chrome-trace.js';
import { printSummary, summarize } from './output/summary.js';
import { loadPlatformFile } from './platform/load.js';
import type { Action } from './replay/actions.js';
import { loadTiTraces, writeTiTraceFiles } from './replay/ti-trace.js';
import { simulate, traceWorld, type NetworkKind } from './simulate.js';
import { buildWorkload, listWorkloads } from './workloads/registry.js';

export interface SimCliOptions {
  np?: number;
  platform?: string;
  network: string;
  compute: string;
  ranksPerHost: number;
  referenceSpeed: number;
  solveInterval: number;
  messageOverhead: number;
  localMessageOverhead: number;
  replay?: string;
  workload?: string;
  param: string[];
  listWorkloads: boolean;
  emitTrace?: string;
  seed: number;
  json?: string;
  trace?: string;
  quiet: boolean;
}

function simError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { operation: 'tsmpi sim', hint });
}

/** Prints the workload generators and their parameters. */
function printWorkloads(): void {
  for (const w of listWorkloads()) {
    const names = [w.name, ...w.aliases].join(', ');
    process.stdout.write(`${names}\n  ${w.description}\n`);
    for (const p of w.params) {
      const dflt = p.default === undefined ? 'required' : p.default === 'auto' ? 'default: derived' : `default: ${String(p.default)}`;
      process.stdout.write(`    ${p.name.padEnd(18)} ${p.kind.padEnd(6)} ${p.doc} (${dflt})\n`);
    }
  }
}

export async function runSimulation(programPath: string | undefined, args: string[], flags: SimCliOptions): Promise<number> {
  if (flags.listWorkloads) {
    printWorkloads();
    return 0;
  }
  if (flags.compute !== 'measured' && flags.compute !== 'declared') throw simError(`--compute ${flags.compute} is not a compute mode`, 'use measured or declared');
  if (flags.network !== 'flow' && flags.network !== 'delay') throw simError(`--network ${flags.network} is not a network model`, 'use flow (max-min sharing) or delay (no contention)');
  const sources = [programPath, flags.replay, flags.workload].filter((x) => x !== undefined).length;
  if (sources === 0) throw simError('no program, trace or workload to simulate', 'give a program, --replay TRACE or --workload NAME');
  if (sources > 1) throw simError('give one of a program, --replay TRACE and --workload NAME', 'a trace or a workload replaces the program');
  let program: string | Map<number, Action[]>;
  let label: string;
  if (programPath !== undefined) {
    program = programPath;
    label = programPath;
  } else {
    program = flags.replay !== undefined ? await loadTiTraces(flags.replay) : buildWorkload(flags.workload!, flags.param, flags.np, flags.seed);
    label = flags.replay ?? `workload ${flags.workload}`;
    const world = traceWorld(program);
    if (flags.np !== undefined && flags.np !== world) {
      throw simError(`-n ${flags.np} does not match the ${world} ranks of ${label}`, 'leave -n out (the trace sets the world size) or give matching parameters');
    }
    if (flags.emitTrace !== undefined) {
      const description = await writeTiTraceFiles(flags.emitTrace, program);
      process.stdout.write(`wrote the ${world}-rank trace of ${label}: ${description}\n`);
      process.stdout.write(`replay it with: smpirun -np ${world} -platform P.xml -hostfile H -replay ${description} smpireplaymain\n`);
      return 0;
    }
  }
  if (flags.emitTrace !== undefined) throw simError('--emit-trace writes the trace of a workload or of --replay', 'give --workload NAME (or --replay TRACE) with it');
  const np = typeof program === 'string' ? (flags.np ?? 1) : traceWorld(program);
  const platform = flags.platform ? await loadPlatformFile(flags.platform) : undefined;
  const bar = flags.quiet || !process.stderr.isTTY ? undefined : new SingleBar({ format: 'simulating [{bar}] {value}/{total} ranks done | {vt} s virtual | {events} events', hideCursor: true, clearOnComplete: true });
  let barStarted = false;
  const started = performance.now();
  const result = await simulate({
    program,
    args,
    np,
    ...(platform ? { platform } : {}),
    network: flags.network as NetworkKind,
    flow: { solveInterval: flags.solveInterval },
    ...(flags.messageOverhead > 0 ? { messageOverhead: flags.messageOverhead } : {}),
    ...(flags.localMessageOverhead > 0 ? { localMessageOverhead: flags.localMessageOverhead } : {}),
    computeMode: flags.compute,
    ranksPerHost: flags.ranksPerHost,
    referenceSpeed: flags.referenceSpeed,
    record: flags.trace !== undefined,
    onProgress: (p) => {
      if (bar === undefined) return;
      if (!barStarted && performance.now() - started > 2000) {
        bar.start(p.ranks, p.finished, { vt: p.virtualTime.toPrecision(4), events: p.events });
        barStarted = true;
      }
      if (barStarted) bar.update(p.finished, { vt: p.virtualTime.toPrecision(4), events: p.events });
    },
  });
  if (barStarted) bar!.stop();
  const computeMode = typeof program === 'string' ? flags.compute : 'declared';
  const summary = summarize(result);
  printSummary(summary);
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify({ program: label, platform: flags.platform ?? 'default crossbar', network: flags.network, computeMode, ...summary }, null, 2)}\n`);
  if (flags.trace) writeChromeTrace(flags.trace, result.world.spans ?? [], np);
  return 0;
}
