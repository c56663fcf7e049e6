/**
 * A calibrated machine, as `tsmpi calibrate` writes it and `tsmpi sim --platform` reads it: what
 * the runtime costs on that machine, per link class (shared memory inside a process, TCP between
 * processes of a host, TCP between hosts), fitted from ping-pong, streaming and overhead sweeps.
 *
 * Every cost is a piecewise-linear function of a frame's payload bytes, one linear fit per size
 * range (as SMPI's smpi/os, smpi/or and its size-dependent factors), each range with its fit
 * error. Per frame, the simulator charges `send` CPU seconds to the sender, keeps the pair's pipe
 * busy for `gap` seconds (frames of one pair queue behind each other), delivers `latency` seconds
 * after that, and charges `recv` CPU seconds to the receiver (calibrated-model.ts).
 *
 * What the runtime costs beyond its frames, also measured: a fresh rank's first frames cost more
 * (`warmup`: V8 compiles the runtime's code as it runs; `sizedWarmup`: the first frames of larger
 * payloads more again, their own paths compiled in turn), a fruitless test() and iprobe() cost
 * CPU (`polls`), a rank that slept (it waited longer than its spin budget) resumes only after
 * a wake-up, which grows when the host's cores are shared by more ranks (`wake`), and between
 * processes the path's own CPU per frame end (`pathCpu`).
 *
 * ```json
 * { "format": "tsmpi-calibration", "version": 2,
 *   "machine": { "host": "...", "cpus": 2, "cpuModel": "...", "node": "v20.19.2", "date": "..." },
 *   "hosts": { "count": 1, "cores": 2, "speed": 1.1e9 },
 *   "classes": { "intra-process": { "eagerLimit": 65536,
 *       "send": [{ "from": 0, "to": 1024, "intercept": 1.1e-6, "slope": 2e-10, "fitError": 0.03, "points": 4 }, ...],
 *       "recv": [...], "latency": [...], "gap": [...], "measured": [...],
 *       "warmup": [{ "frames": 1, "extra": 5e-3 }, { "frames": 3, "extra": 6e-5 }, ...], "polls": { "test": 2e-7, "iprobe": 3e-7 },
 *       "sizedWarmup": [{ "bytes": 2048, "fromBytes": 2048, "steps": [{ "frames": 1, "extra": 2e-4 }, ...] }, ...] },
 *     "inter-process": { ..., "pathCpu": 2.2e-5 } },
 *   "wake": [{ "ranksPerCore": 1, "seconds": 2.3e-5 }, { "ranksPerCore": 2, "seconds": 3.5e-5 }] }
 * ```
 */
import { checkInteger, checkPositive, configError } from './platform.js';
import { LINK_CLASSES, type LinkClass } from '../network/model.js';

export const CALIBRATION_FORMAT = 'tsmpi-calibration';
/** 2: warm-up steps count a rank's frames sent and its frames received apart (1 counted both together). */
export const CALIBRATION_VERSION = 2;

/** One size range of a fitted cost: `intercept + slope * bytes` for bytes in [from, to). */
export interface Segment {
  readonly from: number;
  /** Exclusive upper bound; null for no bound (JSON has no Infinity). */
  readonly to: number | null;
  /** Seconds. */
  readonly intercept: number;
  /** Seconds per byte. */
  readonly slope: number;
  /** Largest relative residual of the fit over its points (0.05 = 5%). */
  readonly fitError: number;
  /** Measured sizes the fit used. */
  readonly points: number;
}

/** A cost by payload bytes: segments in increasing size, covering 0 to unbounded. */
export type Piecewise = readonly Segment[];

