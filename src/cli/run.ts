/**
 * `tsmpi run -n N [options] app.ts [args...]`: starts N ranks of a program, as mpirun does.
 */
import type { Command } from 'commander';
import { ErrorCode, TsmpiError } from '../errors.js';
import { applyExports, collect, nonNegativeNumber, positiveInteger } from './options.js';

interface RunFlags {
  np: number;
  x: string[];
  tagOutput: boolean;
  hangTimeout?: number;
  spinUs?: number;
  check: boolean;
  procs: boolean;
  ranksPerProc?: number;
  netns?: string;
  rendezvousAddress?: string;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('start N ranks of a program (worker threads of one process, talking through shared memory)')
    .requiredOption('-n, --np <N>', 'number of ranks', positiveInteger('-n/--np'))
    .option('-x <VAR[=value]>', 'export VAR to the ranks (repeatable); without a value, the launcher\'s own', collect, [])
    .option('--tag-output', 'prefix every output line with [1,rank]<stdout>:', false)
    .option('--hang-timeout <S>', 'abort with a report of what every rank waits for when no rank makes progress for S seconds (TSMPI_HANG_TIMEOUT)', nonNegativeNumber('--hang-timeout'))
    .option('--check', 'every collective first checks that the ranks pass the same root, op, and kind and count of data, and fails naming the ranks that differ (TSMPI_CHECK=1)', false)
    .option('--spin-us <us>', 'microseconds a waiting rank polls before sleeping (TSMPI_SPIN_US)', nonNegativeNumber('--spin-us'))
    .option('--procs', 'one process per rank (ranks of different processes talk TCP)', false)
    .option('--ranks-per-proc <K>', 'K worker-thread ranks per process: shared memory inside a process, TCP across', positiveInteger('--ranks-per-proc'))
    .option('--netns <NS,...>', 'with --procs/--ranks-per-proc: process i runs in network namespace NS[i mod count] (ip netns exec), e.g. shaped test networks', )
    .option('--rendezvous-address <ADDR>', 'address the launcher serves the address exchange on (reachable from every process)', '127.0.0.1')
    .argument('<program>', 'the program: a .ts or .js file')
    .argument('[args...]', 'arguments for the program')
    .passThroughOptions()
    .action(async (programPath: string, args: string[], flags: RunFlags) => {
      const env = applyExports({ ...process.env }, flags.x);
      if (flags.hangTimeout !== undefined) env.TSMPI_HANG_TIMEOUT = String(flags.hangTimeout);
      if (flags.spinUs !== undefined) env.TSMPI_SPIN_US = String(flags.spinUs);
      if (flags.check) env.TSMPI_CHECK = '1';
      if (flags.procs && flags.ranksPerProc !== undefined && flags.ranksPerProc !== 1) {
        throw new TsmpiError(ErrorCode.Arg, '--procs and --ranks-per-proc conflict', { operation: 'tsmpi run', hint: '--procs means one rank per process; give --ranks-per-proc K alone for K ranks per process' });
      }
      const ranksPerProcess = flags.procs ? 1 : flags.ranksPerProc;
      const namespaces = flags.netns?.split(',').filter((n) => n !== '') ?? [];
      if (namespaces.length > 0 && ranksPerProcess === undefined) {
        throw new TsmpiError(ErrorCode.Arg, '--netns needs processes', { operation: 'tsmpi run', hint: 'add --procs or --ranks-per-proc K' });
      }
      // The launchers load on demand: `tsmpi sim` and `tsmpi --help` need neither.
      const code =
        ranksPerProcess === undefined
          ? await (await import('../bootstrap/thread-launcher.js')).runThreadJob({ np: flags.np, program: programPath, args, env, tagOutput: flags.tagOutput })
          : await (await import('../bootstrap/process-launcher.js')).runProcessJob({
              np: flags.np,
              ranksPerProcess,
              program: programPath,
              args,
              env,
              tagOutput: flags.tagOutput,
              namespaces,
              rendezvousAddress: flags.rendezvousAddress ?? '127.0.0.1',
            });
      process.exitCode = code;
    });
}
