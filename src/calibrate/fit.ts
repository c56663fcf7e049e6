/**
 * From the probe's figures to a link class's costs per frame (platform/calibration.ts).
 *
 * The simulator runs tsmpi's own protocol, so a fit must make that protocol reproduce what was
 * measured: a message up to the eager limit is one frame (send CPU, pipe, receive CPU); a larger
 * one is a request-to-send and a clear-to-send frame (each costing what a 0-byte message costs)
 * and then the data frame. Per size, the pipe's part is what the ping-pong's one-way time leaves
 * after the CPU parts; the gap (how long the pair's pipe stays busy) is the stream's period, at
 * most that; the latency is the rest. Each cost is then fitted, range by range, with a line
 * (least squares on relative error, intercept and slope kept >= 0), as SMPI's calibration fits
 * its overheads and factors between breakpoints.
 */
import { evaluate, type LinkClassCalibration, type MeasuredSize, type Piecewise, type Segment, type WakePoint, type WarmupStep } from '../sim/platform/calibration.js';
import { medianOf, type SleepingResult } from './combine.js';

/** Where the small sizes end: below it a frame's time is its latency, nearly flat. */
const SMALL = 1024;

/**
 * Payload sizes where a fitted range ends: small, medium up to the eager limit, large, huge, and
 * where the link's own path changes below the eager limit (`pathChange`: over TCP, an eager
 * payload from there on is written from the sender's buffer instead of copied into the frame's,
 * and a 16 KiB frame's time is no guide to a 64 KiB one's).
 */
export function breakpoints(eagerLimit: number, pathChange?: number): number[] {
  const change = pathChange !== undefined && pathChange > SMALL && pathChange <= eagerLimit ? [pathChange] : [];
  return [...new Set([0, SMALL, ...change, eagerLimit + 1, 1 << 20])].sort((a, b) => a - b);
}

interface Point {
  x: number;
  y: number;
  /** What an error is relative to (default: y itself). */
  scale?: number;
}

const scaleOf = (p: Point): number => Math.max(p.scale ?? p.y, 1e-9);

/** A fitted line with its worst relative error over `points`. */
function withFitError(points: readonly Point[], intercept: number, slope: number): { intercept: number; slope: number; fitError: number } {
  return { intercept, slope, fitError: Math.max(0, ...points.map((p) => Math.abs(intercept + slope * p.x - p.y) / scaleOf(p))) };
}

/** One line through `points`, minimising the relative error, with intercept and slope >= 0. */
export function fitLine(points: readonly Point[]): { intercept: number; slope: number; fitError: number } {
  if (points.length === 0) return { intercept: 0, slope: 0, fitError: 0 };
  const w = points.map((p) => 1 / scaleOf(p) ** 2);
  const sum = (f: (p: Point, i: number) => number): number => points.reduce((s, p, i) => s + f(p, i), 0);
  let intercept: number;
  let slope: number;
  const sw = sum((_, i) => w[i]!);
  const sx = sum((p, i) => w[i]! * p.x);
  const sy = sum((p, i) => w[i]! * p.y);
  const sxx = sum((p, i) => w[i]! * p.x * p.x);
  const sxy = sum((p, i) => w[i]! * p.x * p.y);
  const det = sw * sxx - sx * sx;
  if (points.length >= 2 && det > 0) {
    slope = (sw * sxy - sx * sy) / det;
    intercept = (sy - slope * sx) / sw;
  } else {
    slope = 0;
    intercept = sy / sw;
  }
  if (slope < 0) {
    slope = 0;
    intercept = sy / sw;
  }
  if (intercept < 0) {
    intercept = 0;
    slope = sxx > 0 ? Math.max(0, sxy / sxx) : 0;
  }
  return withFitError(points, intercept, slope);
}

/**
 * A line through `points` that one stray point cannot move (the repeated median: per point the
 * median of its slopes to the others, the median of those; the intercept the median of what the
 * slope leaves), intercept and slope >= 0. For the small sizes, whose times are nearly flat and
 * move with the machine's state: one fast 0-byte figure, least squares on relative error put a
 * 16-byte frame at a third of its measured time.
 */