/** One measured size of a link class (the raw figures the fits come from). */
export interface MeasuredSize {
  /** Payload bytes of the message. */
  readonly bytes: number;
  /** Half a ping-pong's round trip (mean over timed batches). */
  readonly oneWay: number;
  /** Seconds per message of a stream of back-to-back messages (mean over batches). */
  readonly streamPeriod: number;
  /** CPU seconds of a send call / of the receive of a message that has already arrived (median). */
  readonly send: number;
  readonly recv: number;
  /** CPU seconds of a nonblocking send that continues a burst (median; absent in older files). */
  readonly burstSend?: number;
  /** Each run's `oneWay`, in run order, when the figure is the median of several runs. */
  readonly oneWayRuns?: readonly number[];
}

/**
 * A fresh rank's frames below `frames` cost `extra` seconds more each: its first sends and,
 * counted apart, its first receives (a rank that only sends pays the receive path's warm-up on
 * its first receive, whenever that comes). The steps are what the real rank paid beyond what the
 * simulator counted by itself running the same probe (its ranks compile their copies of the
 * runtime as they run, measured as their compute); where it counted more, `extra` is below 0 and
 * the rank is owed that much of its measured compute back (SimRank.warmupCredit).
 */
export interface WarmupStep {
  readonly frames: number;
  readonly extra: number;
}

/**
 * What a fresh rank's frames of a larger payload cost more beyond `warmup`, measured with
 * messages of `bytes` once the small messages' path was warm: those frames take paths of their
 * own (copies by memcpy, a ring that wraps every few frames), whose functions V8 compiles only
 * as each turns hot, a frame at a time. Frames of at least `fromBytes` of payload, and less than
 * the next size's `fromBytes`, count here, apart from the others, and each costs its step's
 * `extra` beyond what `warmup` charges it.
 */
export interface SizedWarmup {
  readonly bytes: number;
  readonly fromBytes: number;
  readonly steps: readonly WarmupStep[];
}

/** CPU seconds of a test() that finds nothing done, and of a fruitless iprobe(). */
export interface PollCosts {
  readonly test: number;
  readonly iprobe: number;
}

/** Seconds a sleeping rank takes to resume after a frame reached it, with `ranksPerCore` ranks per core on its host. */
export interface WakePoint {
  readonly ranksPerCore: number;
  readonly seconds: number;
}

export interface LinkClassCalibration {
  /** Messages up to this size went eagerly (one frame); larger ones took the rendezvous. */
  readonly eagerLimit: number;
  readonly send: Piecewise;
  readonly recv: Piecewise;
  /**
   * CPU seconds of a frame that continues a burst of nonblocking sends to one peer, which the link
   * holds back until the rank next polls (publish-batch.ts): its call alone. The held frames then
   * leave together, as one write that costs what `send` costs beyond this for their bytes. Absent:
   * the simulator holds nothing back.
   */
  readonly burstSend?: Piecewise;
  readonly latency: Piecewise;
  readonly gap: Piecewise;
  readonly measured: readonly MeasuredSize[];
  /** What a fresh rank's first frames cost more, in steps of its frame count (none: nothing more). */
  readonly warmup?: readonly WarmupStep[];
  /** What its first frames of larger payloads cost more on top, by payload size (increasing `fromBytes`; none: nothing more). */
  readonly sizedWarmup?: readonly SizedWarmup[];
  readonly polls?: PollCosts;
  /**
   * CPU seconds per frame, on each of its two ends, that the path itself takes beyond `send` and
   * `recv` (TCP: system calls, waking the receiver, the socket's JavaScript). The one-way time
   * holds it, so the model charges it to the two ranks as CPU and takes it out of the latency:
   * alone, a message costs the same; with more ranks than cores it waits for a core.
   */
  readonly pathCpu?: number;
  /**
   * CPU seconds the sender spends per frame after the frame has left (TCP: the write's completion
   * and the socket's bookkeeping). A lone message does not wait for it; a rank that sends and
   * receives at once (an exchange, a collective's step) handles what came only after it. Fitted
   * from a warm 16-byte exchange's time per call, less the calls' costs and the path's CPU at both
   * ends, when the exchange outlasts the one-way time (fitAfterSend).
   */
  readonly afterSend?: number;
  /**
   * CPU seconds a new link costs, per direction: the first frame from one rank to a peer it never
   * sent to before (between processes a connection and its handshake; between threads a ring set
   * up and announced), half at the sender's first send to that peer, half at the receiver's first
   * receive from it.
   */
  readonly linkSetup?: number;
  /**
   * Between processes: what a frame costs more when its receiver sleeps in the kernel rather than
   * turning its event loop (TSMPI_SOCKET_SPIN_US: ranks turn only while the machine's ranks fit its
   * cores, and the sweep is measured turning). `wake`: seconds the one-way time grows by;
   * `pathCpu`: the path's CPU per frame end then (the sleeping and waking system calls), which
   * replaces `pathCpu` for such a frame. `crowded`: what the wake-up takes more with more ranks
   * than cores on the host, by ranks per core (none at one per core; linear between the points,
   * the last point's slope beyond): the woken process's CPU (switching among more processes costs
   * each more), which shares the host's cores with the ranks busy then.
   */
  readonly sleeping?: { readonly wake: number; readonly pathCpu?: number; readonly crowded?: readonly WakePoint[] };
}

