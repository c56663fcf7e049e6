/**
 * `init()`: the world communicator of the calling rank, built once per rank from the context its
 * launcher installed. A program started without a launcher (plain `node app.js`) is a world of one
 * rank, as an MPI singleton; under SLURM with several tasks that would silently run N separate
 * jobs, so it is an error instead.
 */
import { availableParallelism } from 'node:os';
import { readSettings } from '../config/tunables.js';
import { Communicator } from '../comm/communicator.js';
import { Endpoint } from '../comm/endpoint.js';
import { ErrorCode, TsmpiError } from '../comm/errors.js';
import type { RequestDescription } from '../comm/request.js';
import { allocateShmArena } from '../transport/shm-arena.js';
import { ShmTransport } from '../transport/shm-transport.js';
import { currentRank, type ThreadWorldContext } from './rank-context.js';

const RUNTIME = 'runtime';

interface Runtime {
  world: Communicator;
  endpoint: Endpoint;
}

/** A world of one rank for programs started without a launcher. */
function singletonContext(): ThreadWorldContext {
  return { kind: 'threads', rank: 0, size: 1, localRank: 0, localSize: 1, arena: allocateShmArena(1, 16 * 1024), slot: 0, worldOfSlot: [0] };
}

export function describeWait(d: RequestDescription): string {
  const sending = /send/i.test(d.operation);
  const peer = d.peer < 0 ? 'any source' : `rank ${d.peer}`;
  const tag = d.tag < 0 ? 'any tag' : `tag ${d.tag}`;
  return `${d.operation} ${sending ? 'to' : 'from'} ${peer}, ${tag}, context ${d.context}`;
}

/**
 * Returns the world communicator of this rank (the same object on every call).
 * @throws {TsmpiError} ERR_INIT when started by SLURM with several tasks but not through `tsmpi exec`
 * @example
 * ```ts
 * import { init, Op } from 'tsmpi';
 * const comm = await init();
 * const total = await comm.allreduce(comm.rank, Op.sum);
 * ```
 */
export async function init(): Promise<Communicator> {
  const { context: installed, channel, cache } = currentRank();
  const existing = cache.get(RUNTIME) as Runtime | undefined;
  if (existing !== undefined) return existing.world;
  let context = installed;
  if (context === undefined) {
    const tasks = Number(process.env.SLURM_NTASKS ?? '1');
    if (tasks > 1) {
      throw new TsmpiError(ErrorCode.Init, `SLURM started ${tasks} tasks but this one has no tsmpi world`, {
        rank: Number(process.env.SLURM_PROCID ?? -1),
        operation: 'init',
        hint: 'start the program with `srun tsmpi exec app.ts` so the tasks find each other',
      });
    }
    context = singletonContext();
  }
  const settings = readSettings(process.env, { localRanks: context.localSize, cores: availableParallelism() });
  const transport = new ShmTransport(context.arena, context.slot, context.worldOfSlot, context.size);
  const endpoint = new Endpoint(transport, settings);
  const group = new Int32Array(context.size);
  for (let r = 0; r < context.size; r++) group[r] = r;
  const world = new Communicator({ endpoint, context: 0, group, rank: context.rank, settings, selfContext: 2 });
  cache.set(RUNTIME, { world, endpoint } satisfies Runtime);
  channel?.onMessage((message) => {
    if (message.type === 'describe-waits') {
      const waits = endpoint.engine.describeWaits().map(describeWait);
      channel.post({ type: 'waits', rank: context!.rank, state: waits.length > 0 ? 'waiting' : 'running', waits });
    }
  });
  return world;
}

/**
 * Ends this rank's part: waits for its outstanding sends to be delivered, then marks it finished.
 * Optional: a rank also ends when its program returns and nothing is left to do.
 */
export async function finalize(): Promise<void> {
  const runtime = currentRank().cache.get(RUNTIME) as Runtime | undefined;
  if (runtime === undefined) return;
  await runtime.endpoint.flush();
  runtime.endpoint.engine.finish();
}

/**
 * Aborts the whole job (MPI_Abort): every rank stops and the job exits with `code`.
 */
export function abort(code = 1, message = 'abort() called'): never {
  const { context, channel } = currentRank();
  const rank = context?.rank ?? 0;
  channel?.post({ type: 'abort', rank, code, message });
  process.exit(code);
}

/** Seconds since an arbitrary origin (MPI_Wtime). */
export function wtime(): number {
  return performance.now() / 1000;
}
