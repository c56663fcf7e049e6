/**
 * What `tsmpi sim` does with its flags: builds the platform, runs the program (or trace, or
 * workload) with simulate(), shows progress on long runs, prints the summary and writes JSON and
 * a Chrome trace when asked.
 */
import { NODE_LOCAL_MESSAGE_OVERHEAD, NODE_MESSAGE_OVERHEAD } from './node-overheads.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { HANG_EXIT_CODE } from '../bootstrap/rank-host.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { chromeTrace } from '../trace/chrome-trace.js';
import { describeTrace, reportProfile, summaryOf, writeTrace } from '../trace/trace-files.js';
import { jobProfile } from '../trace/job-profile.js';
import { StatusLine } from './output/status-line.js';
import { formatSeconds, printSummary, summarize } from './output/summary.js';
import { parseHostfile } from './platform/hostfile.js';
import { loadPlatformFile } from './platform/load.js';
import type { Action } from './replay/actions.js';
import type { ReplayCollectives } from './replay/replayer.js';
import { loadTiTraces, writeTiTraceFiles } from './replay/ti-trace.js';
import { SimRankFailure, type SimRunResult } from './program-runner.js';
import { isNetworkKind, NETWORK_HELP } from './network/network-models.js';
import { serialV8Flags, simulate, traceWorld, wantsSerialV8, type NetworkKind, type SimulateOptions } from './simulate.js';
import { buildWorkload, listWorkloads } from './workloads/registry.js';

// Its loader hands the bundled command the host's import() (module-import.ts says why).
export { setModuleImporter } from '../bootstrap/module-import.js';

export interface SimCliOptions {
  np?: number;
  platform?: string;
  network?: string;
  crosstraffic?: string;
  cfg: string[];
  compute: string;
  ranksPerHost?: number;
  procs: boolean;
  ranksPerProc?: number;
  hostfile?: string;
  collectives?: string;
  referenceSpeed?: number;
  solveInterval: number;
  messageOverhead: number | 'node';
  localMessageOverhead?: number | 'node';
  replay?: string;
  workload?: string;
  param: string[];
  listWorkloads: boolean;
  emitTrace?: string;
  seed: number;
  json?: string;
  trace?: string;
  profile?: boolean;
  profileJson?: string;
  quiet: boolean;
  /** Accepted from a `tsmpi run` line; the simulator finds deadlocks itself. */
  hangTimeout?: number;
}

// Made on first use: creating an Intl formatter loads locale data (tens of milliseconds), which a
// short run that never shows its status line should not pay.
let compactFormat: Intl.NumberFormat | undefined;
const compact = { format: (n: number): string => (compactFormat ??= new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })).format(n) };

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

/**
 * Runs this `tsmpi sim` again in a V8 without background threads (wantsSerialV8); returns its
 * exit code. V8 takes the flag only as it starts, hence a second process (~50 ms).
 */
