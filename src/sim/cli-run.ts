/**
 * What `tsmpi sim` does with its flags: builds the platform and network model, runs the program
 * (or trace, or workload), shows progress on long runs, prints the summary and writes JSON and a
 * Chrome trace when asked.
 */
import { writeFileSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import { ErrorCode, TsmpiError } from '../comm/errors.js';
import type { Simulation } from './engine.js';
import { FlowModel } from './network/flow-model.js';
import { DelayModel, type NetworkModel } from './network/model.js';
import { writeChromeTrace } from './output/chrome-trace.js';
import { printSummary, summarize } from './output/summary.js';
import { loadPlatformFile } from './platform/load.js';
import type { Platform } from './platform/platform.js';
import { crossbar } from './platform/topologies.js';
import { runProgram, type SimRunResult } from './program-runner.js';
import { platformHosts } from './simple-hosts.js';

export interface SimCliOptions {
  np?: number;
  platform?: string;
  network: string;
  compute: string;
  ranksPerHost: number;
  referenceSpeed: number;
  replay?: string;
  workload?: string;
  param: string[];
  listWorkloads: boolean;
  seed: number;
  json?: string;
  trace?: string;
  quiet: boolean;
}

function simError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { operation: 'tsmpi sim', hint });
}

/** The default platform: a crossbar of identical hosts, 10 Gbit/s and 1 us per link, 1 Gflop/s. */
export function defaultPlatform(hosts: number): Platform {
  return crossbar({ hosts, speed: 1e9, bandwidth: 1.25e9, latency: 1e-6, source: 'default crossbar' });
}

export function networkModel(kind: string, platform: Platform): (sim: Simulation) => NetworkModel {
  if (kind === 'flow') return (sim) => new FlowModel(sim, platform);
  if (kind === 'delay') {
    return (sim) =>
      new DelayModel(sim, {
        latency: (a, b, rail) => platform.routeLatency(a, b, rail),
        bandwidth: (a, b, rail) => Math.min(...platform.route(a, b, rail).map((l) => platform.link(l).bandwidth)),
      });
  }
  throw simError(`--network ${kind} is not a network model`, 'use flow (max-min sharing) or delay (no contention)');
}

/** Places `np` ranks on the platform's hosts, `perHost` consecutive ranks per host. */
export function placeRanks(np: number, perHost: number, hosts: number): number[] {
  if (Math.ceil(np / perHost) > hosts) {
    throw simError(`${np} ranks at ${perHost} per host need ${Math.ceil(np / perHost)} hosts; the platform has ${hosts}`, 'use fewer ranks, more --ranks-per-host, or a bigger platform');
  }
  return Array.from({ length: np }, (_, r) => Math.floor(r / perHost));
}

export async function runSimulation(program: string | undefined, args: string[], flags: SimCliOptions): Promise<number> {
  if (flags.compute !== 'measured' && flags.compute !== 'declared') throw simError(`--compute ${flags.compute} is not a compute mode`, 'use measured or declared');
  if (program === undefined) throw simError('no program, trace or workload to simulate', 'give a program, --replay TRACE or --workload NAME');
  const np = flags.np ?? 1;
  const platform = flags.platform ? await loadPlatformFile(flags.platform) : defaultPlatform(Math.ceil(np / flags.ranksPerHost));
  const hostOf = placeRanks(np, flags.ranksPerHost, platform.hostCount);
  const bar = flags.quiet || !process.stderr.isTTY ? undefined : new SingleBar({ format: 'simulating [{bar}] {value}/{total} ranks done | {vt} s virtual | {events} events', hideCursor: true, clearOnComplete: true });
  let barStarted = false;
  const started = performance.now();
  const result: SimRunResult = await runProgram({
    program,
    args,
    np,
    hosts: platformHosts(platform, flags.referenceSpeed),
    hostOf,
    network: networkModel(flags.network, platform),
    computeMode: flags.compute,
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
  const summary = summarize(result);
  printSummary(summary);
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify({ platform: flags.platform ?? 'default crossbar', network: flags.network, computeMode: flags.compute, ...summary }, null, 2)}\n`);
  if (flags.trace) writeChromeTrace(flags.trace, result.world.spans ?? [], np);
  return 0;
}
