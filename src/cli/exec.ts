/**
 * `tsmpi exec app.ts [args...]`: runs this process's ranks of a job started by an external
 * launcher (`srun --mpi=pmi2 tsmpi exec app.ts`), by `tsmpi run --procs`, or over ssh by
 * `tsmpi run --hostfile`.
 */
import type { Command } from 'commander';
import { applyExports, collect, outputFile } from './options.js';

export function registerExec(program: Command): void {
  program
    .command('exec')
    .description('run this process\'s ranks of a job started by SLURM (srun --mpi=pmi2), tsmpi run --procs or tsmpi run --hostfile')
    .option('-x <VAR[=value]>', 'export VAR to the ranks (repeatable)', collect, [])
    .option('--tag-output', 'prefix every output line with [1,rank]<stdout>:', false)
    .option('--trace <FILE>', 'write a timeline of the job to FILE (TSMPI_TRACE; under srun, task 0 merges every task\'s part once all have ended)')
    .option('--secret-stdin', 'read the job secret from the first line of stdin, and end when stdin closes (how tsmpi run --hostfile starts processes)', false)
    .argument('<program>', 'the program: a .ts or .js file')
    .argument('[args...]', 'arguments for the program')
    .passThroughOptions()
    .action(async (programPath: string, args: string[], flags: { x: string[]; tagOutput: boolean; secretStdin: boolean; trace?: string }) => {
      const env = applyExports({ ...process.env }, flags.x);
      if (flags.trace !== undefined) env.TSMPI_TRACE = outputFile('--trace', flags.trace, 'tsmpi exec');
      process.exitCode = await (await import('../bootstrap/exec-host.js')).runExec({ program: programPath, args, env, tagOutput: flags.tagOutput, secretFromStdin: flags.secretStdin });
    });
}
