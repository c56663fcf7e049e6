/**
 * `init()`: the world communicator of the calling rank, built once per rank from the context its
 * host installed. A program started without a launcher (plain `node app.js`) is a world of one
 * rank, as an MPI singleton; under SLURM with several tasks that would silently run N separate
 * jobs, so it is an error instead.
 *
 * A rank that on-demand initialisation left out gets its handle at once and builds nothing. A
 * member whose peers live in other processes opens its TCP listener, tells its host, and waits for
 * the addresses of every member (the host runs the exchange); connections open on first use.
 */
import { availableParallelism, hostname } from 'node:os';
import { realClock } from '../clock.js';
import { readSettings, type Settings } from '../config/tunables.js';
import { Communicator } from '../comm/communicator.js';
import { Endpoint } from '../comm/endpoint.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { describeWait } from '../comm/context-names.js';
import { HybridTransport } from '../transport/hybrid-transport.js';
import { ProgressEngine } from '../transport/progress.js';
import { allocateShmArena } from '../transport/shm-arena.js';
import { ShmTransport } from '../transport/shm-transport.js';
import type { MultiRailTransport } from '../rails/multi-rail-transport.js';
import { parseRails, type RailSpec } from '../rails/rail-config.js';
import type { Transport } from '../transport/transport.js';
import { nodeLocal, processIndexes, threadJobInfo, type JobInfo } from './job-info.js';
import { MPI_STANDARD_VERSION, TSMPI_VERSION } from '../version-number.js';
import { notifyPeerGone, RUNTIME, takePendingNotices } from './peer-notices.js';
import { currentRank, type HostToRank, type LauncherChannel, type MemberContext, type RankContext } from './rank-context.js';
import type { RankRecord } from './rendezvous.js';
import { installCallTracing } from '../trace/call-tracing.js';
import { RankTrace, type TraceChunk } from '../trace/rank-trace.js';


/** The largest frame a rank accepts from a TCP peer (a DATA chunk is far smaller). */
const MAX_TCP_FRAME = 64 * 1024 * 1024;
/** Payload bytes per TCP frame: large writes, fewer system calls (the receiver copies pieces as they come). */
const TCP_FRAME_PAYLOAD = 1024 * 1024;
/** A sleeping rank without sockets blocks this long at most before its event loop runs. */
const SYNC_SLEEP_SLICE_MS = 2;

interface Runtime {
  world: Communicator;
  endpoint: Endpoint | undefined;
  settings: Settings;
  job: JobInfo;
  /** Shared-memory bytes reserved for this rank's process (0 for non-members). */
  arenaBytes: number;
  tcp: boolean;
  rails?: MultiRailTransport;
  railPolicy?: string;
}

/** What communication state a rank holds (seed 5: non-members hold none). */
export interface CommunicationState {
  member: boolean;
  /** Links created so far (one per peer talked to, itself included). */
  links: number;
  /** Bytes of ring address space the rank's process reserved for its member ranks (pages are committed on use). */
  arenaBytes: number;
  /** Whether the rank listens for TCP peers. */
  listening: boolean;
  /**
   * Large messages this rank received by copying them straight out of their sender's memory (sent
   * from an allocMem array by a rank thread of this process: one copy), and their bytes.
   */
  pulled: { messages: number; bytes: number };
  /** With several rails (TSMPI_RAILS): what each rail carried and what went wrong. */
  rails?: RailState;
}

export interface RailState {
  policy: string;
  /** Per peer (world rank): acknowledged bytes sent on each rail, rail 0 first. */
  bytesSent: Record<number, number[]>;
  /** Per peer: times each rail failed (closed, or stopped acknowledging). */
  failures: Record<number, number[]>;
  /** Per peer: what the rail policy learnt (rates, weights, decisions). */
  learnt: Record<number, Record<string, unknown>>;
  /** Segments sent again after a rail failed. */
  resentSegments: number;
  /** Received segment bytes dropped because they had arrived before. */
  duplicateBytes: number;
}

