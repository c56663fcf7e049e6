/**
 * `tsmpi info`: every tunable with its variable, effective value and description, like Open MPI's
 * ompi_info; `--json` for tools.
 */
import type { Command } from 'commander';
import { availableParallelism, cpus } from 'node:os';
import { collectiveAlgorithms, readSettings, tunables, type TunableName } from '../config/tunables.js';
import { packageVersion } from './version.js';
import { positiveInteger } from './options.js';

export function registerInfo(program: Command): void {
  program
    .command('info')
    .description('print the version, the machine and every tunable with its effective value')
    .option('-n, --np <N>', 'show the defaults for N ranks per process', positiveInteger('-n/--np'), 1)
    .option('--json', 'print JSON', false)
    .action((flags: { np: number; json: boolean }) => {
      const cores = availableParallelism();
      const settings = readSettings(process.env, { localRanks: flags.np, cores });
      const rows = (Object.keys(tunables) as TunableName[]).map((name) => {
        const t = tunables[name];
        return { name, env: t.env, value: settings[name], fromEnv: process.env[t.env] !== undefined, default: t.defaultText, description: t.description };
      });
      const info = {
        version: packageVersion(),
        node: process.version,
        cores,
        cpu: cpus()[0]?.model ?? 'unknown',
        transports: ['shm (SharedArrayBuffer rings between ranks of a process)', 'self (loopback)'],
        collectives: collectiveAlgorithms,
        tunables: rows,
      };
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
        return;
      }
      const out: string[] = [];
      out.push(`tsmpi ${info.version} on Node ${info.node}, ${cores} cores (${info.cpu})`);
      out.push(`transports: ${info.transports.join('; ')}`);
      out.push(`tunables (defaults for ${flags.np} rank${flags.np === 1 ? '' : 's'} per process):`);
      for (const row of rows) {
        out.push(`  ${row.env} = ${String(row.value)}${row.fromEnv ? ' (from the environment)' : ''}`);
        out.push(`      ${row.description} Default: ${row.default}.`);
      }
      process.stdout.write(`${out.join('\n')}\n`);
    });
}
