/**
 * The simulator as a library: run a program file, a trace or a generated workload on a platform,
 * in virtual time, and get the run's result. `tsmpi sim` (cli-run.ts) is this plus flags, a
 * progress bar and the summary; benchmarks and the SimGrid comparison call it directly.
 */
import { init } from '../bootstrap/init.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Simulation } from './engine.js';
import { CalibratedModel, calibratedFrameCosts } from './network/calibrated-model.js';
import { FlowModel, type FlowModelOptions } from './network/flow-model.js';
import { DelayModel, type NetworkModel } from './network/model.js';
import { flowDefaults, isNetworkKind, NETWORK_HELP, simgridConfig, type NetworkKind } from './network/network-models.js';
import { placeByHostfile } from './platform/hostfile.js';
import type { Platform } from './platform/platform.js';
import { crossbar } from './platform/topologies.js';
import { runProgram, type ProgramRunOptions, type RankMain, type SimRunResult } from './program-runner.js';
import type { Action } from './replay/actions.js';
import { PhantomPayload, replayRank, type ReplayCollectives } from './replay/replayer.js';
import { platformHosts } from './simple-hosts.js';
import type { ComputeMode, FrameCosts, WakeModel } from './world.js';
import { linkClassOf, type LinkClass } from './network/model.js';
import { classCosts, crowdedWakeSeconds, evaluate, wakeSeconds, type MachineCalibration } from './platform/calibration.js';
import { readSettings } from '../config/tunables.js';

export type { NetworkKind } from './network/network-models.js';

export interface SimulateOptions {
  /** A program file (run unchanged), a function per rank, or a trace / workload (actions per rank). */
  program: string | RankMain | ReadonlyMap<number, readonly Action[]>;
  /** Arguments of a program file. */
  args?: string[];
  /** Ranks; a trace or workload sets it (a different value is an error). @default 1 */
  np?: number;
  /** @default a crossbar with one host per rank ({@link defaultPlatform}) */
  platform?: Platform;
  /** @default the platform's network/model setting, else 'flow' */
  network?: NetworkKind;
  /** Knobs of the flow model (SimGrid's factors and TCP gamma), over the network model's own. */
  flow?: FlowModelOptions;
  /**
   * SimGrid configuration, `key:value` as `--cfg=` takes it (network/model, network/crosstraffic,
   * smpi/bw-factor, smpi/lat-factor, smpi/send-is-detached-thresh, ...): over the platform file's
   * `<config>`, under `network` and `flow`.
   */
  cfg?: readonly string[];
  /** Where notes go (settings read but without effect here). @default stderr */
  warn?: (line: string) => void;
  /** How a program's compute counts; traces and workloads are always `declared`. @default 'measured' */
  computeMode?: ComputeMode;
  /** @default 1; on a calibrated machine, the ranks fill its hosts evenly */
  ranksPerHost?: number;
  /**
   * Ranks per process on a host, as `tsmpi run` places them: undefined is the threads launcher
   * (one process per host), 1 is `--procs`, K is `--ranks-per-proc K`. Ranks of one process talk
   * through shared memory, others through TCP: a calibrated machine's link classes.
   */
  ranksPerProc?: number;
  /** Host names per slot, as a hostfile lists them (rank r on slot r mod length); replaces ranksPerHost. */
  hostfile?: { slots: readonly string[]; source: string };
  /** flop/s of this machine, to scale measured CPU time to a host's speed. @default 1e9, or a calibrated machine's speed */
  referenceSpeed?: number;
  /** Environment the ranks read TSMPI_* settings from (e.g. TSMPI_TCP_EAGER_LIMIT). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** CPU seconds a rank spends per frame it sends to another host (LogGP o). @default 0 */
  messageOverhead?: number;
  /** The same for a frame to a rank on its own host. @default 0 */
  localMessageOverhead?: number;
  /**
   * The collectives: SimGrid 3.32's algorithms as point-to-point messages (a trace's or
   * workload's decomposed by the replayer; a program's by the runtime under
   * TSMPI_COLL_RULES=simgrid), with SMPI's protocol (every transfer waits for its receive, sends
   * below 65536 B are detached, handshakes cost no time; TSMPI_EAGER_LIMIT / TSMPI_DETACH_LIMIT
   * in `env` override it) and SMPI's 16-byte envelope on every message, all of them in the
   * bandwidth sharing; or the runtime's own. @default 'tsmpi'
   */
  collectives?: ReplayCollectives;
  /** Record the timeline (for a Chrome trace) and/or the profile. */
  record?: { trace: boolean; profile: boolean };
  onProgress?: ProgramRunOptions['onProgress'];
}

