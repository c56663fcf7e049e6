/**
 * `tsmpi exec app.ts [args...]`: runs this process's ranks of a job started by an external
 * launcher (`srun --mpi=pmi2 tsmpi exec app.ts`) or by `tsmpi run --procs`.
 */
import type { Command } from 'commander';
import { applyExports, collect } from './options.js';

export function registerExec(program: Command): void {
  program
    .command('exec')
    .description('run this process\'s ranks of a job started by SLURM (srun --mpi=pmi2) or by tsmpi run --procs')
    .option('-x <VAR[=value]>', 'export VAR to the ranks (repeatable)', collect, [])
    .option('--tag-output', 'prefix every output line with [1,rank]<stdout>:', false)
    .argument('<program>', 'the program: a .ts or .js file')
    .argument('[args...]', 'arguments for the program')
    .passThroughOptions()
    .action(async (programPath: string, args: string[], flags: { x: string[]; tagOutput: boolean }) => {
      const env = applyExports({ ...process.env }, flags.x);
      process.exitCode = await (await import('../bootstrap/exec-host.js')).runExec({ program: programPath, args, env, tagOutput: flags.tagOutput });
    });
}
