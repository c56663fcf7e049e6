/**
 * `tsmpi bench NAME [options]`: runs a benchmark from bench/ (see bench/README.md).
 */
import type { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('run a benchmark (pingpong, stream, rate, startup, collectives, ...); no name lists them')
    .argument('[name]', 'benchmark name')
    .argument('[args...]', 'benchmark options')
    .passThroughOptions()
    .action((name: string | undefined, args: string[]) => {
      const dir = fileURLToPath(new URL('../../bench/', import.meta.url));
      const names = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)) : [];
      if (name === undefined || !names.includes(name)) {
        if (name !== undefined) process.stderr.write(`tsmpi bench: no benchmark named "${name}"\n`);
        process.stdout.write(`benchmarks: ${names.join(', ')}\n`);
        process.exitCode = name === undefined ? 0 : 2;
        return;
      }
      // Benchmarks are TypeScript run from the repository with tsx (a development dependency).
      let loader: string;
      try {
        // (require.resolve: the command runs as a classic script, which has no import.meta.resolve.)
        loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      } catch {
        process.stderr.write('tsmpi bench: benchmarks need the development dependencies (run npm ci in the repository)\n');
        process.exitCode = 2;
        return;
      }
      const result = spawnSync(process.execPath, ['--import', loader, `${dir}${name}.ts`, ...args], { stdio: 'inherit' });
      process.exitCode = result.status ?? 1;
    });
}
