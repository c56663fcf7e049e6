/**
 * `tsmpi report RUN.json -o report.html`: one self-contained HTML page of a run, from its timeline
 * (`--trace`, real or simulated, a replay's too) or its profile (`--profile-json`).
 */
import type { Command } from 'commander';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { ErrorCode, TsmpiError } from '../errors.js';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('write one self-contained HTML report of a run from its timeline (--trace) or profile (--profile-json)')
    .argument('<file>', 'a timeline (tsmpi run/sim --trace) or a profile (--profile-json)')
    .option('-o, --output <FILE>', 'where to write the page (default: the input with .html)')
    .action(async (input: string, flags: { output?: string }) => {
      let json: unknown;
      try {
        // A timeline as tsmpi writes it is read line by line (a large run's is beyond one string).
        json = (await import('../trace/trace-files.js')).readTrace(input);
      } catch (error) {
        throw new TsmpiError(ErrorCode.Arg, `cannot read ${input} as JSON: ${(error as Error).message}`, { operation: 'tsmpi report', hint: 'give the file of tsmpi run --trace FILE or --profile-json FILE' });
      }
      const { reportFromProfile, reportFromTrace } = await import('../report/report-data.js');
      const { reportHtml } = await import('../report/report-page.js');
      const title = basename(input);
      let data;
      if (typeof json === 'object' && json !== null && 'traceEvents' in json) data = reportFromTrace(json as Parameters<typeof reportFromTrace>[0], title);
      else if (typeof json === 'object' && json !== null && 'calls' in json && 'matrix' in json) data = reportFromProfile(json as Parameters<typeof reportFromProfile>[0], title);
      else throw new TsmpiError(ErrorCode.Arg, `${input} is neither a timeline nor a profile`, { operation: 'tsmpi report', hint: 'give the file of tsmpi run --trace FILE or --profile-json FILE' });
      // The copy made at build time (scripts/bundle.mjs), or the package's when running from source.
      const built = new URL('../report/echarts.min.js', import.meta.url);
      const echarts = readFileSync(existsSync(built) ? built : createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), 'utf8');
      const output = flags.output ?? input.replace(/\.json$/, '') + '.html';
      writeFileSync(output, reportHtml(data, echarts));
      process.stdout.write(`tsmpi: report of ${data.ranks} ranks written to ${output}\n`);
    });
}
