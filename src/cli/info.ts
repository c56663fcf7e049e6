/**
 * `tsmpi info`: every tunable with its variable, effective value and description, like Open MPI's
 * ompi_info; `--json` for tools.
 */
import type { Command } from 'commander';
import { availableParallelism, cpus } from 'node:os';
import { collectiveAlgorithms, readSettings, tunables, type Tunable, type TunableName } from '../config/tunables.js';
import { nodeAddresses, parseRails } from '../rails/rail-config.js';
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
        const t = tunables[name] as Tunable<unknown>;
        const value: unknown = settings[name];
        return { name, env: t.env, value, text: t.format?.(value) ?? String(value), fromEnv: process.env[t.env] !== undefined, default: t.defaultText, description: t.description };
      });
      let rails: { configured: { name: string; address: string; rateBytesPerSecond: number }[]; error?: string };
      try {
        rails = { configured: parseRails(settings.rails).map((r) => ({ name: r.name, address: r.address, rateBytesPerSecond: r.rate })) };
      } catch (error) {
        rails = { configured: [], error: (error as Error).message };
      }
      const info = {
        version: packageVersion(),
        node: process.version,
        cores,
        cpu: cpus()[0]?.model ?? 'unknown',
        transports: ['shm (SharedArrayBuffer rings between ranks of a process)', 'self (loopback)', 'tcp (between processes)', 'multi-rail tcp (TSMPI_RAILS)'],
        interfaces: nodeAddresses(),
        rails,
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
      out.push(`IPv4 interfaces (candidate rails): ${info.interfaces.map((a) => `${a.name} ${a.address}`).join(', ')}`);
      if (rails.error !== undefined) out.push(`rails: TSMPI_RAILS is not valid here: ${rails.error}`);
      else if (rails.configured.length > 0) out.push(`rails: ${rails.configured.map((r, i) => `rail ${i}${i === 0 ? ' (control)' : ''} ${r.name} ${r.address}${r.rateBytesPerSecond > 0 ? ` at ${((r.rateBytesPerSecond * 8) / 1e6).toFixed(0)} Mbit/s` : ''}`).join('; ')}`);
      else out.push('rails: none (set TSMPI_RAILS to two or more of the interfaces above for multi-rail TCP)');
      out.push(`tunables (defaults for ${flags.np} rank${flags.np === 1 ? '' : 's'} per process):`);
      for (const row of rows) {
        out.push(`  ${row.env} = ${row.text}${row.fromEnv ? ' (from the environment)' : ''}`);
        out.push(`      ${row.description} Default: ${row.default}.`);
      }
      process.stdout.write(`${out.join('\n')}\n`);
    });
}