/** Bytes SMPI adds to every message on the wire (its envelope). */
const SMPI_ENVELOPE_BYTES = 16;
/** SMPI's default smpi/send-is-detached-thresh: smaller sends return at once. */
const SMPI_DETACHED_BELOW = 65536;
/** SMPI's default smpi/async-small-thresh: smaller sends start before their receive is posted. */
const SMPI_ASYNC_SMALL_BELOW = 0;

function simError(message: string, hint: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, message, { operation: 'tsmpi sim', hint });
}

/** The default platform: a crossbar of identical hosts, 10 Gbit/s and 1 us per link, 1 Gflop/s. */
export function defaultPlatform(hosts: number): Platform {
  return crossbar({ hosts, speed: 1e9, bandwidth: 1.25e9, latency: 1e-6, source: 'default crossbar' });
}

export function networkModel(kind: string, platform: Platform, flow: FlowModelOptions = {}): (sim: Simulation) => NetworkModel {
  if (!isNetworkKind(kind)) throw simError(`--network ${kind} is not a network model`, `use ${NETWORK_HELP}`);
  if (kind === 'calibrated') {
    const calibration = platform.calibration;
    if (calibration === undefined) throw simError(`--network calibrated needs a calibrated machine; ${platform.source} is not one`, 'give --platform FILE written by tsmpi calibrate -o FILE');
    return (sim) => new CalibratedModel(sim, calibration);
  }
  const defaults = flowDefaults(kind);
  if (defaults !== undefined) {
    const options = { name: kind, ...defaults, ...flow };
    return (sim) => new FlowModel(sim, platform, options);
  }
  return (sim) =>
    new DelayModel(sim, {
      latency: (a, b, rail) => platform.routeLatency(a, b, rail),
      bandwidth: (a, b, rail) => {
        let narrowest = Infinity;
        for (const l of platform.route(a, b, rail)) narrowest = Math.min(narrowest, platform.link(l).bandwidth);
        return narrowest;
      },
    });
}

/** Places `np` ranks on the platform's hosts, `perHost` consecutive ranks per host. */
export function placeRanks(np: number, perHost: number, hosts: number): number[] {
  if (Math.ceil(np / perHost) > hosts) {
    throw simError(`${np} ranks at ${perHost} per host need ${Math.ceil(np / perHost)} hosts; the platform has ${hosts}`, 'use fewer ranks, more --ranks-per-host, or a bigger platform');
  }
  return Array.from({ length: np }, (_, r) => Math.floor(r / perHost));
}

/** A trace or workload as a program: each rank replays its own actions on its communicator. */
export function replayMain(program: ReadonlyMap<number, readonly Action[]>, name: string, collectives: ReplayCollectives = 'tsmpi'): RankMain {
  const payload = new PhantomPayload();
  return {
    name,
    singleFlow: true,
    run: async (rank) => {
      const comm = await init();
      await replayRank(comm, program.get(rank) ?? [], payload, collectives);
    },
  };
}

/** Ranks of a trace: one more than the highest rank that has actions. */
export function traceWorld(program: ReadonlyMap<number, readonly Action[]>): number {
  let n = 0;
  for (const rank of program.keys()) n = Math.max(n, rank + 1);
  return n;
}

/** The SimGrid settings of the platform file, then of `cfg` (`key:value` each). */
function readSimgridConfig(platform: Platform, cfg: readonly string[]): ReturnType<typeof simgridConfig> {
  try {
    const entries = [
      ...platform.config.map((e) => ({ ...e, source: `${platform.source} <config>` })),
      ...cfg.map((text) => {
        const at = text.indexOf(':');
        if (at <= 0) throw new RangeError(`--cfg=${text} is not key:value`);
        return { key: text.slice(0, at).trim(), value: text.slice(at + 1), source: '--cfg' };
      }),
    ];
    return simgridConfig(entries);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw simError(error.message, 'write SimGrid settings as key:value, e.g. --cfg=network/model:SMPI --cfg=network/crosstraffic:no (docs/simulator.md lists the keys)');
  }
}

/** Bytes/s of host 0's network card on `rail` (its slowest link out), or 0 when the platform does not say. */
function nicRate(platform: Platform, rail: number): number {
  const up = platform.nicLinks(0, rail)?.up ?? [];
  return up.length === 0 ? 0 : Math.min(...up.map((id) => platform.link(id).bandwidth));
}

