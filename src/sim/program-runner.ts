/**
 * Runs a tsmpi program in virtual time: every rank is the program's module, loaded once per rank
 * (an import URL with the rank in its query gives each rank its own module instance), evaluated
 * in that rank's context (whose turn it is, or an AsyncLocalStorage's), so the program's `await init()` gets
 * that rank's communicator. tsmpi itself is loaded once and shared, or once per rank
 * (`rankRuntimes`, rank-runtimes.ts).
 *
 * The loop (see world.ts): take the earliest network event or rank to resume; after resuming a
 * rank, let its JavaScript run until it waits in tsmpi again or its program ends (loading the
 * module is asynchronous I/O, so "until the microtasks settle" would not do), then continue. When
 * nothing is left and some ranks have not finished, they are deadlocked: each one's waits are
 * reported.
 */
import type { TraceChunk } from '../trace/rank-trace.js';
import { mapProfileSites } from '../trace/rank-profile.js';
import { isOwnSource } from '../trace/call-tracing.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { prepareApp, tsmpiRuntimeScript } from '../bootstrap/app-loader.js';
import { RankRuntimes } from './rank-runtimes.js';
import { notifyPeerGone } from '../bootstrap/peer-notices.js';
import { nodeLocal, type JobInfo } from '../bootstrap/job-info.js';
import { setRankResolver, type LauncherChannel, type RankContext } from '../bootstrap/rank-context.js';
import { describeWait, type ContextNames } from '../comm/context-names.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { RequestDescription } from '../comm/request.js';
import { Simulation } from './engine.js';
import type { NetworkModel } from './network/model.js';
import { readSettings } from '../config/tunables.js';
import { SimFabric, SimTransport } from './sim-transport.js';
import { meterCalls } from './call-meter.js';
import { SimSharedMemory } from './sim-shared-memory.js';
import { installVirtualTimers, type TimerHost } from './virtual-timers.js';
import { SimWorld, type ComputeMode, type FrameCosts, type RankStats, type WakeModel } from './world.js';
import { importModule } from '../bootstrap/module-import.js';

export interface SimHosts {
  readonly count: number;
  readonly names: readonly string[];
  /** Virtual seconds per real second of CPU on `host` at time `at` (1 / relative speed, load included). */
  cpuScale(host: number, at: number): number;
  /** Virtual seconds `flops` take on `host` from time `at`. */
  flopsTime(host: number, at: number, flops: number): number;
}

/**
 * A program given as a function instead of a file (the trace replayer): called once per rank,
 * inside the rank's context, so `init()` returns that rank's communicator.
 */
export interface RankMain {
  readonly name: string;
  run(rank: number): Promise<unknown>;
  /**
   * Each rank is one sequential flow that waits only in tsmpi and reads its rank context only
   * while it starts (init() is its first call), as the trace replayer is. Such a rank is blocked
   * as soon as it waits, so its segment ends there, without a turn of the event loop; and no
   * AsyncLocalStorage is needed, whose promise hooks tax every promise of the run.
   */
  readonly singleFlow?: boolean;
}

export interface ProgramRunOptions {
  /** A program file (run unchanged, as `tsmpi run` would), or a function per rank. */
  program: string | RankMain;
  args: string[];
  np: number;
  hosts: SimHosts;
  /** Host of each rank. */
  hostOf: readonly number[];
  /** Process of each rank (see SimWorldOptions.procOf). */
  procOf?: readonly number[];
  /** Cores of each host (see SimWorldOptions.coresOf). */
  coresOf?: readonly number[];
  /** Per-frame costs of a calibrated machine, made from the run's network model. */
  frameCosts?: (network: NetworkModel) => FrameCosts;
  /** Wake-ups of ranks that slept (see SimWorldOptions.wakeModel). */
  wakeModel?: WakeModel;
  /**
   * Give each rank of a program file its own copy of tsmpi's runtime (rank-runtimes.ts), so that
   * each pays its own JIT warm-up, as each rank's isolate does in a real run.
   */
  rankRuntimes?: boolean;
  /** Stop the CPU meter inside tsmpi calls (call-meter.ts): a calibrated machine's frame costs are the runtime's. */
  meterCalls?: boolean;
  /** Builds the network model on the run's simulation. */
  network: (sim: Simulation) => NetworkModel;
  /** Network planes of the platform (the ranks' multi-rail links use them all). @default 1 */
  rails?: number;
  /** Bytes/s of each plane's network cards (0: unknown). */
  railRates?: readonly number[];
  computeMode: ComputeMode;
  /** CPU seconds per frame sent to another host, and to the same host (see SimWorldOptions). */
  messageOverhead?: number;
  localMessageOverhead?: number;
  /** Bytes a frame puts on the wire besides its payload. @default 32, the frame header */
  envelopeBytes?: number;
  /** See SimWorldOptions.freeHandshakes. */
  freeHandshakes?: boolean;
  /** Record every rank's timeline (and the simulator's account of its time) and/or its profile. */
  record?: { trace: boolean; profile: boolean };
  /** Environment of the simulated ranks (their TSMPI_* settings). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Called now and then with the progress of the run (for a progress bar). */
  onProgress?: (p: { virtualTime: number; events: number; finished: number; ranks: number }) => void;
}

