/**
 * Repeated probe runs made into one set of figures. A shared machine now and then slows one run
 * down for seconds (another process or the hypervisor takes a core): one such run in a single
 * sweep put a 16-byte one-way time at 44 us against 0.8 us, and with it every figure fitted from
 * it. Each figure is therefore the median over independent runs (fresh processes): a slow run is
 * outvoted, while the pauses every run meets stay in each run's means.
 */
import type { MeasuredSize, PollCosts } from '../sim/platform/calibration.js';

/** What one run of the probe's sweep measured (probe.ts writes it). */
export interface ProbeResult {
  figures: MeasuredSize[];
  speed: number;
  eagerLimit: number;
  tcpEagerLimit: number;
  /** Seconds per round trip of the fresh ranks' ping-pong, chunk by chunk. */
  cold?: number[];
  /** Where each chunk of `cold` ends: the count of frames the rank sent by then (and received). */
  coldFrames?: number[];
  /** The sized fresh curves (probe.ts `cold-BYTES`), in increasing `bytes`. */
  sizedCold?: SizedCold[];
  polls?: PollCosts;
  /** CPU seconds a process spends per round trip of a warm 16-byte ping-pong (probe.ts pathCpu). */
  cpuPerRoundTrip?: number;
  /** Seconds per call of a warm 16-byte exchange between ranks 0 and 1 (probe.ts exchangeTime). */
  exchange?: number;
  /** Seconds of the first round trip of two warm ranks never linked before, and of a warm one (probe.ts link). */
  link?: { first: number; warm: number };
  /** Between processes, the 16-byte ping-pong again with every receive asleep (probe.ts sleep). */
  sleeping?: SleepingResult;
  /**
   * Between processes of one host: seconds per hop of a warm ring of processes, with 2 and 4 per
   * core (probe.ts ring): what sleeping receivers cost once they queue for the cores.
   */
  crowded?: CrowdedRing[];
}

/** A ping-pong of `bytes` on fresh ranks whose small messages' path is warm: seconds per round trip, chunk by chunk, and each chunk's end as the count of such frames a rank sent. */
export interface SizedCold {
  bytes: number;
  cold: number[];
  coldFrames: number[];
}

/** A warm ring with `ranksPerCore` ranks per core (threads, or processes when crowded): seconds per hop. */
export interface CrowdedRing {
  ranksPerCore: number;
  hop: number;
}

/** A 16-byte ping-pong whose receivers sleep in the kernel (TSMPI_SOCKET_SPIN_US=0): one-way seconds, CPU seconds per round trip. */
export interface SleepingResult {
  oneWay: number;
  cpuPerRoundTrip?: number;
}

/** What the wake-up experiments measured: one-way time when every receive sleeps, and ring hops with ranks sharing cores. */
export interface WakeResult {
  sleepingOneWay: number;
  rings: CrowdedRing[];
}

