/**
 * `tsmpi run -n N [options] app.ts [args...]`: starts N ranks of a program, as mpirun does.
 */
import type { Command } from 'commander';
import { ErrorCode, TsmpiError } from '../errors.js';
import { applyExports, collect, nonNegativeNumber, outputFile, positiveInteger } from './options.js';

interface RunFlags {
  np?: number;
  x: string[];
  tagOutput: boolean;
  hangTimeout?: number;
  stdin?: string;
  spinUs?: number;
  ranksPerThread?: number;
  bindTo?: string;
  check: boolean;
  procs: boolean;
  ranksPerProc?: number;
  trace?: string;
  profile: boolean;
  profileJson?: string;
  netns?: string;
  rendezvousAddress?: string;
  hostfile?: string;
  host?: string;
  mapBy: string;
  oversubscribe: boolean;
  launchAgent?: string;
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('start N ranks of a program (worker threads of one process, talking through shared memory; with --hostfile or -H, on several machines)')
    .option('-n, --np <N>', 'number of ranks (with --hostfile or -H: one per slot when absent)', positiveInteger('-n/--np'))
    .option('-x <VAR[=value]>', 'export VAR to the ranks (repeatable); without a value, the launcher\'s own', collect, [])
    .option('--tag-output', 'prefix every output line with [1,rank]<stdout>:', false)
    .option('--hang-timeout <S>', 'abort with a report of what every rank waits for when no rank makes progress for S seconds (TSMPI_HANG_TIMEOUT)', nonNegativeNumber('--hang-timeout'))
    .option('--stdin <rank|none>', "the world rank whose process.stdin is this command's stdin (default 0, as mpirun's), or none (TSMPI_STDIN)")
    .option('--trace <FILE>', 'write a timeline of the run to FILE (Chrome trace JSON: open it in Perfetto): a slice per call, collective rounds, arrows from sends to receives (TSMPI_TRACE)')
    .option('--profile', 'print a profile at the end (mpiP\'s summary): time, count and bytes per call and rank, call sites, communication matrix, collective imbalance (TSMPI_PROFILE=1)', false)
    .option('--profile-json <FILE>', 'the profile also as JSON in FILE (implies --profile)')
    .option('--check', 'every collective first checks that the ranks pass the same root, op, and kind and count of data, and fails naming the ranks that differ (TSMPI_CHECK=1)', false)
    .option('--spin-us <us>', 'microseconds a waiting rank polls before sleeping (TSMPI_SPIN_US)', nonNegativeNumber('--spin-us'))
    .option('--bind-to <core|none|auto>', 'bind each rank thread to a CPU (core), leave placement to the kernel (none), or bind when the ranks fit the CPUs (auto, the default; TSMPI_BIND)')
    .option('--ranks-per-thread <K>', 'K ranks share each worker thread, taking turns whenever one waits (for more ranks than cores; TSMPI_RANKS_PER_THREAD)', positiveInteger('--ranks-per-thread'))
    .option('--procs', 'one process per rank (ranks of different processes talk TCP)', false)
    .option('--ranks-per-proc <K>', 'K worker-thread ranks per process: shared memory inside a process, TCP across', positiveInteger('--ranks-per-proc'))
    .option('--netns <NS,...>', 'with --procs/--ranks-per-proc: process i runs in network namespace NS[i mod count] (ip netns exec), e.g. shaped test networks', )
    .option('--rendezvous-address <ADDR>', 'address the launcher serves the address exchange on (reachable from every process); default 127.0.0.1, with hosts this machine\'s address toward them')
    .option('--hostfile <FILE>', 'run on these hosts (Open MPI syntax: "host slots=N" per line, # comments), one process per host over ssh')
    .option('-H, --host <LIST>', 'run on these hosts: host[:slots],... (1 slot when absent)')
    .option('--map-by <POLICY>', 'with hosts: slot (fill each host\'s slots in turn) or node (one rank per host in turn)', 'slot')
    .option('--oversubscribe', 'with hosts: allow more ranks than slots', false)
    .option('--launch-agent <CMD>', 'with hosts: the command that starts a process on a host, given the host and a shell command (TSMPI_LAUNCH_AGENT)')
    .argument('<program>', 'the program: a .ts or .js file')
    .argument('[args...]', 'arguments for the program')
    .passThroughOptions()
    .action(async (programPath: string, args: string[], flags: RunFlags, command: Command) => {
      const env = applyExports({ ...process.env }, flags.x);
      if (flags.hangTimeout !== undefined) env.TSMPI_HANG_TIMEOUT = String(flags.hangTimeout);
      if (flags.stdin !== undefined) env.TSMPI_STDIN = flags.stdin;
      if (flags.spinUs !== undefined) env.TSMPI_SPIN_US = String(flags.spinUs);
      if (flags.ranksPerThread !== undefined) env.TSMPI_RANKS_PER_THREAD = String(flags.ranksPerThread);
      if (flags.bindTo !== undefined) env.TSMPI_BIND = flags.bindTo;
      if (flags.check) env.TSMPI_CHECK = '1';
      if (flags.trace !== undefined) env.TSMPI_TRACE = outputFile('--trace', flags.trace, 'tsmpi run');
      if (flags.profileJson !== undefined) env.TSMPI_PROFILE = outputFile('--profile-json', flags.profileJson, 'tsmpi run');
      else if (flags.profile) env.TSMPI_PROFILE = '1';
      if (flags.procs && flags.ranksPerProc !== undefined && flags.ranksPerProc !== 1) {
        throw new TsmpiError(ErrorCode.Arg, '--procs and --ranks-per-proc conflict', { operation: 'tsmpi run', hint: '--procs means one rank per process; give --ranks-per-proc K alone for K ranks per process' });
      }
      const ranksPerProcess = flags.procs ? 1 : flags.ranksPerProc;
      const namespaces = flags.netns?.split(',').filter((n) => n !== '') ?? [];
      if (namespaces.length > 0 && ranksPerProcess === undefined) {
        throw new TsmpiError(ErrorCode.Arg, '--netns needs processes', { operation: 'tsmpi run', hint: 'add --procs or --ranks-per-proc K' });
      }
      if (flags.bindTo !== undefined && !['core', 'none', 'auto'].includes(flags.bindTo)) {
        throw new TsmpiError(ErrorCode.Arg, `--bind-to ${flags.bindTo} is not a binding tsmpi knows`, { operation: 'tsmpi run', hint: '--bind-to core (a CPU per rank thread), none, or auto (the default: core when the ranks fit the CPUs)' });
      }
      if (flags.mapBy !== 'slot' && flags.mapBy !== 'node') {
        throw new TsmpiError(ErrorCode.Arg, `--map-by ${flags.mapBy} is not a mapping tsmpi knows`, { operation: 'tsmpi run', hint: '--map-by slot (the default) or --map-by node' });
      }
      const hosts = flags.hostfile !== undefined || flags.host !== undefined;
      if (!hosts) {
        for (const [given, name] of [[flags.mapBy !== 'slot', '--map-by'], [flags.oversubscribe, '--oversubscribe'], [flags.launchAgent !== undefined, '--launch-agent']] as const) {
          if (given) throw new TsmpiError(ErrorCode.Arg, `${name} needs hosts`, { operation: 'tsmpi run', hint: 'add --hostfile FILE or -H host[:slots],...' });
        }
      }
      // As commander says it of a required option (-n is optional only with hosts).
      if (!hosts && flags.np === undefined) command.error("error: required option '-n, --np <N>' not specified (or name hosts with --hostfile FILE or -H host[:slots],...)");
      if (hosts) {
        if (flags.hostfile !== undefined && flags.host !== undefined) throw new TsmpiError(ErrorCode.Arg, '--hostfile and -H both name the hosts', { operation: 'tsmpi run', hint: 'give one of them' });
        if (namespaces.length > 0) throw new TsmpiError(ErrorCode.Arg, '--netns and hosts conflict', { operation: 'tsmpi run', hint: 'the hosts say where processes run' });
        if (flags.stdin !== undefined && flags.stdin !== 'none') {
          throw new TsmpiError(ErrorCode.Arg, `--stdin ${flags.stdin} and hosts conflict: over ssh the ranks' stdin is the launcher's channel, not this command's input`, { operation: 'tsmpi run', hint: 'read the input from a file the hosts share, or run with --procs on one machine' });
        }
        const { readHostfile, parseHostList } = await import('../bootstrap/mpirun-hosts.js');
        const { DEFAULT_LAUNCH_AGENT, parseLaunchAgent } = await import('../bootstrap/launch-agent.js');
        const agentText = flags.launchAgent ?? env.TSMPI_LAUNCH_AGENT;
        process.exitCode = await (await import('../bootstrap/host-launcher.js')).runHostJob({
          np: flags.np,
          hosts: flags.hostfile !== undefined ? await readHostfile(flags.hostfile, 'tsmpi run') : parseHostList(flags.host!),
          mapBy: flags.mapBy,
          oversubscribe: flags.oversubscribe,
          ranksPerProcess,
          program: programPath,
          args,
          env,
          exports: flags.x.map((entry) => entry.split('=')[0]!),
          tagOutput: flags.tagOutput,
          launchAgent: agentText !== undefined && agentText !== '' ? parseLaunchAgent(agentText) : DEFAULT_LAUNCH_AGENT,
          rendezvousAddress: flags.rendezvousAddress,
        });
        return;
      }
      const np = flags.np!;
      const stdinRank = env.TSMPI_STDIN === undefined || env.TSMPI_STDIN === 'none' ? -1 : Number(env.TSMPI_STDIN);
      if (stdinRank >= np) {
        throw new TsmpiError(ErrorCode.Arg, `--stdin ${stdinRank}: there is no rank ${stdinRank} among ${np}`, { operation: 'tsmpi run', hint: `give a rank from 0 to ${np - 1}, or none` });
      }
      // The launchers load on demand: `tsmpi sim` and `tsmpi --help` need neither.
      const code =
        ranksPerProcess === undefined
          ? await (await import('../bootstrap/thread-launcher.js')).runThreadJob({ np, program: programPath, args, env, tagOutput: flags.tagOutput })
          : await (await import('../bootstrap/process-launcher.js')).runProcessJob({
              np,
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