/**
 * A rank of a simulated program failed: it threw (exit code 1), called `process.exit(n)` or
 * `abort(n)` with n > 0 (exit code n). The simulation stops there, as a real job would.
 */
export class SimRankFailure extends TsmpiError {
  /** The exit code a real run would end with: the failing rank's own. */
  readonly exitCode: number;
  /** The rank's error, with its stack mapped to the program's sources (undefined for an exit). */
  readonly rankError: string | undefined;
  /** Virtual time the simulation had reached. */
  readonly virtualTime: number;

  constructor(rank: number, exitCode: number, rankError: string | undefined, virtualTime: number, cause: unknown) {
    const what = rankError === undefined ? `exited with code ${exitCode}` : 'failed';
    super(ErrorCode.Aborted, `rank ${rank} ${what} at ${virtualTime} s of virtual time${rankError === undefined ? '' : `:\n${rankError}`}`, {
      rank,
      operation: 'tsmpi sim',
      hint: 'the program fails as it would in a real run: fix it and simulate again',
      cause,
    });
    this.exitCode = exitCode;
    this.rankError = rankError;
    this.virtualTime = virtualTime;
  }
}

/** Thrown by `process.exit(n)` inside a simulated rank: it ends that rank, not the simulator. */
class RankExit {
  constructor(readonly code: number) {}
}

export interface SimRunResult {
  makespan: number;
  ranks: RankStats[];
  events: number;
  wallSeconds: number;
  network: NetworkModel;
  world: SimWorld;
  /** Every rank's timeline, when recorded, and the name of each rank's host. */
  traceChunks?: TraceChunk[][];
  traceNodes?: string[];
}

interface RankStore {
  context: RankContext;
  channel?: LauncherChannel;
  cache: Map<string, unknown>;
}

/** Checks (10 ms apart) for ranks in real timers or I/O before an idle world counts as deadlocked. */
const IDLE_CHECKS = 100;
/** Timer events in a row, with nothing else left, after which the world counts as idle. */
const TIMER_ONLY_EVENTS = 10_000;

/**
 * What a turn of this thread's event loop takes with nothing to do (real milliseconds): the lower
 * quartile of a few turns, so that a slow one (a GC, the OS) is not taken for the usual.
 */
async function eventLoopTurnMillis(): Promise<number> {
  const turns: number[] = [];
  for (let i = 0; i < 48; i++) {
    const start = performance.now();
    await new Promise<void>((resolve) => setImmediate(resolve));
    turns.push(performance.now() - start);
  }
  turns.sort((a, b) => a - b);
  return turns[turns.length >> 2]!;
}