export function robustLine(points: readonly Point[]): { intercept: number; slope: number; fitError: number } {
  if (points.length < 3) return fitLine(points);
  const slopes = points.flatMap((p) => {
    const others = points.filter((q) => q.x !== p.x);
    return others.length === 0 ? [] : [medianOf(others.map((q) => (q.y - p.y) / (q.x - p.x)))];
  });
  const slope = slopes.length === 0 ? 0 : Math.max(0, medianOf(slopes));
  return withFitError(points, Math.max(0, medianOf(points.map((p) => p.y - slope * p.x))), slope);
}

/**
 * Fits `points` range by range between `edges` (the first is 0; the last range is unbounded);
 * ranges that end at or below `robustTo` with {@link robustLine}.
 */
export function fitPiecewise(points: readonly Point[], edges: readonly number[], robustTo = 0): Piecewise {
  const segments: Segment[] = [];
  edges.forEach((from, i) => {
    const to = edges[i + 1];
    const inside = points.filter((p) => p.x >= from && (to === undefined || p.x < to));
    if (inside.length === 0) {
      // No measurement in this range: it continues the previous one.
      const previous = segments.at(-1);
      if (previous !== undefined) segments.push({ ...previous, from, to: to ?? null, points: 0 });
      return;
    }
    segments.push({ from, to: to ?? null, ...(to !== undefined && to <= robustTo ? robustLine(inside) : fitLine(inside)), points: inside.length });
  });
  return segments;
}

/** A cost that is `value` at every size (the rendezvous' data frame's CPU parts). */
function constant(value: number, from: number): Segment {
  return { from, to: null, intercept: value, slope: 0, fitError: 0, points: 0 };
}

/** Throws naming the first figure that cannot be a measurement. */
export function checkFigures(figures: readonly MeasuredSize[], what: string): void {
  if (figures.length < 4) throw new RangeError(`${what}: ${figures.length} measured sizes, at least 4 are needed (was the probe cut short?)`);
  for (const f of figures) {
    for (const key of ['oneWay', 'streamPeriod', 'send', 'recv'] as const) {
      const v = f[key];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`${what}: ${key} of ${f.bytes} B is ${String(v)}, not a time`);
    }
    if (f.burstSend !== undefined && !(Number.isFinite(f.burstSend) && f.burstSend >= 0)) throw new RangeError(`${what}: burstSend of ${f.bytes} B is ${String(f.burstSend)}, not a time`);
    if (!(f.oneWay > 0)) throw new RangeError(`${what}: the one-way time of ${f.bytes} B is ${f.oneWay} s: the clock did not move (a broken measurement)`);
  }
  if (!figures.some((f) => f.bytes === 0)) throw new RangeError(`${what}: no 0-byte measurement (it prices the rendezvous' handshake frames)`);
}

/**
 * The per-frame costs of one link class from the probe's figures (`pathChange`: a payload size
 * where the link's path changes below the eager limit, a range of its own from there).
 */
