#!/usr/bin/env node
/**
 * The `tsmpi` command. One file per subcommand, each registering itself on the program.
 */
import { Command, CommanderError } from 'commander';
import { TsmpiError } from '../errors.js';
import { registerBench } from './bench.js';
import { registerCalibrate } from './calibrate.js';
import { registerExec } from './exec.js';
import { registerInfo } from './info.js';
import { registerReport } from './report.js';
import { registerRun } from './run.js';
import { registerSim } from './sim.js';
import { mpirunSpellings } from './options.js';
import { packageVersion } from './version.js';

// A closed pipe (`tsmpi run ... | head`) ends output quietly instead of crashing the launcher.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** Exit code of a command line that cannot be used (nothing ran), as most CLIs use it. */
const USAGE_EXIT_CODE = 2;

const program = new Command('tsmpi')
  .description('MPI-style parallel computing for TypeScript')
  .version(packageVersion())
  .enablePositionalOptions()
  .showHelpAfterError("(run 'tsmpi --help' for the commands)")
  .exitOverride();

registerRun(program);
registerExec(program);
registerSim(program);
registerInfo(program);
registerReport(program);
registerCalibrate(program);
registerBench(program);
// A usage error prints the error and where help is, not the whole help.
for (const command of program.commands) command.showHelpAfterError(`(run 'tsmpi ${command.name()} --help' for its options)`).exitOverride();

try {
  await program.parseAsync(mpirunSpellings(program, process.argv));
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
  } else if (error instanceof TsmpiError) {
    process.stderr.write(`tsmpi: ${error.message}\n`);
    process.exitCode = USAGE_EXIT_CODE;
  } else {
    throw error;
  }
}