export async function runProgram(options: ProgramRunOptions): Promise<SimRunResult> {
  const started = performance.now();
  const main = options.program;
  const runtimes = typeof main === 'string' && options.rankRuntimes === true ? new RankRuntimes(tsmpiRuntimeScript) : undefined;
  const app = typeof main === 'string' ? await prepareApp(main, 'tsmpi sim', { shareTsmpi: true, ...(runtimes !== undefined ? { rankRuntimeExports: runtimes.exportNames() } : {}) }) : undefined;
  const sim = new Simulation();
  const network = options.network(sim);
  const world = new SimWorld({
    sim,
    network,
    hostOf: options.hostOf,
    ...(options.procOf !== undefined ? { procOf: options.procOf } : {}),
    ...(options.coresOf !== undefined ? { coresOf: options.coresOf } : {}),
    ...(options.frameCosts !== undefined ? { frameCosts: options.frameCosts(network) } : {}),
    ...(options.wakeModel !== undefined ? { wakeModel: options.wakeModel } : {}),
    computeMode: options.computeMode,
    cpuScale: (h, t) => options.hosts.cpuScale(h, t),
    flopsTime: (h, t, f) => options.hosts.flopsTime(h, t, f),
    ...(options.messageOverhead !== undefined ? { messageOverhead: options.messageOverhead } : {}),
    ...(options.localMessageOverhead !== undefined ? { localMessageOverhead: options.localMessageOverhead } : {}),
    ...(options.envelopeBytes !== undefined ? { envelopeBytes: options.envelopeBytes } : {}),
    ...(options.freeHandshakes ? { freeHandshakes: true } : {}),
  });
  if (options.record?.trace === true) world.spans = [];
  const unmeter = options.meterCalls === true ? meterCalls(world) : undefined;
  const fabric = new SimFabric(world, options.rails ?? 1, options.railRates ?? []);
  // Every rank in one simulated process: they share its memory, as rank threads do.
  const procOf = options.procOf;
  const shared = options.np > 1 && procOf !== undefined && procOf.every((p) => p === procOf[0]) ? new SimSharedMemory(world) : undefined;
  const singleFlow = typeof main !== 'string' && main.singleFlow === true;
  // Whose code runs. A rank starting (a single flow reads its context only then) is `starting`.
  // Else the rank whose turn it is: the runner resumes one rank at a time and waits until its code
  // stops. AsyncLocalStorage (TSMPI_SIM_CONTEXT=async) follows each async flow instead, also into
  // real timers' and I/O callbacks, but its promise hooks tax every promise of the run, and that
  // counted as the ranks' compute (docs/simulator.md, "The simulator's own work in a rank's turn").
  const als = !singleFlow && readSettings(options.env ?? process.env).simContext === 'async' ? new AsyncLocalStorage<RankStore>() : undefined;
  let starting: RankStore | undefined;
  const stores: RankStore[] = [];
  const storeNow =
    als !== undefined
      ? (): RankStore | undefined => als.getStore()
      : singleFlow
        ? (): RankStore | undefined => starting
        : (): RankStore | undefined => {
            const running = world.current;
            return running !== null ? stores[running.rank] : starting;
          };
  setRankResolver(storeNow);
  const uninstallRuntimes = runtimes?.install(() => {
    const context = storeNow()?.context;
    return context !== undefined && 'rank' in context ? context.rank : undefined;
  });
  const job: JobInfo = {
    launcher: 'threads',
    jobId: `sim-${process.pid}`,
    size: options.np,
    first: 0,
    count: options.np,
    nodes: options.hosts.names,
    nodeOfRank: options.hostOf,
    localRankOf: options.hostOf.map(() => 0),
    // A simulated process per procOf entry (one per rank unless given), as collectives that choose
    // by the ranks' processes see them in a real run.
    pids: options.hostOf.map((_, rank) => (options.procOf?.[rank] ?? rank) + 1),
    addresses: options.hostOf.map((h) => options.hosts.names[h] ?? ''),
  };
  const givenEnv = options.env ?? process.env;
  // A traced simulation: every rank records its timeline (the same recorder as a real run's).
  const env = options.record !== undefined ? { ...givenEnv, TSMPI_TRACE: options.record.trace ? 'sim' : '', TSMPI_PROFILE: options.record.profile ? '1' : '' } : givenEnv;
  const traceChunks: TraceChunk[][] | undefined = options.record !== undefined ? Array.from({ length: options.np }, () => []) : undefined;
  const failures: { rank: number; error: unknown }[] = [];
  let finished = 0;
  if (app !== undefined) process.argv = [process.execPath, app.path, ...options.args];
  // Every rank shares this process: each sees its own TSMPI_RANK, TSMPI_SIZE, TSMPI_LOCAL_RANK
  // and TSMPI_LOCAL_SIZE in process.env, as ranks of `tsmpi run` do, and the environment the
  // simulation gave the ranks (a setting such as TSMPI_COLL_RULES reads as the ranks obey it).
  const realEnv = process.env;
  const { localRank, localSize } = nodeLocal(options.hostOf);
  const procRanks = new Map<number, number>();
  for (const pid of job.pids) procRanks.set(pid, (procRanks.get(pid) ?? 0) + 1);
  const rankEnv = (key: string | symbol): string | undefined => {
    const context = storeNow()?.context;
    if (context?.kind !== 'sim' || typeof key !== 'string') return undefined;
    if (key === 'TSMPI_RANK') return String(context.rank);
    if (key === 'TSMPI_SIZE') return String(options.np);
    if (key === 'TSMPI_LOCAL_RANK') return String(localRank[context.rank]);
    if (key === 'TSMPI_LOCAL_SIZE') return String(localSize[context.rank]);
    return context.env === realEnv ? undefined : context.env[key];
  };
  process.env = new Proxy(realEnv, {
    get: (target, key) => rankEnv(key) ?? Reflect.get(target, key),
    has: (target, key) => rankEnv(key) !== undefined || Reflect.has(target, key),
    ownKeys: (target) => {
      const context = storeNow()?.context;
      const own = context?.kind === 'sim' ? ['TSMPI_RANK', 'TSMPI_SIZE', 'TSMPI_LOCAL_RANK', 'TSMPI_LOCAL_SIZE', ...(context.env === realEnv ? [] : Object.keys(context.env))] : [];
      return [...new Set([...Reflect.ownKeys(target), ...own])];
    },
    getOwnPropertyDescriptor: (target, key) => {
      const value = rankEnv(key);
      return value !== undefined ? { value, enumerable: true, configurable: true, writable: true } : Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
  // Every rank shares this process: exit() and uncaught errors of a rank end that rank (and so
  // the simulation, as a real job ends), never the simulator itself.
  const realExit = process.exit;
  // process.exitCode is one property for every rank: whatever a rank sets during its segment is
  // taken back for that rank when the segment ends, and a rank that ends with a non-zero code
  // fails the run as it fails a real job.
  const baseExitCode = process.exitCode;
  const rankExitCodes = new Map<number, number>();
  const takeExitCode = (rank: number): number | undefined => {
    const code = process.exitCode;
    if (code !== baseExitCode) {
      process.exitCode = baseExitCode;
      const n = Number(code ?? 0) || 0;
      if (n !== 0) rankExitCodes.set(rank, n);
      else rankExitCodes.delete(rank);
    }
    return rankExitCodes.get(rank);
  };
  process.exit = ((code?: number | string | null) => {
    const context = storeNow()?.context;
    if (context?.kind !== 'sim') return realExit.call(process, code);
    const exit = new RankExit(Number(code ?? takeExitCode(context.rank) ?? 0) || 0);
    // A failing exit ends the job even where the program catches what is thrown here (an abort
    // inside a try, a fatal error handler's): a real process would not have gone on.
    if (exit.code !== 0) failures.push({ rank: context.rank, error: exit });
    throw exit;
  }) as typeof process.exit;
  // A rejection nobody handled is reported once the microtasks have drained, after the turn of
  // the rank that made it may have ended: that rank's turn was the last one.
  const onStray = (error: unknown): void => {
    const context = storeNow()?.context;
    const rank = context?.kind === 'sim' ? context.rank : (world.lastTurn?.rank ?? -1);
    failures.push({ rank, error });
  };
  process.on('uncaughtException', onStray);
  process.on('unhandledRejection', onStray);
  /**
   * Rank `rank` ended: every other rank hears of it (Endpoint.peerGone), as a real job's host
   * tells them, once the last frame the rank sent it has arrived (no frame on the wire for it).
   */
  const announceEnd = (rank: number, how: string): void => {
    for (let other = 0; other < stores.length; other++) {
      if (other === rank) continue;
      fabric.whenDelivered(rank, other, () => notifyPeerGone(stores[other]!.cache, { type: 'peer-gone', rank, how, linked: [] }));
    }
  };
  // A rank's own setTimeout / setInterval wait in its virtual clock (once init() gave it one).
  const restoreTimers = installVirtualTimers(() => {
    const context = storeNow()?.context;
    if (context?.kind !== 'sim') return undefined;
    const engine = (stores[context.rank]?.cache.get('runtime') as { endpoint?: { engine: Partial<TimerHost> } } | undefined)?.endpoint?.engine;
    return engine?.startTimer !== undefined ? (engine as TimerHost) : undefined;
  });
  try {
    // Every rank starts at time 0 from the resume queue, in rank order: until a rank has started,
    // it may still send at time 0, so the network must not run ahead of it (see advanceNetwork).
    const unstarted = new Set<number>();
    for (let r = 0; r < options.np; r++) {
      const simRank = world.ranks[r]!;
      const store: RankStore = {
        context: {
          kind: 'sim',
          rank: r,
          size: options.np,
          transport: new SimTransport(fabric, r, shared?.viewsOf(simRank)),
          ...(options.coresOf !== undefined ? { cores: options.coresOf[options.hostOf[r]!]! } : {}),
          processRanks: procRanks.get(job.pids[r]!)!,
          hostRanks: localSize[r]!,
          job,
          env,
          now: () => world.rankNow(simRank),
          onEnd: (how) => announceEnd(r, how),
          ...(traceChunks !== undefined ? { onTrace: (chunk: TraceChunk) => traceChunks[r]!.push(chunk) } : {}),
        },
        cache: new Map(),
      };
      stores.push(store);
      unstarted.add(r);
      simRank.resume = () => {
        let evaluation: Promise<unknown>;
        const start = (): Promise<unknown> => (app !== undefined ? importModule(`${app.url}?tsmpi-rank=${r}`) : (main as RankMain).run(r));
        if (als !== undefined) evaluation = als.run(store, start);
        else {
          starting = store;
          try {
            evaluation = start();
          } finally {
            starting = undefined;
          }
        }
        const ended = (): void => {
          const code = takeExitCode(r);
          if (code !== undefined) {
            failures.push({ rank: r, error: new RankExit(code) });
            if (simRank.running) world.endSegment(simRank);
            return;
          }
          world.finishRank(simRank);
          finished++;
          // The others then fail a wait for it instead of deadlocking, as in a real run, once its
          // last sends (detached ones may still wait for their receives) have left it.
          const endpoint = (stores[r]!.cache.get('runtime') as { endpoint?: { finalized: boolean; whenSendsIdle(fn: () => void): void } } | undefined)?.endpoint;
          // A turn of the event loop first: a promise the rank left rejected is reported by then
          // (it failed: it did not end cleanly).
          if (endpoint !== undefined && !endpoint.finalized) {
            endpoint.whenSendsIdle(() => setImmediate(() => failures.some((f) => f.rank === r) || announceEnd(r, 'exited (code 0)')));
          }
        };
        evaluation.then(ended, (error: unknown) => {
          if (error instanceof RankExit && error.code === 0) return ended();
          failures.push({ rank: r, error });
          if (simRank.running) world.endSegment(simRank);
        });
      };
      world.wake(simRank, 0);
    }
    // Only a measured segment that ends after a turn needs it (not a trace's single flows).
    const turnMillis = !singleFlow && options.computeMode === 'measured' ? await eventLoopTurnMillis() : 0;
    let lastReport = performance.now();
    let idleChecks = 0;
    let timersOnly = 0;
    while (failures.length === 0 && finished < options.np) {
      // Events that are only ranks' timers, one after another, with nothing else to do: a
      // periodic timer (a conveyor's flush) would otherwise keep a deadlocked world going.
      if (world.onlyTimersLeft()) {
        if (++timersOnly > TIMER_ONLY_EVENTS) break;
      } else timersOnly = 0;
      // next() resolves the rank's waiter: its code runs from the microtask queue, after we
      // have started waiting for its segment to end.
      const next = world.next();
      if (next === undefined) {
        // Nothing scheduled: ranks may still be in real timers or I/O (outside virtual time).
        if (finished + failures.length === options.np || idleChecks++ >= IDLE_CHECKS) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      idleChecks = 0;
      if (next !== null && unstarted.delete(next.rank)) {
        // Loading the program is asynchronous I/O: wait until the rank first waits in tsmpi, then
        // until its microtasks settle.
        await world.firstWait(next);
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (next.running) world.endSegment(next);
      } else if (next !== null && singleFlow) {
        // One flow: its first wait that does not return at once blocks it.
        await world.firstWait(next);
        if (next.running) world.endSegment(next);
      } else if (next !== null) {
        // The rank runs until every one of its microtasks has settled (all its async flows wait
        // in tsmpi, or on each other): only then is it blocked. A wait alone does not end it.
        // When the turn came round: what the runner does after that (taking up its own await,
        // compiling its loop while V8 warms up) is not the rank's.
        let turned = Number.NaN;
        const turn = new Promise<void>((resolve) =>
          setImmediate(() => {
            turned = performance.now();
            resolve();
          }),
        );
        const ended = Promise.race([world.segmentEnd(next), turn]);
        // Its code runs once this await yields: until then the time is the runner's (resolving
        // its waiters, the promises above), not the rank's. Measured on a warm 2-rank ping-pong of
        // 16 B: 1.9 us of each 5.6 us segment.
        world.restartMeter(next);
        await ended;
        if (next.running) world.endSegmentAfterTurn(next, turnMillis, turned);
      }
      if (next !== null) takeExitCode(next.rank);
      if (options.onProgress && performance.now() - lastReport > 200) {
        lastReport = performance.now();
        options.onProgress({ virtualTime: sim.now(), events: sim.processed, finished, ranks: options.np });
      }
    }
    options.onProgress?.({ virtualTime: sim.now(), events: sim.processed, finished, ranks: options.np });
    if (failures.length > 0) {
      const { rank, error } = failures[0]!;
      if (error instanceof RankExit) throw new SimRankFailure(rank, error.code, undefined, sim.now(), error);
      const text = (app?.mapStack ?? ((t: string) => t))(error instanceof Error ? (error.stack ?? String(error)) : String(error));
      throw new SimRankFailure(rank, 1, text, sim.now(), error);
    }
    const stuck = world.ranks.filter((r) => Number.isNaN(r.stats.end));
    if (stuck.length > 0) {
      const lines = stuck.slice(0, 32).map((r) => {
        const runtime = stores[r.rank]!.cache.get('runtime') as { endpoint?: { engine: { describeWaits(): RequestDescription[] }; names: ContextNames } } | undefined;
        const waits = runtime?.endpoint?.engine.describeWaits() ?? [];
        return `  rank ${r.rank}: ${waits.length > 0 ? waits.map((d) => describeWait(d, runtime?.endpoint?.names)).join('; ') : 'not waiting in tsmpi (an external promise?)'}`;
      });
      throw new TsmpiError(ErrorCode.Hang, `the simulation stopped at ${sim.now()} s with ${stuck.length} rank(s) still waiting (a deadlock):\n${lines.join('\n')}`, {
        operation: 'tsmpi sim',
        hint: 'the same program deadlocks in a real run: check the matching of sends and receives',
      });
    }
  } finally {
    // What each rank recorded since its last chunk (a failed or stuck run keeps its timeline too).
    if (traceChunks !== undefined) {
      for (const store of stores) (store.cache.get('runtime') as { endpoint?: { tracer?: { flush(last: boolean): void } } } | undefined)?.endpoint?.tracer?.flush(true);
      // Profiles name the program's .ts lines, as a real run's do.
      const mapStack = app?.mapStack;
      if (mapStack !== undefined) {
        for (const chunks of traceChunks) {
          chunks.forEach((c, i) => {
            if (c.profile !== undefined) chunks[i] = { ...c, profile: mapProfileSites(c.profile, mapStack, process.cwd(), isOwnSource) };
          });
        }
      }
    }
    restoreTimers();
    unmeter?.();
    process.exitCode = baseExitCode;
    process.env = realEnv;
    process.exit = realExit;
    process.off('uncaughtException', onStray);
    process.off('unhandledRejection', onStray);
    setRankResolver(undefined);
    app?.cleanup();
    uninstallRuntimes?.();
  }
  const makespan = Math.max(0, ...world.ranks.map((r) => r.stats.end));
  return { makespan, ranks: world.ranks.map((r) => r.stats), events: sim.processed, wallSeconds: (performance.now() - started) / 1000, network, world, ...(traceChunks !== undefined ? { traceChunks, traceNodes: options.hostOf.map((h) => options.hosts.names[h] ?? `host ${h}`) } : {}) };
}