export function fitLinkClass(measured: readonly MeasuredSize[], eagerLimit: number, what: string, pathChange?: number): LinkClassCalibration {
  checkFigures(measured, what);
  const figures = [...measured].sort((a, b) => a.bytes - b.bytes);
  const edges = breakpoints(eagerLimit, pathChange);
  const eager = figures.filter((f) => f.bytes <= eagerLimit);
  const sendEager = fitPiecewise(eager.map((f) => ({ x: f.bytes, y: f.send })), edges.filter((e) => e <= eagerLimit));
  const recvEager = fitPiecewise(eager.map((f) => ({ x: f.bytes, y: f.recv })), edges.filter((e) => e <= eagerLimit));
  const at0 = (cost: Piecewise): number => Math.max(0, cost[0]!.intercept);
  // A rendezvous' data frame: the handling of a frame, its bytes go through the pipe.
  const send: Piecewise = [...sendEager, constant(at0(sendEager), eagerLimit + 1)];
  const recv: Piecewise = [...recvEager, constant(at0(recvEager), eagerLimit + 1)];
  // A burst's send where every eager size measured one (older probes did not).
  const burstEager = eager.every((f) => f.burstSend !== undefined) ? fitPiecewise(eager.map((f) => ({ x: f.bytes, y: f.burstSend! })), edges.filter((e) => e <= eagerLimit)) : undefined;
  const burstSend: Piecewise | undefined = burstEager === undefined ? undefined : [...burstEager, constant(at0(burstEager), eagerLimit + 1)];
  // A handshake frame costs what a small message costs: the median over the sizes below 1 KiB
  // (one noisy 0-byte figure must not price every rendezvous).
  const small = figures.filter((f) => f.bytes < 1024).map((f) => f.oneWay).sort((a, b) => a - b);
  const handshake = 2 * small[Math.floor((small.length - 1) / 2)]!;
  const pipe: Point[] = [];
  const gap: Point[] = [];
  for (const f of figures) {
    const rendezvous = f.bytes > eagerLimit;
    const cpu = rendezvous ? at0(sendEager) + at0(recvEager) : f.send + f.recv;
    // The data frame's own time (a rendezvous' handshake frames taken out), and what the CPU
    // parts leave of it: at least 2% of it (noise may leave less). The floor is the frame's, not
    // the whole rendezvous': three frames' worth put a 16 KiB frame 5% high where the pipe is fast.
    const own = rendezvous ? Math.max(f.oneWay - handshake, 0.02 * f.oneWay) : f.oneWay;
    const inPipe = Math.max(0.02 * own, own - cpu);
    pipe.push({ x: f.bytes, y: inPipe });
    // The gap's error counts against the whole pipe time (a gap of 0 is a fine figure).
    gap.push({ x: f.bytes, y: Math.min(inPipe, f.streamPeriod), scale: inPipe });
  }
  const pipeFit = fitPiecewise(pipe, edges, SMALL);
  const gapFit = fitPiecewise(gap, edges, SMALL);
  // Range by range, the gap is at most the pipe's time (coefficient by coefficient) and the
  // latency is the rest: the two add up to the pipe's fit exactly.
  const gapCapped: Piecewise = gapFit.map((g, i) => ({ ...g, intercept: Math.min(g.intercept, pipeFit[i]!.intercept), slope: Math.min(g.slope, pipeFit[i]!.slope) }));
  const latency: Piecewise = pipeFit.map((p, i) => ({ ...p, intercept: p.intercept - gapCapped[i]!.intercept, slope: p.slope - gapCapped[i]!.slope }));
  return { eagerLimit, send, recv, ...(burstSend !== undefined ? { burstSend } : {}), latency, gap: gapCapped, measured: figures };
}

/**
 * A fresh rank's extra cost per frame, from the ping-pong timed chunk by chunk from the ranks'
 * first message (`cold`: seconds per round trip; `frames`: each chunk's end as the count of frames
 * a rank sent, as many as it received). The warm figure is the mean of the last third of the
 * chunks; a round trip is four frame events on its critical path (each rank sends one and
 * receives one), so each chunk's excess over the warm figure is shared among them: a step's
 * extra applies to each of a rank's sends below its end, and to each of its receives. Steps end at the last chunk still
 * off the warm figure by more than the chunks' noise. A chunk below it by more than that (a curve
 * netted against the simulator's, {@link excessOver}) is a credit: its extra is below 0. Less
 * than that below it is noise, and costs nothing.
 */
export function fitWarmup(cold: readonly number[], frames: readonly number[]): WarmupStep[] {
  if (cold.length < 3 || !cold.every((t) => Number.isFinite(t))) throw new RangeError(`the fresh ranks' ping-pong has ${cold.length} chunks (${cold.join(', ')}): at least 3 times are needed`);
  if (frames.length !== cold.length || !frames.every((f, k) => Number.isInteger(f) && f > (k === 0 ? 0 : frames[k - 1]!))) throw new RangeError(`the fresh ranks' ping-pong has ${cold.length} chunks but their ends are ${frames.join(', ')} (one increasing frame count per chunk is needed)`);
  const tail = [...cold.slice(warmTailStart(frames))].sort((a, b) => a - b);
  // The mean, as the warm one-way times are: the pauses a warm run still meets are not warm-up.
  const warm = tail.reduce((a, b) => a + b, 0) / tail.length;
  // The tail's own spread: a chunk within it of the warm figure is not warming up any more.
  const noise = Math.max(0.05 * warm, tail.at(-1)! - warm);
  let last = -1;
  cold.forEach((t, k) => {
    if (Math.abs(t - warm) > noise) last = k;
  });
  const steps: WarmupStep[] = [];
  for (let k = 0; k <= last; k++) {
    const excess = cold[k]! - warm;
    steps.push({ frames: frames[k]!, extra: (excess < -noise ? excess : Math.max(0, excess)) / 4 });
  }
  return steps;
}

