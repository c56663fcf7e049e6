/**
 * `tsmpi run` without --procs: every rank is a worker thread of this process, all talking
 * through shared memory. On-demand initialisation applies (TSMPI_CG_PER_PROCESS,
 * TSMPI_MAPPING_FILE): non-members run the program but hold no communication state, and the
 * arena holds rings only for the members.
 */
import { availableParallelism } from 'node:os';
import { readSettings } from '../config/tunables.js';
import { prepareApp } from './app-loader.js';
import { threadJobInfo } from './job-info.js';
import { participation, ruleFromEnv } from './participation.js';
import { RankHost } from './rank-host.js';
import { finishRecording, recording } from '../trace/trace-files.js';

export { HANG_EXIT_CODE } from './rank-host.js';

export interface ThreadJobOptions {
  /** Number of ranks. */
  np: number;
  /** Path of the program (.ts or .js). */
  program: string;
  args: string[];
  /** Environment of the ranks (the launcher's own plus -x variables). */
  env: Record<string, string | undefined>;
  /** Prefix every output line with the rank, as mpirun --tag-output does. */
  tagOutput: boolean;
  /** Where the launcher writes its own messages. */
  log?: (line: string) => void;
}

export async function runThreadJob(options: ThreadJobOptions): Promise<number> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const job = threadJobInfo(options.np, `threads-${process.pid}`);
  const part = participation(ruleFromEnv(options.env, options.np), options.np);
  const settings = readSettings(options.env, { localRanks: part.members.length, cores: availableParallelism() });
  const app = await prepareApp(options.program);
  try {
    const code = await new RankHost({
      app,
      args: options.args,
      env: options.env,
      settings,
      job,
      participation: part,
      tagOutput: options.tagOutput,
      layout: settings.memoryBalance === 'shared' ? 'node-shared' : 'per-receiver',
      log,
    }).run();
    const recorded = recording(options.env);
    if (recorded !== undefined) for (const line of finishRecording(recorded, job.jobId, part.members.length)) log(line);
    return code;
  } finally {
    app.cleanup();
  }
}
