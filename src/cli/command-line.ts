/**
 * The root of the `tsmpi` command line and how a command line runs: usage errors print the error
 * and where help is (exit code 2), tsmpi's own errors one line. program.ts registers every
 * subcommand on it; the simulator's script (sim-main.ts) only `sim`.
 */
import { Command, CommanderError } from 'commander';
import { TsmpiError } from '../errors.js';
import { mpirunSpellings } from './options.js';
import { packageVersion } from './version.js';

/** Exit code of a command line that cannot be used (nothing ran), as most CLIs use it. */
const USAGE_EXIT_CODE = 2;

/** The `tsmpi` command, without subcommands. */
export function rootCommand(): Command {
  return new Command('tsmpi')
    .description('MPI-style parallel computing for TypeScript')
    .version(packageVersion())
    .enablePositionalOptions()
    .showHelpAfterError("(run 'tsmpi --help' for the commands)")
    .exitOverride();
}

/** Runs one command line (`argv` as process.argv has it) on `program`; sets process.exitCode. */
export async function runCommandLine(program: Command, argv: readonly string[]): Promise<void> {
  // A closed pipe (`tsmpi run ... | head`) ends output quietly instead of crashing the launcher.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  // A usage error prints the error and where help is, not the whole help.
  for (const command of program.commands) command.showHelpAfterError(`(run 'tsmpi ${command.name()} --help' for its options)`).exitOverride();
  try {
    await program.parseAsync(mpirunSpellings(program, argv));
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
}