function runSerialV8(options: SimulateOptions): number {
  const run = spawnSync(process.execPath, [...serialV8Flags(options), ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  if (run.error !== undefined) throw new TsmpiError(ErrorCode.Internal, `cannot run the simulation again with --single-threaded: ${run.error.message}`, { operation: 'tsmpi sim', hint: 'set TSMPI_SIM_SERIAL_V8=off to simulate in this process', cause: run.error });
  return run.status ?? 1;
}

export async function runSimulation(programPath: string | undefined, args: string[], flags: SimCliOptions): Promise<number> {
  if (flags.listWorkloads) {
    printWorkloads();
    return 0;
  }
  if (flags.hangTimeout !== undefined) {
    process.stderr.write('tsmpi sim: --hang-timeout is not needed: the simulator finds a deadlock itself, in virtual time, and exits 124 with what every rank waits for\n');
  }
  if (flags.compute !== 'measured' && flags.compute !== 'declared') throw simError(`--compute ${flags.compute} is not a compute mode`, 'use measured or declared');
  if (flags.network !== undefined && !isNetworkKind(flags.network)) throw simError(`--network ${flags.network} is not a network model`, `use ${NETWORK_HELP}`);
  if (flags.crosstraffic !== undefined && flags.crosstraffic !== 'on' && flags.crosstraffic !== 'off') throw simError(`--crosstraffic ${flags.crosstraffic} is not on or off`, 'write --crosstraffic on or --crosstraffic off');
  if (flags.crosstraffic !== undefined && flags.network === 'delay') throw simError('--crosstraffic applies to the flow models', 'drop --crosstraffic, or use --network flow, cm02, smpi or lv08');
  // `node`: tsmpi's own measured costs; a remote `node` also sets the local figure unless given.
  const remoteOverhead = flags.messageOverhead === 'node' ? NODE_MESSAGE_OVERHEAD : flags.messageOverhead;
  const localOverhead = flags.localMessageOverhead === 'node' || (flags.localMessageOverhead === undefined && flags.messageOverhead === 'node') ? NODE_LOCAL_MESSAGE_OVERHEAD : (flags.localMessageOverhead ?? 0);
  const cfgModel = flags.cfg.filter((c) => c.startsWith('network/model:')).at(-1);
  if (flags.network !== undefined && cfgModel !== undefined) throw simError(`--network ${flags.network} and --cfg=${cfgModel} both choose the network model`, 'give one of them');
  const sources = [programPath, flags.replay, flags.workload].filter((x) => x !== undefined).length;
  if (sources === 0) throw simError('no program, trace or workload to simulate', 'give a program, --replay TRACE or --workload NAME');
  if (sources > 1) throw simError('give one of a program, --replay TRACE and --workload NAME', 'a trace or a workload replaces the program');
  let program: string | Map<number, Action[]>;
  let label: string;
  if (programPath !== undefined) {
    program = programPath;
    label = programPath;
  } else {
    program = flags.replay !== undefined ? await loadTiTraces(flags.replay, { warn: (line) => process.stderr.write(`${line}\n`) }) : buildWorkload(flags.workload!, flags.param, flags.np, flags.seed);
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
  if (flags.collectives !== undefined && flags.collectives !== 'simgrid' && flags.collectives !== 'tsmpi') throw simError(`--collectives ${flags.collectives} is not a collective family`, 'use simgrid or tsmpi');
  const collectives = (flags.collectives ?? (flags.replay !== undefined ? 'simgrid' : 'tsmpi')) as ReplayCollectives;
  let hostfile: { slots: string[]; source: string } | undefined;
  if (flags.hostfile !== undefined) {
    if (flags.ranksPerHost !== undefined) throw simError('--hostfile and --ranks-per-host both place ranks', 'give one: the hostfile (host:N for N ranks on a host) or --ranks-per-host');
    let text: string;
    try {
      text = readFileSync(flags.hostfile, 'utf8');
    } catch (cause) {
      throw new TsmpiError(ErrorCode.Config, `cannot read hostfile ${flags.hostfile}: ${(cause as Error).message}`, { operation: 'tsmpi sim', hint: 'check the path given to --hostfile', cause });
    }
    hostfile = { slots: parseHostfile(text, flags.hostfile), source: flags.hostfile };
  }
  if (flags.procs && flags.ranksPerProc !== undefined && flags.ranksPerProc !== 1) throw simError('--procs and --ranks-per-proc conflict', '--procs means one rank per process; give --ranks-per-proc K alone for K ranks per process');
  const ranksPerProc = flags.procs ? 1 : flags.ranksPerProc;
  const np = typeof program === 'string' ? (flags.np ?? hostfile?.slots.length ?? 1) : traceWorld(program);
  const platform = flags.platform ? await loadPlatformFile(flags.platform) : undefined;
  // Long runs show a status line after 2 s: virtual time and events/s advance even while every
  // rank of an SPMD program is still running.
  const status = flags.quiet || !process.stderr.isTTY ? undefined : new StatusLine(process.stderr);
  let statusShown = false;
  const started = performance.now();
  let last = { wall: started, events: 0 };
  const describe = (p: { virtualTime: number; events: number; finished: number; ranks: number }): string => {
    const now = performance.now();
    const rate = now > last.wall ? ((p.events - last.events) * 1000) / (now - last.wall) : 0;
    last = { wall: now, events: p.events };
    return `simulating: ${formatSeconds(p.virtualTime)} virtual, ${compact.format(p.events)} events (${compact.format(rate)}/s), ${p.finished}/${p.ranks} ranks done, ${((now - started) / 1000).toFixed(0)} s`;
  };
  let result: SimRunResult;
  try {
    const options: SimulateOptions = {
      program,
      args,
      np,
      ...(platform ? { platform } : {}),
      ...(flags.network !== undefined ? { network: flags.network as NetworkKind } : {}),
      flow: { solveInterval: flags.solveInterval, ...(flags.crosstraffic !== undefined ? { crosstraffic: flags.crosstraffic === 'on' } : {}) },
      cfg: flags.cfg,
      ...(remoteOverhead > 0 ? { messageOverhead: remoteOverhead } : {}),
      ...(localOverhead > 0 ? { localMessageOverhead: localOverhead } : {}),
      computeMode: flags.compute,
      ...(flags.ranksPerHost !== undefined ? { ranksPerHost: flags.ranksPerHost } : {}),
      ...(ranksPerProc !== undefined ? { ranksPerProc } : {}),
      ...(hostfile !== undefined ? { hostfile } : {}),
      ...(typeof program === 'string' && flags.collectives === undefined ? {} : { collectives }),
      ...(flags.referenceSpeed !== undefined ? { referenceSpeed: flags.referenceSpeed } : {}),
      ...(flags.trace !== undefined || flags.profile === true || flags.profileJson !== undefined ? { record: { trace: flags.trace !== undefined, profile: flags.profile === true || flags.profileJson !== undefined } } : {}),
      onProgress: (p) => {
        if (status === undefined) return;
        if (statusShown) status.update(describe(p));
        else if (performance.now() - started > 2000) {
          status.start(describe(p));
          statusShown = true;
        }
      },
    };
    if (wantsSerialV8(options)) return runSerialV8(options);
    result = await simulate(options);
  } catch (error) {
    if (error instanceof SimRankFailure) {
      // Said once, as `tsmpi run` says it: the rank, its stack at the program's lines, the code.
      const stopped = `the simulation stopped at ${formatSeconds(error.virtualTime)} of virtual time`;
      if (error.rankError === undefined) process.stderr.write(`tsmpi: rank ${error.rank} exited with code ${error.exitCode}; ${stopped}\n`);
      else process.stderr.write(`tsmpi: rank ${error.rank} failed:\n${error.rankError}\ntsmpi: ${stopped}\n`);
      return error.exitCode;
    }
    if (error instanceof TsmpiError && error.code === ErrorCode.Hang) {
      process.stderr.write(`tsmpi: ${error.message}\n`);
      return HANG_EXIT_CODE;
    }
    throw error;
  } finally {
    if (statusShown) status!.stop();
  }
  const computeMode = typeof program === 'string' ? flags.compute : 'declared';
  const summary = summarize(result);
  printSummary(summary);
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify({ program: label, platform: flags.platform ?? 'default crossbar', network: result.network.name, ...('crosstraffic' in result.network ? { crosstraffic: result.network.crosstraffic } : {}), ...(typeof program === 'string' && flags.collectives === undefined ? {} : { collectives }), computeMode, ...summary }, null, 2)}\n`);
  if ((flags.profile === true || flags.profileJson !== undefined) && result.traceChunks !== undefined) {
    const profiles = result.traceChunks.map((chunks) => chunks.find((c) => c.profile !== undefined)?.profile);
    for (const line of reportProfile(flags.profileJson ?? '1', jobProfile(np, profiles))) process.stderr.write(`${line}\n`);
  }
  if (flags.trace && result.traceChunks !== undefined) {
    const trace = chromeTrace(result.traceChunks, (result.traceNodes ?? []).map((node) => ({ node })), { simulated: true, makespanSeconds: result.makespan }, result.world.spans ?? []);
    writeTrace(flags.trace, trace);
    process.stderr.write(`${describeTrace(flags.trace, summaryOf(trace))}\n`);
  }
  return 0;
}