/**
 * Process of each rank: consecutive ranks of a host in runs of `perProc` (all of a host's ranks
 * when undefined), numbered across hosts, as the launcher starts them.
 */
export function placeProcesses(hostOf: readonly number[], perProc: number | undefined): number[] {
  const procOf: number[] = [];
  let proc = -1;
  let inProc = 0;
  let lastHost = -1;
  for (const host of hostOf) {
    if (host !== lastHost || (perProc !== undefined && inProc >= perProc)) {
      proc++;
      inProc = 0;
      lastHost = host;
    }
    procOf.push(proc);
    inProc++;
  }
  return procOf;
}

/**
 * The wake-ups of a calibrated machine's ranks: each rank's spin budget as the runtime picks it
 * for its placement (ranks in its process and on its host, its host's cores, peers elsewhere;
 * TSMPI_SPIN_US and TSMPI_SOCKET_SPIN_US override as in a real run): its polling in place, then
 * its event loop turning for socket data. Past it, the measured wake-up at its host's ranks per
 * core. Over TCP, a calibration that measured sleeping receivers (`sleeping`) gives what a frame
 * costs more when its receiver slept, and the extra CPU of that path, with what the crowded rings
 * of processes measured on top when the host has more ranks than cores; an older one's latency
 * already includes waking a sleeping process: only what sharing cores adds, and nothing when it
 * has the path's CPU (pathCpu), which the ranks then share the cores for (the rings that measure
 * the growth are threads that spin while they wait, and a process does not: 8 processes on 2
 * cores passed a token in 63 us per hop warm, less than the 2 processes' one-way time).
 */
export function calibratedWakeModel(calibration: MachineCalibration, hostOf: readonly number[], procOf: readonly number[], coresOf: (host: number) => number, env: NodeJS.ProcessEnv): WakeModel {
  const inProc = new Map<number, number>();
  const onHost = new Map<number, number>();
  procOf.forEach((p, r) => {
    inProc.set(p, (inProc.get(p) ?? 0) + 1);
    onHost.set(hostOf[r]!, (onHost.get(hostOf[r]!) ?? 0) + 1);
  });
  // Ranks of one placement share a budget: read the settings once per kind of placement.
  const budgets = new Map<string, { spin: number; yielding: number }>();
  const budgetOf = procOf.map((p, r) => {
    const local = inProc.get(p)!;
    const cores = coresOf(hostOf[r]!);
    const hostRanks = onHost.get(hostOf[r]!)!;
    const key = `${local}/${cores}/${hostRanks}`;
    let budget = budgets.get(key);
    if (budget === undefined) {
      const remotePeers = local < procOf.length;
      const settings = readSettings(env, { localRanks: local, cores, remotePeers, hostRanks });
      budget = { spin: (settings.spinMicros + (remotePeers ? settings.socketSpinMicros : 0)) / 1e6, yielding: settings.yieldSpinMicros / 1e6 };
      budgets.set(key, budget);
    }
    return budget;
  });
  const spinSeconds = budgetOf.map((b) => b.spin);
  const yieldSeconds = budgetOf.map((b) => b.yielding);
  const points = calibration.wake;
  const alone = wakeSeconds(points, 1);
  // With more processes than cores a woken one's path costs more CPU (the crowded rings': 2, 4
  // and 8 processes on 2 cores spent 35, 57 and 78 us of CPU per hop of a warm ring), work that
  // takes a core when it has one: a token alone gets it at once, 8 processes of an allreduce
  // share 2 cores for it.
  const crowded = (host: number, linkClass: LinkClass): number => crowdedWakeSeconds(classCosts(calibration, linkClass)?.sleeping?.crowded, onHost.get(host)! / coresOf(host));
  return {
    spinSeconds,
    ...(yieldSeconds.some((y) => y > 0) ? { yieldSeconds } : {}),
    wake: (host, linkClass) => {
      const w = wakeSeconds(points, onHost.get(host)! / coresOf(host));
      if (linkClass === 'intra-process') return w;
      const costs = classCosts(calibration, linkClass);
      if (costs?.sleeping !== undefined) return costs.sleeping.wake + crowded(host, linkClass);
      // Over TCP a calibration with the path's CPU has ranks share the cores for it: no more here.
      return costs?.pathCpu !== undefined ? 0 : Math.max(0, w - alone);
    },
    // A lone thread's wake-up is work of its own (measured: 8 threads of an allreduce loop on 2
    // cores took ~11 us more CPU per round than the simulated ranks, sleeping each round); what
    // more ranks per core add is waiting for a core. Over TCP, the sleeping path's CPU beyond the
    // turning one's, at the frame's two ends (both are charged per frame, at the turning figure).
    wakeCpu: (host, linkClass) => {
      if (linkClass === 'intra-process') return alone;
      const costs = classCosts(calibration, linkClass);
      const sleepingCpu = costs?.sleeping?.pathCpu;
      return (sleepingCpu === undefined ? 0 : Math.min(costs!.sleeping!.wake, 2 * Math.max(0, sleepingCpu - (costs!.pathCpu ?? 0)))) + crowded(host, linkClass);
    },
    // The calibration's sleeping ping-pong measured its wake-up on ranks that slept through each
    // wait: about a round trip of it, two one-way times of a small frame with the wake-up each.
    fullWakeAfter: (_host, linkClass) => {
      if (linkClass === 'intra-process') return undefined;
      const costs = classCosts(calibration, linkClass);
      if (costs?.sleeping === undefined) return undefined;
      // (Its frames are 16 bytes: calibrate/probe.ts, the `sleep` experiment.)
      const oneWay = evaluate(costs.send, 16) + evaluate(costs.latency, 16) + evaluate(costs.recv, 16);
      return 2 * (oneWay + costs.sleeping.wake);
    },
  };
}