export interface MachineCalibration {
  readonly format: typeof CALIBRATION_FORMAT;
  readonly version: typeof CALIBRATION_VERSION;
  readonly machine: { readonly host: string; readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly date: string; readonly seconds?: number };
  /** The hosts the platform has (a calibrated machine is one; a cluster of such machines more). */
  readonly hosts: { readonly count: number; readonly cores: number; readonly speed: number; readonly prefix?: string };
  /** The compute speed, measured as flop/s of a JavaScript kernel (also --compute measured's reference). */
  readonly compute?: { readonly kernel: string; readonly fitError: number };
  readonly classes: Readonly<Partial<Record<LinkClass, LinkClassCalibration>>>;
  /** A sleeping rank's wake-up by ranks per core, in increasing ranksPerCore (none: not measured). */
  readonly wake?: readonly WakePoint[];
}

/** The value of a piecewise cost at `bytes` (never negative). */
export function evaluate(cost: Piecewise, bytes: number): number {
  let segment = cost[0]!;
  for (let i = 1; i < cost.length; i++) {
    if (cost[i]!.from > bytes) break;
    segment = cost[i]!;
  }
  return Math.max(0, segment.intercept + segment.slope * bytes);
}

/** A lone frame's one-way time of `bytes` payload: its send and receive calls, the pipe and the latency. */
export function frameOneWay(costs: Pick<LinkClassCalibration, 'send' | 'recv' | 'latency' | 'gap'>, bytes: number): number {
  return evaluate(costs.send, bytes) + evaluate(costs.gap, bytes) + evaluate(costs.latency, bytes) + evaluate(costs.recv, bytes);
}

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function piecewise(v: unknown, field: string): Piecewise {
  if (!Array.isArray(v) || v.length === 0) throw configError(`${field} must be a non-empty list of segments; got ${JSON.stringify(v)?.slice(0, 40)}`, 'calibrate the machine again with tsmpi calibrate -o FILE');
  let last = -1;
  return v.map((s: unknown, i: number) => {
    const f = `${field}[${i}]`;
    if (!isObj(s)) throw configError(`${f} must be an object`, 'each segment is { from, to, intercept, slope, fitError, points }');
    const from = checkPositive(s['from'], `${f}.from`, 'bytes', true);
    if (i === 0 && from !== 0) throw configError(`${f}.from must be 0 (the first segment starts at 0 bytes)`, 'calibrate the machine again');
    if (from <= last) throw configError(`${f}.from ${from} is not above the previous segment's`, 'segments go in increasing size');
    last = from;
    const to = s['to'] === null || s['to'] === undefined ? null : checkPositive(s['to'], `${f}.to`, 'bytes');
    return {
      from,
      to,
      intercept: checkPositive(s['intercept'], `${f}.intercept`, 'seconds', true),
      slope: checkPositive(s['slope'], `${f}.slope`, 'seconds per byte', true),
      fitError: checkPositive(s['fitError'] ?? 0, `${f}.fitError`, 'a ratio', true),
      points: checkInteger(s['points'] ?? 0, `${f}.points`, 0),
    };
  });
}