/** A world of one rank for programs started without a launcher. */
function singletonContext(): MemberContext {
  return {
    kind: 'member',
    rank: 0,
    size: 1,
    resourceId: 0,
    localRank: 0,
    localSize: 1,
    arena: allocateShmArena(1, 16 * 1024),
    slot: 0,
    worldOfSlot: [0],
    job: { ...threadJobInfo(1, `singleton-${process.pid}`), launcher: 'singleton' },
  };
}

function installedContext(): { context: RankContext; channel: LauncherChannel | undefined; cache: Map<string, unknown> } {
  const { context, channel, cache } = currentRank();
  if (context !== undefined) return { context, channel, cache };
  const tasks = Number(process.env.SLURM_STEP_NUM_TASKS ?? process.env.SLURM_NTASKS ?? '1');
  if (tasks > 1) {
    throw new TsmpiError(ErrorCode.Init, `SLURM started ${tasks} tasks but this one has no tsmpi world`, {
      rank: Number(process.env.SLURM_PROCID ?? -1),
      operation: 'init',
      hint: 'start the program with `srun --mpi=pmi2 tsmpi exec app.ts` so the tasks find each other',
    });
  }
  return { context: singletonContext(), channel, cache };
}

/**
 * Waits for the host's `world` message (every member's address and the job secret). The host
 * channel does not keep a thread alive, so a timer does until the message comes.
 */
function awaitWorld(channel: LauncherChannel): Promise<{ records: RankRecord[]; secret: string }> {
  const keepAlive = setInterval(() => {}, 1 << 30);
  return new Promise((resolve) => {
    channel.onMessage((message: HostToRank) => {
      if (message.type === 'world') {
        clearInterval(keepAlive);
        resolve({ records: message.records, secret: message.secret });
      }
    });
  });
}

async function buildTransport(context: MemberContext, settings: Settings, channel: LauncherChannel | undefined): Promise<{ transport: Transport; job: JobInfo; rails?: MultiRailTransport }> {
  const shm = new ShmTransport(context.arena, context.slot, context.worldOfSlot, context.size);
  if (context.tcp === undefined) return { transport: shm, job: context.job };
  if (channel === undefined) throw new TsmpiError(ErrorCode.Init, 'a rank with remote peers has no host to exchange addresses with', { rank: context.rank, operation: 'init', hint: 'start it with tsmpi exec' });
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const rails = parseRails(settings.rails);
  if (rails.length >= 2) return buildRailTransport(context, context.tcp.jobId, settings, channel, shm, rails, log);
  // Sockets and their handshake (node:net, node:crypto) load only for ranks with remote peers.
  const { TcpTransport } = await import('../transport/tcp-transport.js');
  const tcp = new TcpTransport({
    rank: context.rank,
    secret: Buffer.alloc(0),
    jobId: context.tcp.jobId,
    listenHost: context.tcp.listenHost,
    maxFramePayload: TCP_FRAME_PAYLOAD,
    maxFrameBytes: MAX_TCP_FRAME,
    eagerLimit: settings.tcpEagerLimit,
    reuseReadBuffer: settings.tcpReadBuffer === 'reused',
    log,
  });
  const world = awaitWorld(channel);
  const address = await tcp.listen();
  channel.post({ type: 'listening', rank: context.rank, host: address.host, port: address.port });
  const { records, secret } = await world;
  tcp.setPeers(
    records.map((r) => ({ host: r.host, port: r.port })),
    Buffer.from(secret, 'hex'),
  );
  return { transport: new HybridTransport(shm, tcp), job: jobFromRecords(context, records) };
}

/** The job information, completed with where every member really is (from the rendezvous). */
function jobFromRecords(context: MemberContext, records: readonly RankRecord[]): JobInfo {
  const nodes = [...new Set(records.map((r) => r.node))];
  return {
    ...context.job,
    nodes,
    nodeOfRank: records.map((r) => nodes.indexOf(r.node)),
    pids: records.map((r) => r.pid),
    addresses: records.map((r) => `${r.host}:${r.port}`),
  };
}