/** Host and process of each rank: by the hostfile, or `perHost` consecutive ranks per host. */
function placement(options: SimulateOptions, np: number, perHost: number, platform: Platform): { hostOf: number[]; procOf: number[] } {
  const hostfile = options.hostfile;
  const hostOf =
    hostfile === undefined
      ? placeRanks(np, perHost, platform.hostCount)
      : placeByHostfile(hostfile.slots, np, (name) => platform.hostByName(name), () => Array.from({ length: platform.hostCount }, (_, h) => platform.host(h).name), hostfile.source);
  return { hostOf, procOf: placeProcesses(hostOf, options.ranksPerProc) };
}

/**
 * What a rank's V8 costs it in a prediction of a real machine (TSMPI_SIM_RANK_RUNTIMES and
 * TSMPI_SIM_SERIAL_V8, both `auto` by default, docs/simulator.md): its own copy of the runtime to
 * warm up, and its compiling and collecting counted as its compute when the ranks fill a host's
 * cores (V8 run single-threaded). Both apply to a program (not a trace, whose compute is
 * declared) on a calibrated platform.
 */
function rankCosts(options: SimulateOptions, np: number, calibration: MachineCalibration | undefined, hostOf: readonly number[], platform: Platform, env: NodeJS.ProcessEnv): { rankRuntimes: boolean; serialV8: boolean } {
  const settings = readSettings(env);
  const predicting = calibration !== undefined && typeof options.program === 'string' && (options.computeMode ?? 'measured') === 'measured';
  const onHost = new Map<number, number>();
  for (const h of hostOf) onHost.set(h, (onHost.get(h) ?? 0) + 1);
  const coresFull = [...onHost].some(([h, ranks]) => ranks >= platform.host(h).cores);
  const pick = (choice: 'auto' | 'on' | 'off', auto: boolean): boolean => (choice === 'auto' ? auto : choice === 'on');
  return {
    rankRuntimes: typeof options.program === 'string' && pick(settings.simRankRuntimes, predicting && np <= RANK_RUNTIMES_UP_TO),
    serialV8: typeof options.program === 'string' && pick(settings.simSerialV8, predicting && coresFull),
  };
}

/** Ranks up to which a prediction gives each rank its own runtime by default (each copy ~2 MB). */
const RANK_RUNTIMES_UP_TO = 64;

/**
 * True when `options` should be simulated by a V8 without background threads (see rankCosts)
 * and this one has them: `tsmpi sim` then runs itself again with --single-threaded.
 */
export function wantsSerialV8(options: SimulateOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.execArgv.includes('--single-threaded') || typeof options.program !== 'string') return false;
  const calibration = options.platform?.calibration;
  if (calibration === undefined && readSettings(env).simSerialV8 !== 'on') return false;
  const np = options.np ?? 1;
  const perHost = options.ranksPerHost ?? (calibration !== undefined ? Math.ceil(np / calibration.hosts.count) : 1);
  const platform = options.platform ?? defaultPlatform(Math.ceil(np / perHost));
  return rankCosts(options, np, calibration, placement(options, np, perHost, platform).hostOf, platform, env).serialV8;
}