/** True when parsed JSON is a calibration (its `format` says so). */
export function isCalibration(value: unknown): boolean {
  return isObj(value) && value['format'] === CALIBRATION_FORMAT;
}

/** Checks a parsed calibration file; errors name the file and field. */
export function readCalibration(value: unknown, source: string): MachineCalibration {
  if (!isObj(value) || value['format'] !== CALIBRATION_FORMAT) throw configError(`${source} is not a tsmpi calibration (no "format": "${CALIBRATION_FORMAT}")`, 'write one with tsmpi calibrate -o FILE');
  if (value['version'] !== CALIBRATION_VERSION) throw configError(`${source}: calibration version ${JSON.stringify(value['version'])} is not ${CALIBRATION_VERSION}`, 'calibrate the machine again with this version of tsmpi');
  const hosts = value['hosts'];
  if (!isObj(hosts)) throw configError(`${source}: hosts must be { count, cores, speed }`, 'calibrate the machine again');
  const machine = isObj(value['machine']) ? value['machine'] : {};
  const classesIn = value['classes'];
  if (!isObj(classesIn)) throw configError(`${source}: classes must be an object of link classes`, `link classes: ${LINK_CLASSES.join(', ')}`);
  const classes: Partial<Record<LinkClass, LinkClassCalibration>> = {};
  for (const [name, c] of Object.entries(classesIn)) {
    if (!(LINK_CLASSES as readonly string[]).includes(name)) throw configError(`${source}: unknown link class ${JSON.stringify(name)}`, `link classes: ${LINK_CLASSES.join(', ')}`);
    const field = `${source}: classes.${name}`;
    if (!isObj(c)) throw configError(`${field} must be an object`, 'calibrate the machine again');
    const polls: unknown = c['polls'];
    classes[name as LinkClass] = {
      eagerLimit: checkPositive(c['eagerLimit'], `${field}.eagerLimit`, 'bytes', true),
      send: piecewise(c['send'], `${field}.send`),
      recv: piecewise(c['recv'], `${field}.recv`),
      ...(c['burstSend'] !== undefined ? { burstSend: piecewise(c['burstSend'], `${field}.burstSend`) } : {}),
      latency: piecewise(c['latency'], `${field}.latency`),
      gap: piecewise(c['gap'], `${field}.gap`),
      measured: Array.isArray(c['measured']) ? (c['measured'] as MeasuredSize[]) : [],
      ...(c['warmup'] !== undefined ? { warmup: warmupSteps(c['warmup'], `${field}.warmup`) } : {}),
      ...(c['sizedWarmup'] !== undefined ? { sizedWarmup: sizedWarmups(c['sizedWarmup'], `${field}.sizedWarmup`) } : {}),
      ...(polls !== undefined ? { polls: pollCostsOf(polls, `${field}.polls`) } : {}),
      ...(c['pathCpu'] !== undefined ? { pathCpu: checkPositive(c['pathCpu'], `${field}.pathCpu`, 'seconds', true) } : {}),
      ...(c['afterSend'] !== undefined ? { afterSend: checkPositive(c['afterSend'], `${field}.afterSend`, 'seconds', true) } : {}),
      ...(c['linkSetup'] !== undefined ? { linkSetup: checkPositive(c['linkSetup'], `${field}.linkSetup`, 'seconds', true) } : {}),
      ...(c['sleeping'] !== undefined ? { sleeping: sleepingOf(c['sleeping'], `${field}.sleeping`) } : {}),
    };
  }
  if (Object.keys(classes).length === 0) throw configError(`${source}: no link class was calibrated`, 'calibrate at least one launch mode (threads or --procs)');
  const compute = value['compute'];
  return {
    format: CALIBRATION_FORMAT,
    version: CALIBRATION_VERSION,
    machine: {
      host: String(machine['host'] ?? ''),
      cpus: Number(machine['cpus'] ?? 0),
      cpuModel: String(machine['cpuModel'] ?? ''),
      node: String(machine['node'] ?? ''),
      date: String(machine['date'] ?? ''),
      ...(typeof machine['seconds'] === 'number' ? { seconds: machine['seconds'] } : {}),
    },
    hosts: {
      count: checkInteger(hosts['count'] ?? 1, `${source}: hosts.count`, 1),
      cores: checkInteger(hosts['cores'], `${source}: hosts.cores`, 1),
      speed: checkPositive(hosts['speed'], `${source}: hosts.speed`, 'flop/s'),
      ...(typeof hosts['prefix'] === 'string' ? { prefix: hosts['prefix'] } : {}),
    },
    ...(isObj(compute) ? { compute: { kernel: String(compute['kernel'] ?? ''), fitError: Number(compute['fitError'] ?? 0) } } : {}),
    classes,
    ...(value['wake'] !== undefined ? { wake: wakePoints(value['wake'], `${source}: wake`) } : {}),
  };
}

