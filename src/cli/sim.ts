/**
 * `tsmpi sim -n N app.ts`: runs a tsmpi program's ranks in virtual time on a modelled cluster.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCachedScript } from '../bootstrap/cached-script.js';
import { importModule } from '../bootstrap/module-import.js';
import type { SimCliOptions } from '../sim/cli-run.js';
import { NETWORK_HELP } from '../sim/network/network-models.js';
import { nonNegativeNumber, outputFile, positiveInteger } from './options.js';
import { NODE_LOCAL_MESSAGE_OVERHEAD, NODE_MESSAGE_OVERHEAD } from '../sim/node-overheads.js';

/** A per-message overhead: seconds, or `node` for tsmpi's measured cost on Node (the local figure for --local-message-overhead). */
function overheadValue(flag: string): (text: string) => number | 'node' {
  const seconds = nonNegativeNumber(flag);
  return (text) => {
    if (text.trim() === 'node') return 'node';
    try {
      return seconds(text);
    } catch {
      throw new InvalidArgumentError(`${flag} takes seconds (a number >= 0) or node, got "${text}".`);
    }
  };
}

/** The simulator's command module (sim/cli-run.ts), as the action needs it. */
export type Simulator = Pick<typeof import('../sim/cli-run.js'), 'runSimulation' | 'setModuleImporter'>;

/**
 * The simulator loads on demand: other commands do not pay for it. From its script and code
 * cache when built (scripts/bundle.mjs), else from its modules (running from source); by URL, so
 * that the command line's own bundle does not carry it.
 */
async function loadSimulator(): Promise<Simulator> {
  const bundle = fileURLToPath(new URL('../bundle/sim-cli.cjs', import.meta.url));
  const simulator = (existsSync(bundle) ? loadCachedScript(bundle).exports : await importModule(new URL('../sim/cli-run.js', import.meta.url).href)) as Simulator;
  // The script cannot import() by itself (cached-script.ts): it imports through ours.
  simulator.setModuleImporter(importModule);
  return simulator;
}

