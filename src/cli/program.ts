/**
 * The `tsmpi` command line: one file per subcommand, each registering itself on the program.
 * main.ts runs it (from the bundled script and its code cache when built).
 */
import { registerBench } from './bench.js';
import { registerCalibrate } from './calibrate.js';
import { rootCommand, runCommandLine } from './command-line.js';
import { registerExec } from './exec.js';
import { registerInfo } from './info.js';
import { registerReport } from './report.js';
import { registerRun } from './run.js';
import { registerSim } from './sim.js';

export { setModuleImporter } from '../bootstrap/module-import.js';

/** Runs one command line (`argv` as process.argv has it); sets process.exitCode. */
export async function main(argv: readonly string[]): Promise<void> {
  const program = rootCommand();
  registerRun(program);
  registerExec(program);
  registerSim(program);
  registerInfo(program);
  registerReport(program);
  registerCalibrate(program);
  registerBench(program);
  await runCommandLine(program, argv);
}