function pollCostsOf(v: unknown, field: string): PollCosts {
  if (!isObj(v)) throw configError(`${field} must be { test, iprobe }`, 'calibrate the machine again');
  return { test: checkPositive(v['test'], `${field}.test`, 'seconds', true), iprobe: checkPositive(v['iprobe'], `${field}.iprobe`, 'seconds', true) };
}

function warmupSteps(v: unknown, field: string): WarmupStep[] {
  if (!Array.isArray(v)) throw configError(`${field} must be a list of { frames, extra }`, 'calibrate the machine again');
  let last = 0;
  return v.map((s: unknown, i: number) => {
    const f = `${field}[${i}]`;
    if (!isObj(s)) throw configError(`${f} must be { frames, extra }`, 'calibrate the machine again');
    const frames = checkInteger(s['frames'], `${f}.frames`, 1);
    if (frames <= last) throw configError(`${f}.frames ${frames} is not above the previous step's`, 'steps go in increasing frame counts');
    last = frames;
    const extra = s['extra'];
    if (typeof extra !== 'number' || !Number.isFinite(extra)) throw configError(`${f}.extra must be a finite number of seconds (below 0: a credit); got ${JSON.stringify(extra)}`, 'calibrate the machine again');
    return { frames, extra };
  });
}

function sizedWarmups(v: unknown, field: string): SizedWarmup[] {
  if (!Array.isArray(v)) throw configError(`${field} must be a list of { bytes, fromBytes, steps }`, 'calibrate the machine again');
  let last = 0;
  return v.map((w: unknown, i: number) => {
    const f = `${field}[${i}]`;
    if (!isObj(w)) throw configError(`${f} must be { bytes, fromBytes, steps }`, 'calibrate the machine again');
    const fromBytes = checkInteger(w['fromBytes'], `${f}.fromBytes`, 1);
    if (fromBytes <= last) throw configError(`${f}.fromBytes ${fromBytes} is not above the previous size's`, 'sizes go in increasing fromBytes');
    last = fromBytes;
    return { bytes: checkInteger(w['bytes'], `${f}.bytes`, 1), fromBytes, steps: warmupSteps(w['steps'], `${f}.steps`) };
  });
}

/** The index in `sized` of the curve a frame of `payload` bytes takes, or -1 (none: below the first `fromBytes`). */
export function sizedWarmupIndex(sized: readonly SizedWarmup[] | undefined, payload: number): number {
  if (sized === undefined) return -1;
  let index = -1;
  for (let i = 0; i < sized.length && sized[i]!.fromBytes <= payload; i++) index = i;
  return index;
}