/**
 * The first chunk of the warm tail: the chunks that start in the last third of the round trips
 * (by count of chunks the first round trips, timed one by one, would crowd the tail out).
 */
export function warmTailStart(frames: readonly number[]): number {
  const from = (2 * frames.at(-1)!) / 3;
  const k = frames.findIndex((_, i) => (i === 0 ? 0 : frames[i - 1]!) >= from);
  return k < 0 ? frames.length - 1 : Math.min(k, frames.length - 1);
}

/**
 * The real fresh-rank curve less the simulator's own excess over its warm figure (the tail, which
 * fitWarmup takes the warm figure from, untouched). Both curves come from the same probe, so
 * their chunks end at the same `frames`. Netted on the running sum of the two curves' difference
 * (each chunk's excess times its round trips): up to each chunk's end the rank is charged what
 * the real run paid there beyond the simulated one, or nothing where the simulated one had
 * counted more. A chunk where that sum falls gives back what earlier chunks charged: it lies
 * below the real warm figure, a credit, which the simulator takes off the rank's measured compute
 * (SimRank.warmupCredit). Where the simulator's own count overtakes the real one for good, the
 * charges are all given back, and nothing is owed beyond them: the simulator's count alone
 * predicted rings of 2 and 4 rank threads (0.070 and 0.152 s against 0.067 and 0.165 real),
 * where the probe's whole difference, taken off too, left the ring of 4 at 0.117 s
 * (docs/simulator.md, "2026-11-30, morning").
 */
export function excessOver(real: readonly number[], simulated: readonly number[], frames: readonly number[]): number[] {
  const start = warmTailStart(frames);
  const warmOf = (curve: readonly number[]): number => {
    const tail = curve.slice(start);
    return tail.reduce((a, b) => a + b, 0) / tail.length;
  };
  const simulatedWarm = warmOf(simulated);
  const realWarm = warmOf(real);
  let difference = 0;
  let charged = 0;
  return real.map((t, k) => {
    if (k >= start) return t;
    const trips = Math.max(1, frames[k]! - (k === 0 ? 0 : frames[k - 1]!));
    difference += (Math.max(0, t - realWarm) - Math.max(0, (simulated[k] ?? simulatedWarm) - simulatedWarm)) * trips;
    const now = Math.max(0, difference);
    const step = now - charged;
    charged = now;
    return realWarm + step / trips;
  });
}

/**
 * The path's own CPU per frame end (LinkClassCalibration.pathCpu): a process's CPU per round
 * trip of the 16-byte ping-pong handles one frame sent and one received, whose calls cost `send`
 * and `recv`; the rest is the path's, half at each end. Never more than the one-way time's part
 * that is not the calls' (the latency).
 */
export function fitPathCpu(cpuPerRoundTrip: number, send: number, recv: number, latency: number): number {
  if (!(Number.isFinite(cpuPerRoundTrip) && cpuPerRoundTrip >= 0)) throw new RangeError(`the CPU per round trip is ${cpuPerRoundTrip} s`);
  return Math.max(0, Math.min((cpuPerRoundTrip - send - recv) / 2, latency / 2));
}

/**
 * The sender's CPU per frame after the frame has left (LinkClassCalibration.afterSend), from a
 * warm 16-byte exchange's seconds per call. In the model each rank of an exchange spends `send`
 * and the path's CPU on its frame, then this, and only then handles the frame that came (the
 * path's CPU and `recv`); the frame that came left as early, so the exchange lasts as long as
 * the model's one-way time (`oneWay`) unless this is longer than the frame's way. An exchange no
 * longer than that says nothing of it: 0. Between processes the exchange took about a whole
 * round trip: the socket write's completion and bookkeeping, which a lone message never waits for.
 */
export function fitAfterSend(exchange: number, oneWay: number, send: number, recv: number, pathCpu = 0): number {
  if (!(Number.isFinite(exchange) && exchange > 0)) throw new RangeError(`the exchange took ${exchange} s per call`);
  return exchange > oneWay ? Math.max(0, exchange - send - recv - 2 * pathCpu) : 0;
}

