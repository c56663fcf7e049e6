#!/usr/bin/env node
/**
 * The `tsmpi` command. One file per subcommand, each registering itself on the program.
 */
import { Command, CommanderError } from 'commander';
import { TsmpiError } from '../comm/errors.js';
import { registerBench } from './bench.js';
import { registerExec } from './exec.js';
import { registerInfo } from './info.js';
import { registerRun } from './run.js';
import { registerSim } from './sim.js';
import { packageVersion } from './version.js';

// A closed pipe (`tsmpi run ... | head`) ends output quietly instead of crashing the launcher.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const program = new Command('tsmpi')
  .description('MPI-style parallel computing for TypeScript')
  .version(packageVersion())
  .enablePositionalOptions()
  .showHelpAfterError()
  .exitOverride();

registerRun(program);
registerExec(program);
registerSim(program);
registerInfo(program);
registerBench(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (error instanceof TsmpiError) {
    process.stderr.write(`tsmpi: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