/** How far a real rank's V8 grows each semi-space of its young generation (Node's default, 64-bit). */
const RANK_SEMI_SPACE_MB = 16;
/** The most the simulation's one heap takes: beyond 4 ranks, its collections are rare enough. */
const SIM_SEMI_SPACE_MAX_MB = 64;

/**
 * The V8 flags of the second process wantsSerialV8 asks for. Besides --single-threaded, the
 * young generation of the ranks it hosts: each real rank has its own, and with one heap the size
 * of a single rank's, objects live across more collections, are promoted, and old-space
 * collections that no real rank makes are charged to the ranks (docs/simulator.md, Model).
 */
export function serialV8Flags(options: Pick<SimulateOptions, 'np'>, execArgv: readonly string[] = process.execArgv): string[] {
  const flags = ['--single-threaded'];
  if (!execArgv.some((a) => a.startsWith('--max-semi-space-size'))) flags.push(`--max-semi-space-size=${Math.min(SIM_SEMI_SPACE_MAX_MB, RANK_SEMI_SPACE_MB * Math.max(1, options.np ?? 1))}`);
  return flags;
}

/** Runs a program, trace or workload in virtual time. */
export async function simulate(options: SimulateOptions): Promise<SimRunResult> {
  let program: string | RankMain;
  let np = options.np ?? 1;
  let computeMode: ComputeMode = options.computeMode ?? 'measured';
  // A replay with SimGrid's collectives also takes SMPI's protocol boundary and envelope.
  let simgrid = false;
  let env = options.env;
  if (typeof options.program === 'string' || !(options.program instanceof Map)) {
    program = options.program as string | RankMain;
    if (options.collectives !== undefined) {
      // A program's collectives are the runtime's: the rules it picks algorithms by.
      env = { ...(env ?? process.env), TSMPI_COLL_RULES: options.collectives };
      simgrid = options.collectives === 'simgrid';
    }
  } else {
    const world = traceWorld(options.program);
    if (options.np !== undefined && options.np !== world) {
      throw simError(`-n ${options.np} does not match the ${world} ranks of the trace`, 'leave -n out (the trace sets the world size) or give matching parameters');
    }
    np = world;
    program = replayMain(options.program, 'trace', options.collectives);
    // A trace declares its compute: the replayer's own JavaScript is not the application's.
    computeMode = 'declared';
    simgrid = options.collectives === 'simgrid';
  }
  const calibration = options.platform?.calibration;
  const perHost = options.ranksPerHost ?? (calibration !== undefined ? Math.ceil(np / calibration.hosts.count) : 1);
  const platform = options.platform ?? defaultPlatform(Math.ceil(np / perHost));
  const settings = readSimgridConfig(platform, options.cfg ?? []);
  for (const key of settings.ignored) (options.warn ?? ((line: string) => process.stderr.write(`${line}\n`)))(`tsmpi sim: ${key} has no effect here (ignored)`);
  const cfgProtocol = settings.detachedThreshold !== undefined || settings.asyncSmallThreshold !== undefined;
  if (simgrid || cfgProtocol) {
    // SMPI's protocol: a message below smpi/async-small-thresh (0) starts at once; any other waits
    // for its receive, and the send returns at once below smpi/send-is-detached-thresh (65536).
    const base = env ?? process.env;
    const eager = String(Math.max(0, (settings.asyncSmallThreshold ?? SMPI_ASYNC_SMALL_BELOW) - 1));
    const detach = String(Math.max(0, (settings.detachedThreshold ?? SMPI_DETACHED_BELOW) - 1));
    const given = (name: string, value: string): string => (cfgProtocol ? value : (base[name] ?? value));
    env = { ...base, TSMPI_EAGER_LIMIT: given('TSMPI_EAGER_LIMIT', eager), TSMPI_TCP_EAGER_LIMIT: given('TSMPI_TCP_EAGER_LIMIT', eager), TSMPI_DETACH_LIMIT: given('TSMPI_DETACH_LIMIT', detach) };
  }
  if (settings.pollCosts !== undefined) {
    const { test, iprobe, grow } = settings.pollCosts;
    env = {
      ...(env ?? process.env),
      ...(test !== undefined ? { TSMPI_SIM_TEST: String(test) } : {}),
      ...(iprobe !== undefined ? { TSMPI_SIM_IPROBE: String(iprobe) } : {}),
      ...(grow !== undefined ? { TSMPI_SIM_GROW_POLLS: grow ? '1' : '0' } : {}),
    };
  }
  const kind = options.network ?? settings.network ?? (calibration !== undefined ? 'calibrated' : 'flow');
  const flow: FlowModelOptions = { ...settings.flow, ...(simgrid ? { smallFrameBytes: 0 } : {}), ...options.flow };
  const { hostOf, procOf } = placement(options, np, perHost, platform);
  const makeNetwork = networkModel(kind, platform, flow);
  let frameCosts: ((network: NetworkModel) => FrameCosts) | undefined;
  let wakeModel: WakeModel | undefined;
  if (kind === 'calibrated') {
    // Every link class the placement needs must have been measured, or the run stops up front.
    const needed = new Set<LinkClass>();
    for (let r = 1; r < np; r++) needed.add(linkClassOf(hostOf[0]!, hostOf[r]!, procOf[0]!, procOf[r]!));
    for (const c of needed) {
      if (classCosts(calibration!, c) === undefined) {
        throw simError(`${platform.source} has no ${c} figures, and this placement needs them`, c === 'intra-process' ? 'calibrate in threads mode too (tsmpi calibrate --modes threads,procs)' : 'calibrate with --procs too (tsmpi calibrate --modes threads,procs), or simulate without --procs');
      }
    }
    frameCosts = (network) => calibratedFrameCosts(network as CalibratedModel);
    wakeModel = calibratedWakeModel(calibration!, hostOf, procOf, (h) => platform.host(h).cores, env ?? process.env);
    // A poll costs what it costs there (no growth), unless the run says otherwise; a file from
    // before polls were measured prices one as the receive of a frame that is there.
    const measured = classCosts(calibration!, 'intra-process') ?? classCosts(calibration!, 'inter-process') ?? classCosts(calibration!, 'inter-host')!;
    const polls = measured.polls ?? { test: evaluate(measured.recv, 0), iprobe: evaluate(measured.recv, 0) };
    const base = env ?? process.env;
    // The calibrated machine's eager limits (what its runtime used when it was measured), unless
    // the run sets its own.
    const tcpEager = (classCosts(calibration!, 'inter-process') ?? classCosts(calibration!, 'inter-host'))?.eagerLimit;
    const localEager = classCosts(calibration!, 'intra-process')?.eagerLimit;
    env = {
      ...base,
      ...(tcpEager !== undefined ? { TSMPI_TCP_EAGER_LIMIT: base['TSMPI_TCP_EAGER_LIMIT'] ?? String(tcpEager) } : {}),
      ...(localEager !== undefined ? { TSMPI_EAGER_LIMIT: base['TSMPI_EAGER_LIMIT'] ?? String(localEager) } : {}),
      TSMPI_SIM_TEST: base['TSMPI_SIM_TEST'] ?? String(polls.test),
      TSMPI_SIM_IPROBE: base['TSMPI_SIM_IPROBE'] ?? String(polls.iprobe),
      TSMPI_SIM_GROW_POLLS: base['TSMPI_SIM_GROW_POLLS'] ?? '0',
    };
  }
  return runProgram({
    program,
    args: options.args ?? [],
    np,
    hosts: platformHosts(platform, options.referenceSpeed ?? calibration?.hosts.speed ?? 1e9),
    hostOf,
    procOf,
    coresOf: Array.from({ length: platform.hostCount }, (_, h) => platform.host(h).cores),
    ...(frameCosts !== undefined ? { frameCosts, meterCalls: true } : {}),
    rankRuntimes: rankCosts(options, np, calibration, hostOf, platform, env ?? process.env).rankRuntimes,
    ...(wakeModel !== undefined ? { wakeModel } : {}),
    // SMPI's messages share links down to the smallest: no frame stays out of the sharing.
    network: makeNetwork,
    rails: platform.rails,
    railRates: Array.from({ length: platform.rails }, (_, rail) => nicRate(platform, rail)),
    computeMode,
    ...(options.messageOverhead !== undefined ? { messageOverhead: options.messageOverhead } : {}),
    ...(options.localMessageOverhead !== undefined ? { localMessageOverhead: options.localMessageOverhead } : {}),
    ...(simgrid ? { envelopeBytes: SMPI_ENVELOPE_BYTES, freeHandshakes: true } : {}),
    ...(options.record !== undefined ? { record: options.record } : {}),
    ...(env !== undefined ? { env } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}
