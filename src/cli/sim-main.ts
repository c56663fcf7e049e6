/**
 * Entry of the simulator's script (dist/bundle/sim-cli.cjs): `tsmpi sim` runs from it alone, the
 * command line with only its `sim` subcommand, so that a replay loads one script instead of the
 * whole command line's and then this one (~15 ms of a replay SimGrid ends in 60). Other commands
 * load it through cli/sim.ts for `runSimulation`.
 */
import { rootCommand, runCommandLine } from './command-line.js';
import { registerSim } from './sim.js';
import { runSimulation, setModuleImporter } from '../sim/cli-run.js';

export { runSimulation, setModuleImporter };
export type { SimCliOptions } from '../sim/cli-run.js';

/** Runs a `tsmpi sim ...` command line (`argv` as process.argv has it). */
export async function main(argv: readonly string[]): Promise<void> {
  const program = rootCommand();
  registerSim(program, async () => ({ runSimulation, setModuleImporter }));
  await runCommandLine(program, argv);
}