/** TCP over several rails (TSMPI_RAILS): a listener per rail, a MultiRailTransport on top. */
async function buildRailTransport(
  context: MemberContext,
  jobId: string,
  settings: Settings,
  channel: LauncherChannel,
  shm: ShmTransport,
  rails: RailSpec[],
  log: (line: string) => void,
): Promise<{ transport: Transport; job: JobInfo; rails?: MultiRailTransport }> {
  const world = awaitWorld(channel);
  // The rank's clock is the real one here (its ProgressEngine's); the simulator gives its rails a virtual one.
  const { openRails } = await import('../rails/open-rails.js');
  const listeners = await openRails({ rank: context.rank, jobId, rails, settings, maxFramePayload: TCP_FRAME_PAYLOAD, maxFrameBytes: MAX_TCP_FRAME, clock: realClock, log });
  const first = listeners.addresses[0]!;
  channel.post({ type: 'listening', rank: context.rank, host: first.host, port: first.port, rails: listeners.addresses });
  const { records, secret } = await world;
  const missing = records.find((r) => r.rails === undefined);
  if (missing !== undefined) {
    throw new TsmpiError(ErrorCode.Config, `rank ${missing.rank} has no rails but rank ${context.rank} has ${rails.length} (TSMPI_RAILS)`, {
      rank: context.rank,
      operation: 'init',
      hint: 'set TSMPI_RAILS for every process of the job',
    });
  }
  const multi = listeners.connect(records.map((r) => r.rails), Buffer.from(secret, 'hex'));
  return { transport: new HybridTransport(shm, multi), job: jobFromRecords(context, records), rails: multi };
}

/** How long a rank not waiting in tsmpi watches its event loop when asked what it waits for (s). */
const IDLE_LOOK_SECONDS = 0.1;
/** Below this share of that look spent running, its thread counts as idle. */
const IDLE_LOOP_USE = 0.05;

/**
 * Returns the world communicator of this rank (the same object on every call). On a rank that
 * on-demand initialisation left out it returns at once a handle with `member === false`.
 * @throws {TsmpiError} ERR_INIT when started by SLURM with several tasks but not through `tsmpi exec`
 * @example
 * ```ts
 * import { init, Op } from 'tsmpi';
 * const comm = await init();
 * const total = await comm.allreduce(comm.rank, Op.sum);
 * ```
 */
export async function init(): Promise<Communicator> {
  const { context, channel, cache } = installedContext();
  const existing = cache.get(RUNTIME) as Runtime | undefined;
  if (existing !== undefined) return existing.world;
  // From now on: ranks that end tell the others (their host relays it), also while the world forms.
  channel?.onMessage((message) => {
    if (message.type === 'peer-gone') notifyPeerGone(cache, message);
  });
  const runtime = await buildRuntime(context, channel);
  cache.set(RUNTIME, runtime);
  const endpoint = runtime.endpoint;
  for (const notice of takePendingNotices(cache)) endpoint?.peerGone(notice.rank, notice.how, notice.linked);
  if (endpoint !== undefined && context.kind === 'member') {
    if (runtime.settings.tcpConnect === 'eager') endpoint.connectAll();
    channel?.onMessage((message) => {
      if (message.type === 'describe-waits') {
        const waits = endpoint.engine.describeWaits().map((d) => describeWait(d, endpoint.names));
        if (waits.length > 0) {
          channel.post({ type: 'waits', rank: context.rank, state: 'waiting', waits });
          return;
        }
        // Waiting in nothing of tsmpi: whether the thread sits idle (kept alive by a timer or a
        // socket) or works (a function the program did not await), by its event loop's use over
        // a short look.
        const before = performance.eventLoopUtilization();
        const resources = process.getActiveResourcesInfo();
        realClock.schedule(IDLE_LOOK_SECONDS, () => {
          const used = performance.eventLoopUtilization(performance.eventLoopUtilization(), before).utilization;
          channel.post({ type: 'waits', rank: context.rank, state: 'running', waits, resources, idle: used < IDLE_LOOP_USE });
        });
      }
    });
  }
  return runtime.world;
}