/** Registers `tsmpi sim`; `simulator` gives the module that runs it (the simulator's own script passes itself). */
export function registerSim(program: Command, simulator: () => Promise<Simulator> = loadSimulator): void {
  program
    .command('sim')
    .description('run a program (or a trace, or a workload) in virtual time on a modelled cluster')
    .option('-n, --np <N>', 'number of ranks', positiveInteger('-n/--np'))
    .option('--platform <file>', 'platform: JSON (docs/simulator.md) or SimGrid XML; default: a crossbar of identical hosts')
    .option('--network <model>', `network model: ${NETWORK_HELP}; default: the platform's network/model, else flow`)
    .option('--crosstraffic <on|off>', "flow models: each flow also takes 0.05 of its rate on the reverse route (SimGrid's network/crosstraffic); default: on for cm02, smpi and lv08, off for flow")
    .option('--cfg <key:value>', 'a SimGrid setting, as smpirun takes it (repeatable): network/model, network/crosstraffic, network/weight-S, network/TCP-gamma, network/latency-factor, network/bandwidth-factor, smpi/lat-factor, smpi/bw-factor, smpi/send-is-detached-thresh, smpi/async-small-thresh', (v: string, prev: string[] = []) => [...prev, v], [])
    .option('--message-overhead <seconds|node>', `CPU time a rank spends per message it sends to another host (LogGP o; default 0, as SimGrid); node: tsmpi's own cost on Node, ${NODE_MESSAGE_OVERHEAD} s (and ${NODE_LOCAL_MESSAGE_OVERHEAD} s within a host unless --local-message-overhead says otherwise)`, overheadValue('--message-overhead'), 0)
    .option('--local-message-overhead <seconds|node>', `the same for a message to a rank of its own host; node: ${NODE_LOCAL_MESSAGE_OVERHEAD} s`, overheadValue('--local-message-overhead'))
    .option('--solve-interval <seconds>', 'flow model: re-solve the bandwidth sharing at most every this many virtual seconds (0: exact; e.g. 1e-6 for thousands of ranks with irregular traffic)', nonNegativeNumber('--solve-interval'), 0)
    .option('--compute <mode>', 'measured (CPU time between calls, scaled by the host speed) or declared (only comm.compute())', 'measured')
    .option('--ranks-per-host <K>', 'ranks placed on each host (block placement); default 1, or on a calibrated machine all ranks spread evenly over its hosts', positiveInteger('--ranks-per-host'))
    .option('--procs', "place ranks as `tsmpi run --procs` does: one process per rank (TCP between them); with a calibrated --platform, their figures", false)
    .option('--ranks-per-proc <K>', 'place ranks as `tsmpi run --ranks-per-proc K` does: K ranks per process (shared memory inside, TCP across); default: one process per host (the threads launcher)', positiveInteger('--ranks-per-proc'))
    .option('--hostfile <file>', "platform hosts by rank, as smpirun reads them: rank r on line r (host:N for N ranks), round robin past the end; -n defaults to the file's count")
    .option('--reference-speed <flops>', 'flop/s of this machine: measured CPU time counts reference / host speed times as long (default: 1e9, or the speed a calibrated --platform measured)', nonNegativeNumber('--reference-speed'))
    .option('--replay <trace>', 'replay a SimGrid time-independent trace (a file, or a description file listing one per rank)')
    .option('--workload <name>', 'run a generated workload (see --list-workloads)')
    .option('--collectives <family>', "simgrid (SimGrid 3.32's default selector and algorithms, message for message, with SMPI's protocol: sends below 65536 B detached) or tsmpi (the runtime's own); default: simgrid with --replay, tsmpi with --workload or a program (TSMPI_COLL_RULES)")
    .option('--param <k=v...>', 'workload parameters', (v: string, prev: string[] = []) => [...prev, v], [])
    .option('--list-workloads', 'list the workload generators', false)
    .option('--emit-trace <dir>', 'write the workload (or trace) as SimGrid TI files in <dir> instead of simulating')
    .option('--seed <n>', 'random seed (workloads, policies)', nonNegativeNumber('--seed'), 1)
    .option('--json <file>', 'write the summary as JSON')
    .option('--trace <file>', 'write a Chrome trace (open it in Perfetto)')
    .option('--profile', 'print a profile at the end: time, count and bytes per call and rank, call sites, communication matrix, collective imbalance')
    .option('--profile-json <file>', 'the profile also as JSON in FILE (implies --profile)')
    .option('--hang-timeout <S>', "accepted from a `tsmpi run` command line and not needed: the simulator finds a deadlock itself, in virtual time, and exits 124 with what every rank waits for", nonNegativeNumber('--hang-timeout'))
    .option('--check', 'every collective first checks that the ranks pass the same root, op, and kind and count of data (TSMPI_CHECK=1), as tsmpi run --check')
    .option('--quiet', 'no progress bar', false)
    .argument('[program]', 'the program: a .ts or .js file')
    .argument('[args...]', 'arguments for the program')
    .passThroughOptions()
    .action(async (programPath: string | undefined, args: string[], flags: SimCliOptions & { check?: boolean }) => {
      if (flags.check === true) process.env.TSMPI_CHECK = '1';
      if (flags.trace !== undefined) flags.trace = outputFile('--trace', flags.trace, 'tsmpi sim');
      if (flags.profileJson !== undefined) flags.profileJson = outputFile('--profile-json', flags.profileJson, 'tsmpi sim');
      const { runSimulation } = await simulator();
      const code = await runSimulation(programPath, args, flags);
      // Everything is written (stdout and stderr are synchronous on files and pipes): exit now.
      // Left to end by itself, the process first waits for V8's background work (optimising
      // compiles, heap sweeping), ~30 ms of a replay SimGrid ends in 60.
      process.exit(code);
    });
}