/**
 * What a sleeping receiver adds between processes (LinkClassCalibration.sleeping): the 16-byte
 * one-way time asleep beyond the sweep's (turning) one, and the path's CPU per frame end then,
 * from the CPU per round trip as {@link fitPathCpu} reads it, less the sender's work after its
 * frame left (`afterSend`), which that CPU holds too and the simulator charges apart.
 */
export function fitSleeping(sleeping: SleepingResult, fitted: Pick<LinkClassCalibration, 'send' | 'recv' | 'latency' | 'measured'>, afterSend = 0): NonNullable<LinkClassCalibration['sleeping']> {
  if (!(Number.isFinite(sleeping.oneWay) && sleeping.oneWay > 0)) throw new RangeError(`the sleeping one-way time is ${sleeping.oneWay} s`);
  const turning = fitted.measured.find((f) => f.bytes === 16)?.oneWay ?? evaluate(fitted.send, 16) + evaluate(fitted.latency, 16) + evaluate(fitted.recv, 16);
  const wake = Math.max(0, sleeping.oneWay - turning);
  if (sleeping.cpuPerRoundTrip === undefined) return { wake };
  return { wake, pathCpu: fitPathCpu(Math.max(0, sleeping.cpuPerRoundTrip - afterSend), evaluate(fitted.send, 16), evaluate(fitted.recv, 16), evaluate(fitted.latency, 16) + wake) };
}

/**
 * A new link's cost per direction (LinkClassCalibration.linkSetup): the first round trip of two
 * warm ranks that never talked opens a link each way, both on its critical path; what it took
 * beyond a warm round trip is theirs.
 */
export function fitLinkSetup(link: { first: number; warm: number }): number {
  if (!(Number.isFinite(link.first) && Number.isFinite(link.warm) && link.first > 0 && link.warm > 0)) throw new RangeError(`the new link's round trips are ${link.first} s and ${link.warm} s warm`);
  return Math.max(0, link.first - link.warm) / 2;
}

/**
 * What a sleeping process's wake-up takes more when the host has more ranks than cores: each
 * warm ring's hop beyond the one-way time of the 2-process ping-pong whose receivers sleep
 * (one per core), by ranks per core.
 */
export function fitCrowded(rings: readonly { ranksPerCore: number; hop: number }[], sleepingOneWay: number): WakePoint[] {
  if (!(Number.isFinite(sleepingOneWay) && sleepingOneWay > 0)) throw new RangeError(`the sleeping one-way time is ${sleepingOneWay} s`);
  const points: WakePoint[] = [];
  for (const r of [...rings].sort((a, b) => a.ranksPerCore - b.ranksPerCore)) {
    if (!(Number.isFinite(r.hop) && r.hop > 0)) throw new RangeError(`the ring of ${r.ranksPerCore} processes per core measured ${r.hop} s per hop`);
    if (r.ranksPerCore > 1 && r.ranksPerCore > (points.at(-1)?.ranksPerCore ?? 1)) points.push({ ranksPerCore: r.ranksPerCore, seconds: Math.max(0, r.hop - sleepingOneWay) });
  }
  return points;
}

/**
 * A sleeping rank's wake-up by ranks per core: what a small frame's hand-over costs beyond the
 * calibrated one-way time of 16 bytes, when every receive sleeps (one rank per core), and per
 * hop of a ring with more ranks than cores.
 */
export function fitWake(wake: { sleepingOneWay: number; rings: readonly { ranksPerCore: number; hop: number }[] }, measured: readonly MeasuredSize[]): WakePoint[] {
  const small = measured.find((f) => f.bytes === 16) ?? measured.find((f) => f.bytes > 0) ?? measured[0];
  const base = small?.oneWay ?? 0;
  const points: WakePoint[] = [{ ranksPerCore: 1, seconds: Math.max(0, wake.sleepingOneWay - base) }];
  for (const r of [...wake.rings].sort((a, b) => a.ranksPerCore - b.ranksPerCore)) {
    if (r.ranksPerCore > points.at(-1)!.ranksPerCore) points.push({ ranksPerCore: r.ranksPerCore, seconds: Math.max(0, r.hop - base) });
  }
  return points;
}