/** The rank's runtime: its transport and endpoint (members), and the world communicator, built in one place. */
async function buildRuntime(context: RankContext, channel: LauncherChannel | undefined): Promise<Runtime> {
  if (context.kind === 'non-member') {
    const settings = readSettings({});
    return { world: worldCommunicator(undefined, context.size, -1, settings, context.reason), endpoint: undefined, settings, job: context.job, arenaBytes: 0, tcp: false };
  }
  if (context.kind === 'sim') {
    // The simulator's transport brings its own way of waiting (and the rank's virtual clock).
    // Settings as the real rank would read them in its placement: the ranks of its simulated
    // process and host, and the host's cores.
    const localRanks = context.processRanks;
    const cores = context.cores ?? Number.POSITIVE_INFINITY;
    const settings = readSettings(context.env, { localRanks, cores, remotePeers: localRanks < context.size, hostRanks: context.hostRanks, simulated: true });
    const transport = context.transport;
    const endpoint = new Endpoint(transport, settings, (host) => transport.createProgress!(host, settings));
    endpoint.nodeOfWorld = context.job.nodeOfRank;
    endpoint.processOfWorld = processIndexes(context.job);
    endpoint.threadsOutnumberCores = Math.ceil(localRanks / settings.ranksPerThread) > cores;
    const sink = context.onTrace;
    if ((settings.trace !== '' || settings.profile !== '') && sink !== undefined) startTrace(endpoint, context.rank, settings, sink);
    return { world: worldCommunicator(endpoint, context.size, context.rank, settings), endpoint, settings, job: context.job, arenaBytes: 0, tcp: false };
  }
  const cores = context.cores ?? availableParallelism();
  const settings = readSettings(process.env, {
    localRanks: context.localSize,
    cores,
    remotePeers: context.tcp !== undefined,
    threadRanks: context.threadRanks ?? 1,
    hostRanks: nodeLocal(context.job.nodeOfRank).localSize[context.rank] ?? context.size,
  });
  const { transport, job, rails } = await buildTransport(context, settings, channel);
  const control = transport.control!;
  const slot = transport.slot!;
  // Ranks that share a thread cannot spin in place (the rank they wait for runs on it): they poll
  // between the thread's turns for the same budget.
  const shared = (context.threadRanks ?? 1) > 1;
  // A rank whose peers are all in its process (no socket to serve) sleeps in short blocking
  // slices; ranks that share a thread or have TCP peers need their event loop while they wait.
  const syncSleepMs = shared || context.tcp !== undefined ? 0 : SYNC_SLEEP_SLICE_MS;
  const handOff = Math.ceil(context.localSize / (context.threadRanks ?? 1)) > cores;
  const endpoint = new Endpoint(transport, settings, (host) =>
    new ProgressEngine(host, control, slot, shared ? 0 : settings.spinMicros, {
      sleepLimitMs: settings.sleepLimitMs,
      yieldMicros: shared ? settings.spinMicros : 0,
      socketTurnMicros: context.tcp !== undefined ? settings.socketSpinMicros : 0,
      syncSleepMs,
      handOff,
      yieldSpinMicros: shared ? 0 : settings.yieldSpinMicros,
    }),
  );
  endpoint.nodeOfWorld = job.nodeOfRank;
  endpoint.processOfWorld = processIndexes(job);
  // From what every rank of the process sees alike (its own thread may hold fewer ranks than the
  // others: 5 ranks 4 per thread): collectives choose by it, and ranks must not disagree.
  endpoint.threadsOutnumberCores = Math.ceil(context.localSize / settings.ranksPerThread) > cores;
  if ((settings.trace !== '' || settings.profile !== '') && channel !== undefined) {
    const trace = startTrace(endpoint, context.rank, settings, (chunk) => channel.post({ type: 'trace', chunk }));
    if (rails !== undefined && settings.trace !== '') rails.segmentObserver = (rail, peer, bytes) => trace.segment(rail, peer, bytes);
    // The rank's last events go to its host when its program has nothing left to do, or when
    // the job is failing and the host stops the ranks.
    process.on('beforeExit', () => trace.flush(true));
    channel.onMessage((message) => {
      if (message.type === 'flush-trace') trace.flush(true);
    });
  }
  const arenaBytes = context.arena.control.byteLength + context.arena.rings.reduce((n, sab) => n + sab.byteLength, 0);
  return {
    world: worldCommunicator(endpoint, context.size, context.rank, settings),
    endpoint,
    settings,
    job,
    arenaBytes,
    tcp: context.tcp !== undefined,
    ...(rails ? { rails, railPolicy: settings.railPolicy } : {}),
  };
}