export function medianOf(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError('the median of no figures');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Each figure of each size, each chunk of the fresh curves, the polls and the speed: the median over the runs. */
export function combineProbes(runs: readonly ProbeResult[]): ProbeResult {
  if (runs.length === 0) throw new RangeError('no probe run to combine');
  if (runs.length === 1) return runs[0]!;
  const first = runs[0]!;
  const figures = first.figures.map((f): MeasuredSize => {
    const same = runs.map((r) => r.figures.find((g) => g.bytes === f.bytes));
    if (same.some((g) => g === undefined)) throw new RangeError(`the probe runs measured different sizes (${f.bytes} B is missing from one)`);
    const of = (pick: (g: MeasuredSize) => number): number => medianOf(same.map((g) => pick(g!)));
    const bursts = same.every((g) => g!.burstSend !== undefined) ? { burstSend: of((g) => g.burstSend!) } : {};
    return { bytes: f.bytes, oneWay: of((g) => g.oneWay), streamPeriod: of((g) => g.streamPeriod), send: of((g) => g.send), recv: of((g) => g.recv), ...bursts, oneWayRuns: same.map((g) => g!.oneWay) };
  });
  const colds = runs.map((r) => r.cold).filter((c): c is number[] => c !== undefined);
  const chunks = colds.length === 0 ? 0 : Math.min(...colds.map((c) => c.length));
  const cold = colds.length === 0 ? undefined : Array.from({ length: chunks }, (_, i) => medianOf(colds.map((c) => c[i]!)));
  const sizedCold = first.sizedCold?.map((curve): SizedCold => {
    const same = runs.map((r) => r.sizedCold?.find((c) => c.bytes === curve.bytes)?.cold).filter((c): c is number[] => c !== undefined);
    const n = Math.min(...same.map((c) => c.length));
    return { bytes: curve.bytes, cold: Array.from({ length: n }, (_, i) => medianOf(same.map((c) => c[i]!))), coldFrames: curve.coldFrames.slice(0, n) };
  });
  const polls = runs.map((r) => r.polls).filter((p): p is PollCosts => p !== undefined);
  const cpus = runs.map((r) => r.cpuPerRoundTrip).filter((c): c is number => typeof c === 'number' && Number.isFinite(c));
  const exchanges = runs.map((r) => r.exchange).filter((e): e is number => typeof e === 'number' && Number.isFinite(e));
  const links = runs.map((r) => r.link).filter((l): l is { first: number; warm: number } => l !== undefined);
  const sleeps = runs.map((r) => r.sleeping).filter((s): s is SleepingResult => s !== undefined);
  const sleepCpus = sleeps.map((s) => s.cpuPerRoundTrip).filter((c): c is number => typeof c === 'number' && Number.isFinite(c));
  const crowded = first.crowded !== undefined ? medianRings(runs.map((r) => r.crowded ?? [])) : undefined;
  return {
    figures,
    speed: medianOf(runs.map((r) => r.speed)),
    eagerLimit: first.eagerLimit,
    tcpEagerLimit: first.tcpEagerLimit,
    ...(cold !== undefined && first.coldFrames !== undefined ? { cold, coldFrames: first.coldFrames.slice(0, chunks) } : {}),
    ...(sizedCold !== undefined ? { sizedCold } : {}),
    ...(polls.length > 0 ? { polls: { test: medianOf(polls.map((p) => p.test)), iprobe: medianOf(polls.map((p) => p.iprobe)) } } : {}),
    ...(cpus.length > 0 ? { cpuPerRoundTrip: medianOf(cpus) } : {}),
    ...(exchanges.length > 0 ? { exchange: medianOf(exchanges) } : {}),
    ...(links.length > 0 ? { link: { first: medianOf(links.map((l) => l.first)), warm: medianOf(links.map((l) => l.warm)) } } : {}),
    ...(sleeps.length > 0 ? { sleeping: { oneWay: medianOf(sleeps.map((s) => s.oneWay)), ...(sleepCpus.length > 0 ? { cpuPerRoundTrip: medianOf(sleepCpus) } : {}) } } : {}),
    ...(crowded !== undefined && crowded.length > 0 ? { crowded } : {}),
  };
}

/** The sleeping one-way time and each ring's hop: the median over the runs. */
export function combineWakes(runs: readonly WakeResult[]): WakeResult {
  if (runs.length === 0) throw new RangeError('no wake-up run to combine');
  return { sleepingOneWay: medianOf(runs.map((r) => r.sleepingOneWay)), rings: medianRings(runs.map((r) => r.rings)) };
}

/** Each ring of the first run's, its hop the median over the runs that measured it. */
function medianRings(runs: readonly (readonly CrowdedRing[])[]): CrowdedRing[] {
  return runs[0]!.map((ring) => ({ ranksPerCore: ring.ranksPerCore, hop: medianOf(runs.map((r) => r.find((x) => x.ranksPerCore === ring.ranksPerCore)?.hop ?? Number.NaN).filter((h) => Number.isFinite(h))) }));
}