function wakePoints(v: unknown, field: string): WakePoint[] {
  if (!Array.isArray(v) || v.length === 0) throw configError(`${field} must be a non-empty list of { ranksPerCore, seconds }`, 'calibrate the machine again');
  let last = 0;
  return v.map((p: unknown, i: number) => {
    const f = `${field}[${i}]`;
    if (!isObj(p)) throw configError(`${f} must be { ranksPerCore, seconds }`, 'calibrate the machine again');
    const ranksPerCore = checkPositive(p['ranksPerCore'], `${f}.ranksPerCore`, 'ranks per core');
    if (ranksPerCore <= last) throw configError(`${f}.ranksPerCore ${ranksPerCore} is not above the previous point's`, 'points go in increasing ranks per core');
    last = ranksPerCore;
    return { ranksPerCore, seconds: checkPositive(p['seconds'], `${f}.seconds`, 'seconds', true) };
  });
}

/** The extra seconds of a fresh rank's frame number `count` (0-based, sent and received). */
export function warmupExtra(steps: readonly WarmupStep[] | undefined, count: number): number {
  // A warm rank (most frames of a long run) answers at once.
  if (steps === undefined || steps.length === 0 || count >= steps[steps.length - 1]!.frames) return 0;
  for (const s of steps) if (count < s.frames) return s.extra;
  return 0;
}

/** A sleeping rank's wake-up with `ranksPerCore` ranks per core: linear between the points, the end points' slope beyond. */
export function wakeSeconds(points: readonly WakePoint[] | undefined, ranksPerCore: number): number {
  if (points === undefined || points.length === 0) return 0;
  const first = points[0]!;
  if (points.length === 1 || ranksPerCore <= first.ranksPerCore) return first.seconds;
  let i = 1;
  while (i < points.length - 1 && points[i]!.ranksPerCore < ranksPerCore) i++;
  const a = points[i - 1]!;
  const b = points[i]!;
  return Math.max(0, a.seconds + ((b.seconds - a.seconds) * (ranksPerCore - a.ranksPerCore)) / (b.ranksPerCore - a.ranksPerCore));
}

/**
 * The figures of a link class; between hosts, a machine calibrated alone lends its TCP figures
 * between processes (undefined when the class was not calibrated).
 */
export function classCosts(calibration: MachineCalibration, linkClass: LinkClass): LinkClassCalibration | undefined {
  return calibration.classes[linkClass] ?? (linkClass === 'inter-host' ? calibration.classes['inter-process'] : undefined);
}

function sleepingOf(value: unknown, field: string): NonNullable<LinkClassCalibration['sleeping']> {
  if (!isObj(value)) throw configError(`${field} must be an object`, 'calibrate the machine again');
  const wake = checkPositive(value['wake'], `${field}.wake`, 'seconds', true);
  return {
    wake,
    ...(value['pathCpu'] !== undefined ? { pathCpu: checkPositive(value['pathCpu'], `${field}.pathCpu`, 'seconds', true) } : {}),
    ...(value['crowded'] !== undefined ? { crowded: wakePoints(value['crowded'], `${field}.crowded`) } : {}),
  };
}

/**
 * What a sleeping receiver's wake-up takes beyond its calibrated one with `ranksPerCore` ranks
 * per core: nothing at one per core or less, linear from there through the points.
 */
export function crowdedWakeSeconds(points: readonly WakePoint[] | undefined, ranksPerCore: number): number {
  if (points === undefined || points.length === 0 || ranksPerCore <= 1) return 0;
  return wakeSeconds(points[0]!.ranksPerCore > 1 ? [{ ranksPerCore: 1, seconds: 0 }, ...points] : points, ranksPerCore);
}