/** Records the rank's timeline (TSMPI_TRACE): a recorder on the endpoint, its calls wrapped. */
function startTrace(endpoint: Endpoint, rank: number, settings: Settings, sink: (chunk: TraceChunk) => void): RankTrace {
  installCallTracing();
  const trace = new RankTrace(rank, endpoint.engine.clock, { chunkEvents: settings.traceChunk, limit: settings.traceLimit, sink, events: settings.trace !== '', profile: settings.profile !== '' });
  endpoint.tracer = trace;
  return trace;
}

/** The world communicator: every rank, context 0 (its collectives 1), SELF at 2. */
function worldCommunicator(endpoint: Endpoint | undefined, size: number, rank: number, settings: Settings, notMember?: string): Communicator {
  const group = new Int32Array(size);
  for (let r = 0; r < size; r++) group[r] = r;
  return new Communicator({ endpoint, ...(notMember !== undefined ? { notMember } : {}), context: 0, group, rank, settings, selfContext: 2, predefined: true });
}

/**
 * The job information of this rank, after `init()`: the job manager's resource list, compacted
 * to the members when on-demand initialisation is on (seed 5), with every member's node, pid
 * and address once they are known.
 */
export function jobInfo(): JobInfo {
  const runtime = currentRank().cache.get(RUNTIME) as Runtime | undefined;
  if (runtime === undefined) throw new TsmpiError(ErrorCode.Init, 'jobInfo() before init()', { operation: 'jobInfo', hint: 'await init() first' });
  return runtime.job;
}

/** The communication state this rank holds (links, reserved rings, listener), after `init()`. */
export function communicationState(): CommunicationState {
  const runtime = currentRank().cache.get(RUNTIME) as Runtime | undefined;
  if (runtime === undefined) throw new TsmpiError(ErrorCode.Init, 'communicationState() before init()', { operation: 'communicationState', hint: 'await init() first' });
  const state: CommunicationState = {
    member: runtime.endpoint !== undefined,
    links: runtime.endpoint?.linkCount() ?? 0,
    arenaBytes: runtime.arenaBytes,
    listening: runtime.tcp,
    pulled: runtime.endpoint?.pulled() ?? { messages: 0, bytes: 0 },
  };
  if (runtime.rails !== undefined) state.rails = { policy: runtime.railPolicy ?? '', ...runtime.rails.report() };
  return state;
}

/** @internal The calling rank's point-to-point engine, after `init()` (rank-wide calls: attachBuffer). */
export function runtimeEndpoint(operation: string): Endpoint {
  const runtime = currentRank().cache.get(RUNTIME) as Runtime | undefined;
  if (runtime === undefined) throw new TsmpiError(ErrorCode.Init, `${operation}() before init()`, { operation, hint: 'await init() first' });
  if (runtime.endpoint === undefined) {
    throw new TsmpiError(ErrorCode.NotMember, 'this process is not a member of the communicating group', { operation, hint: 'check comm.member before communicating, or change TSMPI_CG_PER_PROCESS / TSMPI_MAPPING_FILE' });
  }
  return runtime.endpoint;
}

/**
 * Ends this rank's part (MPI_Finalize): waits for its outstanding sends to be delivered, tells
 * every peer it talked to that nothing more will come from it (a GOODBYE behind its last frame),
 * and marks it finished. Afterwards its communicators refuse every call (ERR_CLOSED), and a peer
 * that waits for a message from it, or sends to it, fails with ERR_PEER_GONE instead of waiting
 * for ever. Optional: a rank also ends when its program returns and nothing is left to do.
 */
