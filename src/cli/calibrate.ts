/**
 * `tsmpi calibrate -o FILE`: measures this machine (or a modelled one) for the simulator.
 */
import type { Command } from 'commander';
import { formatCalibration } from '../calibrate/summary.js';
import { outputFile, positiveInteger } from './options.js';

export function registerCalibrate(program: Command): void {
  program
    .command('calibrate')
    .description('measure this machine (ping-pong, streaming, overheads, compute speed) and write a platform for tsmpi sim --platform')
    .requiredOption('-o, --output <file>', 'the calibrated machine as JSON (a SimGrid XML twin is written beside it, FILE.xml)')
    .option('--modes <list>', 'launch modes to measure: threads (shared memory inside a process), procs (TCP between processes), hosts (TCP between two hosts of --hostfile); default threads,procs, and hosts with --hostfile')
    .option('--hostfile <file>', 'a cluster: its hosts (as tsmpi run --hostfile reads them); the platform gets their count, and mode hosts measures between the first two')
    .option('--sim <platform>', 'calibrate a modelled machine: run the probes under tsmpi sim --platform PLATFORM (a check of the fit)')
    .option('--quick', 'fewer repetitions and one run (a rougher calibration in a fraction of the time)', false)
    .option('--runs <K>', 'independent runs of each experiment, each figure the median over them (default 3; 1 with --quick or --sim)', positiveInteger('--runs'))
    .action(async (flags: { output: string; modes?: string; hostfile?: string; sim?: string; quick: boolean; runs?: number }) => {
      const output = outputFile('-o/--output', flags.output, 'tsmpi calibrate');
      const { calibrate, xmlPathOf } = await import('../calibrate/calibrate.js');
      const machine = await calibrate({
        output,
        modes: (flags.modes ?? (flags.hostfile !== undefined ? 'threads,procs,hosts' : 'threads,procs')).split(',').map((m) => m.trim()).filter((m) => m !== ''),
        ...(flags.sim !== undefined ? { sim: flags.sim } : {}),
        ...(flags.hostfile !== undefined ? { hostfile: flags.hostfile } : {}),
        quick: flags.quick,
        ...(flags.runs !== undefined ? { runs: flags.runs } : {}),
        progress: process.stderr.isTTY === true,
      });
      const next =
        machine.hosts.count > 1
          ? `simulate a run on these ${machine.hosts.count} hosts with: tsmpi sim --platform ${output} -n N --ranks-per-host K app.ts (predicts tsmpi run --hostfile with K slots per host)`
          : `simulate a run on this machine with: tsmpi sim --platform ${output} -n 4 app.ts (add --procs to predict tsmpi run --procs)`;
      process.stdout.write(`${formatCalibration(machine)}\nwrote ${output} and ${xmlPathOf(output)}\n${next}\n`);
    });
}