export async function finalize(): Promise<void> {
  const { context, channel, cache } = currentRank();
  const endpoint = (cache.get(RUNTIME) as Runtime | undefined)?.endpoint;
  if (endpoint === undefined || endpoint.finalized) return;
  await endpoint.flush();
  if (context?.kind === 'sim') {
    // The simulator tells the others itself, once its last frame to each has arrived: a GOODBYE
    // would be a message on the simulated network.
    endpoint.finalized = true;
    context.onEnd?.('finalized', []);
  } else {
    const linked = endpoint.sayGoodbye();
    await endpoint.flush();
    endpoint.finalized = true;
    if (context?.kind === 'member') channel?.post({ type: 'finalized', rank: context.rank, linked });
  }
  endpoint.engine.finish();
}

/**
 * Aborts the whole job (MPI_Abort): every rank stops and the job exits with `code`.
 */
export function abort(code = 1, message = 'abort() called'): never {
  const { context, channel } = currentRank();
  const rank = context?.kind === 'member' || context?.kind === 'sim' ? context.rank : -1;
  channel?.post({ type: 'abort', rank, code, message });
  // Under `tsmpi sim` no launcher hears the post: say it as the launcher would.
  if (channel === undefined && context?.kind === 'sim') process.stderr.write(`tsmpi: rank ${rank} called abort(${code}): ${message}\n`);
  process.exit(code);
}

/** True once `init()` has completed on this rank (MPI_Initialized); stays true after finalize. */
export function isInitialized(): boolean {
  return currentRank().cache.get(RUNTIME) !== undefined;
}

/** True once `finalize()` has completed on this rank (MPI_Finalized). */
export function isFinalized(): boolean {
  return (currentRank().cache.get(RUNTIME) as Runtime | undefined)?.endpoint?.finalized === true;
}

/** The MPI standard version whose semantics tsmpi follows, [major, minor] (MPI_Get_version). */
export function getVersion(): [major: number, minor: number] {
  return [MPI_STANDARD_VERSION[0], MPI_STANDARD_VERSION[1]];
}

/** The library's name, version and runtime (MPI_Get_library_version), e.g. "tsmpi 0.1.0 (Node.js v20.20.2)". */
export function getLibraryVersion(): string {
  return `tsmpi ${TSMPI_VERSION} (Node.js ${process.version})`;
}

/**
 * The resolution of `wtime()` in seconds (MPI_Wtick): a microsecond, the least the monotonic clock
 * guarantees (its steps are finer, ~0.05 us, on Linux); under `tsmpi sim`, virtual time has no
 * step, and a nanosecond is given, as SimGrid's SMPI does.
 */
export function wtick(): number {
  return currentRank().context?.kind === 'sim' ? 1e-9 : 1e-6;
}

/**
 * The name of this rank's machine (MPI_Get_processor_name): its node in the job (the host name;
 * over ssh the hostfile's name; under SLURM the node's; under `tsmpi sim` the simulated host's),
 * or this machine's host name off the communicating group.
 */
export function processorName(): string {
  const { context, cache } = currentRank();
  const runtime = cache.get(RUNTIME) as Runtime | undefined;
  // Before init() the rank's context already knows its node (threads, processes, the simulator).
  const [job, rank] = runtime !== undefined ? [runtime.job, runtime.world.rank] : context?.kind === 'member' || context?.kind === 'sim' ? [context.job, context.rank] : [undefined, -1];
  if (job === undefined || rank < 0) return hostname();
  return job.nodes[job.nodeOfRank[rank] ?? -1] ?? hostname();
}

/** Seconds since an arbitrary origin (MPI_Wtime); under `tsmpi sim`, the rank's virtual time. */
export function wtime(): number {
  const context = currentRank().context;
  if (context?.kind === 'sim' && context.now !== undefined) return context.now();
  return realClock.now();
}
