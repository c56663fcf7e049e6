/**
 * tsmpi calibrate and the simulator of a calibrated machine: a calibration run against a modelled
 * machine (--sim) gives its costs back; one run on this machine writes a platform and its SimGrid
 * twin; the simulator places ranks as the launcher does (threads: one process; --procs: one per
 * rank) and charges each link class's figures; ranks that compute at once share the host's
 * cores; a placement needing a class that was not calibrated stops up front, saying what to do.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { machineFrom } from '../../src/calibrate/calibrate.ts';
import { evaluate, readCalibration, type MachineCalibration, type MeasuredSize } from '../../src/sim/platform/calibration.ts';
import { spawnSync } from 'node:child_process';
import { simgridXml } from '../../src/calibrate/simgrid-xml.ts';
import { findSimgrid } from '../../bench/lib/simgrid.ts';
import { explain, fixture, tsmpi } from '../helpers/run-job.ts';

const dir = mkdtempSync(join(tmpdir(), 'tsmpi-calibrate-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SIZES = [0, 16, 64, 256, 1024, 4096, 16384, 32768, 65536, 131072, 262144, 1048576, 4194304, 16777216];

/**
 * A machine whose frames cost `send + recv + latency + perByte * bytes` (streams at gapPerByte);
 * with `burstSend`, a send that continues a burst costs that instead, its link holding it back.
 */
function knownMachine(costs: Record<'threads' | 'procs', { send: number; recv: number; latency: number; perByte: number; burstSend?: number }>, cores: number): MachineCalibration {
  const figures = (c: { send: number; recv: number; latency: number; perByte: number; burstSend?: number }): MeasuredSize[] => {
    const frame = (b: number): number => c.send + c.recv + c.latency + c.perByte * b;
    const burst = c.burstSend !== undefined ? { burstSend: c.burstSend } : {};
    return SIZES.map((bytes) => ({ bytes, oneWay: bytes <= 65536 ? frame(bytes) : 2 * frame(0) + frame(bytes), streamPeriod: Math.max(c.send, (c.perByte * bytes) / 2), send: c.send, recv: c.recv, ...burst }));
  };
  const m = machineFrom(
    new Map([
      ['threads', { figures: figures(costs.threads), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }],
      ['procs', { figures: figures(costs.procs), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }],
    ]),
    0,
  );
  return { ...m, hosts: { ...m.hosts, cores } };
}

/** The known machine, also with what the runtime costs beyond its frames: a fresh rank's first frames, polls, wake-ups. */
const RUNTIME = {
  warmup: [{ frames: 200, extra: 20e-6 }],
  sizedWarmup: [
    { bytes: 2048, fromBytes: 2048, steps: [{ frames: 150, extra: 15e-6 }] },
    { bytes: 65536, fromBytes: 11585, steps: [{ frames: 300, extra: 40e-6 }] },
  ],
  linkSetup: 50e-6,
  polls: { test: 2e-6, iprobe: 3e-6 },
  wake: [{ ranksPerCore: 1, seconds: 30e-6 }, { ranksPerCore: 2, seconds: 60e-6 }, { ranksPerCore: 4, seconds: 100e-6 }],
};
function knownRuntime(cores: number): MachineCalibration {
  const m = knownMachine(KNOWN, cores);
  const intra = { ...m.classes['intra-process']!, warmup: RUNTIME.warmup, sizedWarmup: RUNTIME.sizedWarmup, linkSetup: RUNTIME.linkSetup, polls: RUNTIME.polls };
  return { ...m, classes: { ...m.classes, 'intra-process': intra }, wake: RUNTIME.wake };
}

/** The modelled machine's sender work after a frame has left, between processes: more than the frame's way (60 us), so an exchange shows it. */
const KNOWN_AFTER_SEND = 100e-6;
/** The modelled machine's send that continues a burst between processes (held back by its link). */
const KNOWN_BURST_SEND = 2e-6;
const KNOWN = { threads: { send: 4e-6, recv: 3e-6, latency: 20e-6, perByte: 2e-10 }, procs: { send: 12e-6, recv: 6e-6, latency: 60e-6, perByte: 1e-9 } };

function write(name: string, machine: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(machine, null, 2)}\n`);
  return path;
}

test('tsmpi calibrate --sim gives back the costs of the modelled machine it measured', async () => {
  const known = knownMachine({ ...KNOWN, procs: { ...KNOWN.procs, burstSend: KNOWN_BURST_SEND } }, 2);
  const platform = write('known.json', { ...known, classes: { ...known.classes, 'inter-process': { ...known.classes['inter-process']!, afterSend: KNOWN_AFTER_SEND } } });
  const out = join(dir, 'recovered.json');
  const result = await tsmpi(['calibrate', '--quick', '--sim', platform, '-o', out], { timeoutMs: 180_000 });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /intra-process: frame of 8 B/);
  const recovered = readCalibration(JSON.parse(readFileSync(out, 'utf8')), out);
  for (const [mode, linkClass] of [['threads', 'intra-process'], ['procs', 'inter-process']] as const) {
    const k = KNOWN[mode];
    const c = recovered.classes[linkClass]!;
    for (const bytes of [16, 4096, 65536, 1 << 20, 16 << 20]) {
      const frame = evaluate(c.send, bytes) + evaluate(c.recv, bytes) + evaluate(c.latency, bytes) + evaluate(c.gap, bytes);
      const expected = k.send + k.recv + k.latency + k.perByte * bytes;
      // The probe's own JavaScript between calls costs the simulated ranks a little: a few percent.
      assert.ok(Math.abs(frame / expected - 1) < 0.1, `${linkClass} ${bytes} B: recovered ${frame} s, modelled ${expected} s`);
    }
    assert.ok(Math.abs(evaluate(c.send, 16) / k.send - 1) < 0.25, `${linkClass} send ${evaluate(c.send, 16)} vs ${k.send}`);
    // (The simulator charges a frame's receive cost when it is delivered, so a receive of a message
    // that is already there costs nothing more: the split of send and receive is not recovered,
    // their sum with the pipe is.)
  }
  const afterSend = recovered.classes['inter-process']!.afterSend;
  assert.ok(afterSend !== undefined && Math.abs(afterSend / KNOWN_AFTER_SEND - 1) < 0.15, `the sender's work after a frame left: recovered ${afterSend} s, modelled ${KNOWN_AFTER_SEND} s`);
  assert.equal(recovered.classes['intra-process']!.afterSend, undefined);
  // A burst's sends: between processes the modelled machine holds them back at their own cost;
  // between threads it holds nothing (no such figure), so they cost what any send does.
  const burst = (linkClass: 'intra-process' | 'inter-process'): number => evaluate(recovered.classes[linkClass]!.burstSend!, 16);
  assert.ok(Math.abs(burst('inter-process') / KNOWN_BURST_SEND - 1) < 0.25, `a burst's send between processes: recovered ${burst('inter-process')} s, modelled ${KNOWN_BURST_SEND} s`);
  assert.ok(Math.abs(burst('intra-process') / KNOWN.threads.send - 1) < 0.25, `a burst's send between threads: recovered ${burst('intra-process')} s, modelled none (a send's ${KNOWN.threads.send} s)`);
  const xml = readFileSync(join(dir, 'recovered.xml'), 'utf8');
  assert.match(xml, /<prop id="smpi\/os" value="0:/);
  assert.match(xml, /<cluster id="calibrated"/);
});

test('a cluster: calibrate --sim on a modelled 2-host machine gives back its between-hosts figures, and the simulator charges them to ranks on different hosts', async () => {
  const between = { send: 20e-6, recv: 10e-6, latency: 150e-6, perByte: 4e-9 };
  const figures = (c: typeof between): MeasuredSize[] => {
    const frame = (b: number): number => c.send + c.recv + c.latency + c.perByte * b;
    return SIZES.map((bytes) => ({ bytes, oneWay: bytes <= 65536 ? frame(bytes) : 2 * frame(0) + frame(bytes), streamPeriod: Math.max(c.send, (c.perByte * bytes) / 2), send: c.send, recv: c.recv }));
  };
  const local = knownMachine(KNOWN, 2);
  const cluster = machineFrom(new Map([['hosts', { figures: figures(between), speed: 1e9, eagerLimit: 65536, tcpEagerLimit: 65536 }]]), 0, undefined, undefined, 2, 2);
  const platform = write('known-cluster.json', { ...local, hosts: { ...local.hosts, count: 2 }, classes: { ...local.classes, ...cluster.classes } });
  const out = join(dir, 'recovered-cluster.json');
  const result = await tsmpi(['calibrate', '--quick', '--modes', 'procs,hosts', '--sim', platform, '-o', out], { timeoutMs: 180_000 });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stdout, /inter-host: frame of 8 B/);
  const back = readCalibration(JSON.parse(readFileSync(out, 'utf8')), out);
  assert.equal(back.hosts.count, 2);
  for (const [linkClass, k] of [['inter-process', KNOWN.procs], ['inter-host', between]] as const) {
    const c = back.classes[linkClass]!;
    for (const bytes of [16, 65536, 1 << 20]) {
      const frame = evaluate(c.send, bytes) + evaluate(c.recv, bytes) + evaluate(c.latency, bytes) + evaluate(c.gap, bytes);
      const expected = k.send + k.recv + k.latency + k.perByte * bytes;
      assert.ok(Math.abs(frame / expected - 1) < 0.1, `${linkClass} ${bytes} B: recovered ${frame} s, modelled ${expected} s`);
    }
  }
  // The twin for SimGrid governs SMPI's knobs by the between-hosts class on a cluster.
  assert.match(readFileSync(join(dir, 'recovered-cluster.xml'), 'utf8'), /radical="0-1"/);
  // On the recovered cluster, a ring of 2 ranks on 2 hosts pays the between-hosts frame per hop.
  const program = join(dir, 'cluster-ring.ts');
  writeFileSync(program, RING_HOPS);
  const sim = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', out, '-n', '2', '--ranks-per-host', '1', program]);
  assert.equal(sim.code, 0, explain(sim));
  const hop = Number(/^hop ([\d.eE+-]+)$/m.exec(sim.stdout)?.[1]);
  const frame16 = between.send + between.recv + between.latency + between.perByte * 8;
  assert.ok(Math.abs(hop / frame16 - 1) < 0.1, `hop ${hop} s on the cluster, a between-hosts frame ${frame16} s\n${sim.stdout}`);
});

test("tsmpi calibrate --sim gives back a modelled machine's warm-up, poll costs and wake-ups by ranks per core", async () => {
  const platform = write('known-runtime.json', knownRuntime(2));
  const out = join(dir, 'recovered-runtime.json');
  const result = await tsmpi(['calibrate', '--quick', '--modes', 'threads', '--sim', platform, '-o', out], { timeoutMs: 180_000 });
  assert.equal(result.code, 0, explain(result));
  assert.match(result.stderr, /rings of 4 and 8 ranks on 2 cores/);
  const back = readCalibration(JSON.parse(readFileSync(out, 'utf8')), out);
  const c = back.classes['intra-process']!;
  const near = (got: number, want: number, tolerance: number, what: string): void => assert.ok(Math.abs(got / want - 1) < tolerance, `${what}: recovered ${got}, modelled ${want}`);
  near(c.polls!.test, RUNTIME.polls.test, 0.05, 'test()');
  near(c.polls!.iprobe, RUNTIME.polls.iprobe, 0.05, 'iprobe()');
  // The warm-up's whole extra time (a step's extra times its frames), wherever the steps fall.
  const total = (steps: readonly { frames: number; extra: number }[]): number => {
    let previous = 0;
    let extra = 0;
    for (const s of steps) {
      extra += s.extra * (s.frames - previous);
      previous = s.frames;
    }
    return extra;
  };
  near(total(c.warmup!), RUNTIME.warmup[0]!.frames * RUNTIME.warmup[0]!.extra, 0.1, 'warm-up seconds');
  // Each size's on top, from its own curve: frames past the 16-byte ones' pay only theirs.
  assert.deepEqual(c.sizedWarmup!.map((w) => [w.bytes, w.fromBytes]), [[2048, 2048], [65536, 11585]]);
  c.sizedWarmup!.forEach((w, i) => near(total(w.steps), RUNTIME.sizedWarmup[i]!.steps[0]!.frames * RUNTIME.sizedWarmup[i]!.steps[0]!.extra, 0.1, `${w.bytes} B warm-up seconds`));
  near(c.linkSetup!, RUNTIME.linkSetup, 0.05, 'a new link');
  assert.deepEqual(back.wake!.map((p) => p.ranksPerCore), [1, 2, 4]);
  back.wake!.forEach((p, i) => near(p.seconds, RUNTIME.wake[i]!.seconds, 0.1, `wake-up at ${p.ranksPerCore} ranks per core`));
});

const RING_HOPS = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const token = new Uint8Array(8);
const right = (comm.rank + 1) % comm.size, left = (comm.rank + comm.size - 1) % comm.size;
let t0 = wtime();
for (let lap = 0; lap < 300; lap++) {
  if (lap === 100 && comm.rank === 0) console.log('fresh hop ' + (wtime() - t0) / 100 / comm.size);
  if (lap === 250) { await comm.barrier(); t0 = wtime(); }
  if (comm.rank === 0) { await comm.send(token, right); await comm.recvInto(token, left); }
  else { await comm.recvInto(token, left); await comm.send(token, right); }
}
if (comm.rank === 0) console.log('hop ' + (wtime() - t0) / 50 / comm.size);
// Fruitless polls: a test() of a receive not yet sent, an iprobe of a tag nobody sends.
if (comm.rank === 0) {
  const pending = comm.irecvInto(token, left, 99);
  let t = wtime();
  for (let i = 0; i < 1000; i++) if (pending.test()) throw new Error('not sent yet');
  console.log('test ' + (wtime() - t) / 1000);
  t = wtime();
  for (let i = 0; i < 1000; i++) if (comm.iprobe(left, 98) !== undefined) throw new Error('never sent');
  console.log('iprobe ' + (wtime() - t) / 1000);
  await comm.barrier();
  await pending.wait();
} else {
  await comm.barrier();
  if (comm.rank === comm.size - 1) await comm.send(token, 0, 99);
}
`;
test('on a calibrated machine a rank that slept pays its wake-up (more with more ranks per core), a fresh rank its warm-up, a poll its cost', async () => {
  const platform = write('runtime.json', knownRuntime(2));
  const program = join(dir, 'ring-hops.ts');
  writeFileSync(program, RING_HOPS);
  const run = async (np: number, env: Record<string, string> = {}): Promise<Record<string, number>> => {
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', String(np), program], { env });
    assert.equal(r.code, 0, explain(r));
    return Object.fromEntries([...r.stdout.matchAll(/^(fresh hop|hop|test|iprobe) ([\d.eE+-]+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
  };
  const k = KNOWN.threads;
  const frame = k.send + k.recv + k.latency + k.perByte * 8;
  // Two ranks on two cores poll for 200 us: a hop waits far less, nobody sleeps.
  const two = await run(2);
  near(two['hop']!, frame, 0.02, '2 ranks, polling');
  // Their first 100 laps (each rank's sends 0-99 and receives 0-99): the sender's and the receiver's warm-up per hop.
  near(two['fresh hop']!, frame + 2 * 20e-6, 0.05, '2 fresh ranks');
  // A poll costs what was measured, the 1000th as the first (no growth on a calibrated machine).
  near(two['test']!, 2e-6, 0.01, 'test()');
  near(two['iprobe']!, 3e-6, 0.01, 'iprobe()');
  // Asleep at once (TSMPI_SPIN_US=0, as in a real run): each hop pays the lone wake-up.
  near((await run(2, { TSMPI_SPIN_US: '0' }))['hop']!, frame + 30e-6, 0.02, '2 ranks, sleeping');
  // 4 and 8 ranks on 2 cores poll 10 us, then sleep: each hop pays the wake-up at 2 and 4 ranks per core.
  near((await run(4))['hop']!, frame + 60e-6, 0.02, '4 ranks on 2 cores');
  near((await run(8))['hop']!, frame + 100e-6, 0.02, '8 ranks on 2 cores');
  function near(got: number, want: number, tolerance: number, what: string): void {
    assert.ok(Math.abs(got / want - 1) < tolerance, `${what}: ${got} s, modelled ${want}`);
  }
});

const SIZED_HOPS = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const data = new Uint8Array(Number(process.argv[2]));
const peer = 1 - comm.rank;
async function trips(n) {
  for (let i = 0; i < n; i++) {
    if (comm.rank === 0) { await comm.send(data, peer); await comm.recvInto(data, peer); }
    else { await comm.recvInto(data, peer); await comm.send(data, peer); }
  }
}
let t = wtime();
await trips(100);
const fresh = (wtime() - t) / 200;
await trips(300);
t = wtime();
await trips(100);
if (comm.rank === 0) console.log('fresh ' + fresh + ' warm ' + (wtime() - t) / 200);
`;
test("on a calibrated machine a fresh rank's first frames of a larger payload pay their size's warm-up on top of the 16-byte one", async () => {
  // No wake-ups: a fresh trip that outlasts the spin budget would pay one on top.
  const { wake: _wake, ...machine } = knownRuntime(2);
  const withSizes = write('runtime-sized.json', machine);
  const { sizedWarmup: _sized, ...intra } = machine.classes['intra-process']!;
  const without = write('runtime-unsized.json', { ...machine, classes: { ...machine.classes, 'intra-process': intra } });
  const program = join(dir, 'sized-hops.ts');
  writeFileSync(program, SIZED_HOPS);
  /** How much longer a one-way trip of the first 100 round trips takes than a warm one. */
  const freshExtra = async (platform: string, bytes: number): Promise<number> => {
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', '2', program, String(bytes)]);
    assert.equal(r.code, 0, explain(r));
    const m = /^fresh ([\d.eE+-]+) warm ([\d.eE+-]+)$/m.exec(r.stdout);
    assert.ok(m !== null, r.stdout);
    return Number(m[1]) - Number(m[2]);
  };
  // The 16-byte curve's extras are in both; the size's, once by the sender and once by the receiver.
  assert.ok((await freshExtra(without, 4096)) >= 2 * RUNTIME.warmup[0]!.extra, 'the 16-byte warm-up applies to every frame');
  for (const [bytes, sized] of [[1024, 0], [4096, 15e-6], [65536, 40e-6]] as const) {
    const more = (await freshExtra(withSizes, bytes)) - (await freshExtra(without, bytes));
    assert.ok(Math.abs(more - 2 * sized) < 0.02 * 2 * 15e-6, `${bytes} B: a fresh one-way trip ${more} s more with the sized warm-ups, modelled ${2 * sized}`);
  }
});

const CREDITED_SPIN = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const peer = 1 - comm.rank;
const token = new Uint8Array(8);
for (let i = 0; i < 10; i++) {
  if (comm.rank === 0) {
    await comm.send(token, peer);
    await comm.recvInto(token, peer);
  } else {
    await comm.recvInto(token, peer);
    await comm.send(token, peer);
  }
}
// At least 400 ms of this process's time, measured as the rank's compute: the deadline is read
// after the first virtual read returns (a preempted call would otherwise eat into the 400 ms).
// Real time read around the virtual reads: the spin's virtual span lies inside its real one.
const outer = performance.now();
const t = wtime();
const began = performance.now();
while (performance.now() < began + 400);
const spun = wtime() - t;
console.log('rank ' + comm.rank + ' spun ' + spun + ' in ' + (performance.now() - outer) / 1000);
`;
test("a warm-up step below 0 is owed back: the simulator takes it off the rank's measured compute, never more than it measured", async () => {
  const { wake: _wake, ...machine } = knownRuntime(2);
  const program = join(dir, 'credited-spin.ts');
  writeFileSync(program, CREDITED_SPIN);
  /** What each rank's 400 ms spin reads (virtual), and how long it took (real), when each rank's 10th frame sent and 10th received carry `extra`. */
  const spun = async (extra: number): Promise<{ virtual: number; real: number }[]> => {
    const intra = { ...machine.classes['intra-process']!, warmup: [{ frames: 9, extra: 0 }, { frames: 10, extra }] };
    const platform = write(`credit-${extra}.json`, { ...machine, classes: { ...machine.classes, 'intra-process': intra } });
    const r = await tsmpi(['sim', '--quiet', '--platform', platform, '-n', '2', program]);
    assert.equal(r.code, 0, explain(r));
    return [0, 1].map((rank) => {
      const line = new RegExp(`^rank ${rank} spun ([\\d.eE+-]+) in ([\\d.eE+-]+)$`, 'm').exec(r.stdout);
      return { virtual: Number(line?.[1]), real: Number(line?.[2]) };
    });
  };
  // The spin measures at least its 400 ms; what the rank is owed as its segment begins comes off it
  // (its few microseconds of code between those frames and the spin take a little). Rank 0 is owed
  // both frames' 150 ms by then; rank 1 sends its 10th frame in the segment that spins, and what
  // that frame owes waits for the next segment (a segment's clock never runs back).
  const plain = await spun(0);
  const credited = await spun(-150e-3);
  // The lower bounds follow from the spin's own deadline; the upper ones from the same run's real
  // span of the spin, less the credit (20 ms for the rank's code before the spin in its segment),
  // however slow the machine ran it. A rank the credit missed would read its whole real span.
  const upTo = (s: { real: number }, credit: number): number => s.real - credit + 0.02;
  for (const rank of [0, 1]) assert.ok(plain[rank]!.virtual >= 0.4 && plain[rank]!.virtual <= upTo(plain[rank]!, 0), `rank ${rank} spun ${JSON.stringify(plain[rank])} s without a credit`);
  assert.ok(credited[0]!.virtual >= 0.0995 && credited[0]!.virtual <= upTo(credited[0]!, 0.3), `rank 0 spun ${JSON.stringify(credited[0])} s owed 300 ms`);
  assert.ok(credited[1]!.virtual >= 0.2495 && credited[1]!.virtual <= upTo(credited[1]!, 0.15), `rank 1 spun ${JSON.stringify(credited[1])} s owed 150 ms as it began`);
  // A credit larger than all it computes leaves its clock still: the spin takes no time, and none runs back.
  const swallowed = await spun(-1);
  for (const rank of [0, 1]) assert.equal(swallowed[rank]!.virtual, 0, `rank ${rank} spun ${JSON.stringify(swallowed[rank])} s owed ${2 - rank} s, more than it spun`);
});

const NEW_LINKS = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const token = new Uint8Array(8);
if (comm.rank === 0) {
  const spans = [];
  for (const peer of [1, 1, 2, 2]) {
    const t = wtime();
    await comm.send(token, peer);
    spans.push(wtime() - t);
  }
  console.log('sends ' + spans.join(' '));
} else {
  await comm.recvInto(token, 0);
  await comm.recvInto(token, 0);
}
`;
test("a new link costs its calibrated setup once per peer: the sender's half on its first send to each peer", async () => {
  const platform = write('runtime-links.json', knownRuntime(4));
  const program = join(dir, 'new-links.ts');
  writeFileSync(program, NEW_LINKS);
  const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', '3', program]);
  assert.equal(r.code, 0, explain(r));
  const sends = /^sends (.*)$/m.exec(r.stdout)![1]!.split(' ').map(Number);
  const near = (got: number, want: number, what: string): void => assert.ok(Math.abs(got - want) < 1e-9, `${what}: ${got} s, modelled ${want}`);
  // A fresh rank's send: its call's cost and the warm-up's extra; the first to each peer also half the link's.
  const send = KNOWN.threads.send + RUNTIME.warmup[0]!.extra;
  near(sends[0]!, send + RUNTIME.linkSetup / 2, 'first send to rank 1');
  near(sends[1]!, send, 'second send to rank 1');
  near(sends[2]!, send + RUNTIME.linkSetup / 2, 'first send to rank 2');
  near(sends[3]!, send, 'second send to rank 2');
});

const WAKE_AMONG_BUSY = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const busy = process.argv[2] === 'busy';
// Every rank leaves the (shared) barrier at once: rank 1's work shares the cores with the busy ones.
const work = process.argv[3] === 'quick' ? 2e-4 : 1e-3;
const sentAt = new Float64Array(1);
await comm.barrier();
// Nothing else reaches rank 0 before it is woken: the others wait for its release.
if (comm.rank === 0) {
  await comm.recvInto(sentAt, 1);
  console.log('woken ' + (wtime() - sentAt[0]!));
  for (let r = 1; r < comm.size; r++) await comm.send(sentAt, r, 1);
} else {
  if (comm.rank === 1) {
    await comm.compute(work);
    sentAt[0] = wtime();
    await comm.send(sentAt, 0);
  } else if (busy) await comm.compute(0.1);
  await comm.recvInto(sentAt, 0, 1);
}
`;
test("a woken thread's own part of the wake-up (the lone thread's) waits for a core while the others compute; the rest is a delay; a yielding thread's hand-off is all delay", async () => {
  // Frames that cost no CPU to speak of and no warm-up: what moves is the wake-up alone.
  const bare = knownMachine({ threads: { send: 1e-9, recv: 1e-9, latency: 20e-6, perByte: 0 }, procs: KNOWN.procs }, 2);
  const platform = write('runtime-busy.json', { ...bare, wake: RUNTIME.wake });
  const program = join(dir, 'wake-among-busy.ts');
  writeFileSync(program, WAKE_AMONG_BUSY);
  // Threads that sleep at once (no spin, no yield): the sleeping path.
  const woken = async (mode: string, env: Record<string, string> = { TSMPI_SPIN_US: '0', TSMPI_YIELD_US: '0' }, work = 'long'): Promise<number> => {
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', '8', program, mode, work], { env });
    assert.equal(r.code, 0, explain(r));
    return Number(/^woken ([\d.eE+-]+)$/m.exec(r.stdout)?.[1]);
  };
  const frame = 2e-9 + 20e-6;
  const near = (got: number, want: number, what: string): void => assert.ok(Math.abs(got / want - 1) < 0.02, `${what}: ${got} s, modelled ${want}`);
  // 8 ranks on 2 cores: the wake-up at 4 ranks per core, 100 us, of which the lone thread's 30 us is work.
  near(await woken('idle'), frame + 100e-6, 'the others asleep');
  // Six ranks compute meanwhile: that work shares 2 cores with them (7 busy ranks: 3.5 times as long).
  near(await woken('busy'), frame + 70e-6 + 3.5 * 30e-6, 'the others computing');
  // Threads that yield (the default when they outnumber the cores) and waited within the yield
  // budget (rank 1's 0.2 ms of work, 3.5 times as long among the busy ranks): the hand-off is a
  // delay, however busy the others are.
  near(await woken('busy', {}, 'quick'), frame + 100e-6, 'yielding, the others computing');
  // Past the budget (1 ms of work, 3.5 ms among them) it is a sleeper's wake-up.
  near(await woken('busy', {}), frame + 70e-6 + 3.5 * 30e-6, 'yielding past the budget, the others computing');
});

test('tsmpi calibrate measures this machine in both launch modes and writes JSON and SimGrid XML', async () => {
  const out = join(dir, 'here.json');
  const result = await tsmpi(['calibrate', '--quick', '-o', out], { timeoutMs: 180_000 });
  assert.equal(result.code, 0, explain(result));
  const machine = readCalibration(JSON.parse(readFileSync(out, 'utf8')), out);
  assert.deepEqual(Object.keys(machine.classes).sort(), ['inter-process', 'intra-process']);
  assert.ok(machine.hosts.speed > 0 && machine.hosts.cores >= 1);
  // Beyond the frames: wake-ups at 1 rank per core and in rings of 2 and 4 (up to 64 ranks), poll costs, a warm-up curve.
  assert.deepEqual(machine.wake!.map((p) => p.ranksPerCore), [1, 2, 4].filter((k) => k === 1 || k * machine.hosts.cores <= 64));
  assert.ok(machine.wake!.every((p) => p.seconds >= 0 && p.seconds < 0.1));
  for (const c of Object.values(machine.classes)) {
    assert.equal(c.measured.length, SIZES.length);
    assert.ok(c.polls!.test > 0 && c.polls!.iprobe > 0 && c.polls!.test < 1e-3, JSON.stringify(c.polls));
    // Steps below 0 are credits: the simulator counted more than the real ranks paid there.
    assert.ok(Array.isArray(c.warmup) && c.warmup.every((s) => Number.isFinite(s.extra) && s.frames > 0));
    assert.ok(c.measured.every((m) => m.oneWay > 0));
    // The platform keeps the figures; how the probe's path settled stays in the probe's own file.
    assert.ok(c.measured.every((m) => Object.keys(m).sort().join() === 'burstSend,bytes,oneWay,recv,send,streamPeriod'), JSON.stringify(c.measured[0]));
    // A burst's send is measured in both modes (the simulator holds bursts back where it has it).
    assert.ok(c.burstSend !== undefined && c.burstSend.every((s) => s.intercept >= 0 && s.slope >= 0), JSON.stringify(c.burstSend));
  }
  // Between processes the path's own CPU per frame end, within half the small frame's latency; threads share a process: none.
  // It may be 0 on a busy machine (descheduled ranks use less CPU than the calls' wall times, or
  // the streaming gap takes the whole pipe time and leaves no latency); the fit's rule is unit-tested.
  const tcp = machine.classes['inter-process']!;
  assert.ok(tcp.pathCpu !== undefined && tcp.pathCpu >= 0 && tcp.pathCpu <= evaluate(tcp.latency, 16) / 2 + 1e-12, `pathCpu ${tcp.pathCpu}, latency ${evaluate(tcp.latency, 16)}`);
  assert.equal(machine.classes['intra-process']!.pathCpu, undefined);
  // The exchange was timed between processes: the sender's work after a frame left is a figure there.
  assert.ok(tcp.afterSend !== undefined && Number.isFinite(tcp.afterSend) && tcp.afterSend >= 0, `afterSend ${tcp.afterSend}`);
  assert.equal(machine.classes['intra-process']!.afterSend, undefined);
  // Sleeping receivers between processes, and rings of 2 and 4 processes per core (up to 16 processes).
  assert.ok(tcp.sleeping !== undefined && tcp.sleeping.wake >= 0);
  assert.deepEqual(tcp.sleeping.crowded?.map((p) => p.ranksPerCore), [2, 4].filter((k) => k * machine.hosts.cores <= 16));
  assert.ok(tcp.sleeping.crowded!.every((p) => p.seconds >= 0 && p.seconds < 0.1), JSON.stringify(tcp.sleeping.crowded));
  assert.match(readFileSync(join(dir, 'here.xml'), 'utf8'), /smpi\/bw-factor/);
  // The simulator runs a program on it, in both placements.
  for (const flags of [[], ['--procs']]) {
    const sim = await tsmpi(['sim', '--quiet', '--platform', out, '-n', '4', ...flags, 'examples/ring.ts']);
    assert.equal(sim.code, 0, explain(sim));
    assert.match(sim.stdout, /hops 3, sum\[0\] = 6/);
  }
});

test("the calibration's sweep lets small messages settle first and keeps each size's dropped first batch in its file", async () => {
  const out = join(dir, 'sweep.json');
  const result = await tsmpi(['run', '-n', '2', 'dist/calibrate/probe.js', out, 'quick']);
  assert.equal(result.code, 0, explain(result));
  const sweep = JSON.parse(readFileSync(out, 'utf8')) as { settle: number[]; figures: { bytes: number; oneWay: number; firstBatch: number }[] };
  assert.equal(sweep.settle.length, 8, JSON.stringify(sweep.settle));
  assert.ok(sweep.settle.every((t) => t > 0 && t < 0.01), JSON.stringify(sweep.settle));
  assert.deepEqual(
    sweep.figures.map((f) => f.bytes),
    SIZES,
  );
  assert.ok(sweep.figures.every((f) => f.firstBatch > 0 && f.oneWay > 0), JSON.stringify(sweep.figures));
});

test("the calibration's ring of rank threads times its last batch of laps, after batches that warm it up", async () => {
  const out = join(dir, 'ring.json');
  const result = await tsmpi(['run', '-n', '4', 'dist/calibrate/probe.js', out, 'ring']);
  assert.equal(result.code, 0, explain(result));
  const ring = JSON.parse(readFileSync(out, 'utf8')) as { hop: number; ranks: number; batches: number[] };
  assert.equal(ring.ranks, 4);
  assert.equal(ring.batches.length, 4, JSON.stringify(ring));
  assert.equal(ring.hop, ring.batches.at(-1));
  assert.ok(ring.batches.every((b) => b > 0 && b < 0.01), JSON.stringify(ring.batches));
});

test("the calibration's process ring stops each batch at its time bound, every rank after the same lap", async () => {
  // Half a millisecond per message sent makes a lap of 4 ranks 2 ms of virtual time: the quick
  // form's 1000 and 500 laps would take 2 s and 1 s, past their bounds of 0.8 s and 0.5 s.
  const out = join(dir, 'crowded-bounded.json');
  const result = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--message-overhead', '0.0005', '--procs', '-n', '4', 'dist/calibrate/probe.js', out, 'crowded-quick']);
  assert.equal(result.code, 0, explain(result));
  const ring = JSON.parse(readFileSync(out, 'utf8')) as { hop: number; ranks: number; batches: number[]; laps: number[] };
  assert.equal(ring.ranks, 4);
  assert.equal(ring.hop, ring.batches.at(-1));
  for (const [i, seconds] of [0.8, 0.5].entries()) {
    const lapSeconds = ring.batches[i]! * ring.ranks;
    // The last lap is the first begun at or past the bound: the laps before it took the bound or more, one fewer did not.
    assert.ok(ring.laps[i]! < [1000, 500][i]!, JSON.stringify(ring));
    assert.ok((ring.laps[i]! - 1) * lapSeconds >= seconds * 0.999 && (ring.laps[i]! - 2) * lapSeconds < seconds, JSON.stringify(ring));
  }
});

const PINGPONG = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const data = new Uint8Array(Number(process.argv[2] ?? 8));
await comm.barrier();
const t0 = wtime();
for (let i = 0; i < 10; i++) {
  if (comm.rank === 0) { await comm.send(data, 1); await comm.recvInto(data, 1); }
  else if (comm.rank === 1) { await comm.recvInto(data, 0); await comm.send(data, 0); }
}
if (comm.rank === 0) console.log('one-way ' + (wtime() - t0) / 20);
`;

test('the simulator charges each placement its link class: threads share memory, --procs and --ranks-per-proc 1 go through TCP', async () => {
  const platform = write('classes.json', knownMachine(KNOWN, 4));
  const program = join(dir, 'pingpong.ts');
  writeFileSync(program, PINGPONG);
  const oneWay = async (flags: string[], bytes: number): Promise<number> => {
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', '2', ...flags, program, String(bytes)]);
    assert.equal(r.code, 0, explain(r));
    return Number(/one-way ([\d.eE+-]+)/.exec(r.stdout)?.[1]);
  };
  for (const bytes of [8, 4096]) {
    // An eager message is one frame: send + pipe + receive, exactly the modelled figures.
    const frame = (k: (typeof KNOWN)['threads']): number => k.send + k.recv + k.latency + k.perByte * (bytes + 0);
    const threads = await oneWay([], bytes);
    const procs = await oneWay(['--procs'], bytes);
    assert.ok(Math.abs(threads / frame(KNOWN.threads) - 1) < 0.02, `threads ${bytes} B: ${threads} vs ${frame(KNOWN.threads)}`);
    assert.ok(Math.abs(procs / frame(KNOWN.procs) - 1) < 0.02, `--procs ${bytes} B: ${procs} vs ${frame(KNOWN.procs)}`);
    assert.equal(await oneWay(['--ranks-per-proc', '1'], bytes), procs);
  }
});

const COMPUTE = `
import { init, wtime } from 'tsmpi';
const comm = await init();
await comm.barrier();
const t0 = wtime();
await comm.compute(0.1);
await comm.barrier();
if (comm.rank === 0) console.log('span ' + (wtime() - t0));
`;

test("ranks that compute at once share their host's cores: 4 ranks on 2 cores take twice as long as on 4", async () => {
  const program = join(dir, 'compute.ts');
  writeFileSync(program, COMPUTE);
  const span = async (cores: number, np: number): Promise<number> => {
    const platform = write(`cores-${cores}.json`, knownMachine({ threads: { send: 1e-7, recv: 1e-7, latency: 1e-7, perByte: 1e-11 }, procs: KNOWN.procs }, cores));
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', String(np), program]);
    assert.equal(r.code, 0, explain(r));
    return Number(/span ([\d.eE+-]+)/.exec(r.stdout)?.[1]);
  };
  const four = await span(4, 4);
  const two = await span(2, 4);
  assert.ok(four > 0.1 && four < 0.101, `4 ranks on 4 cores: ${four}`);
  assert.ok(two > 0.2 && two < 0.201, `4 ranks on 2 cores: ${two}`);
  assert.ok((await span(2, 2)) < 0.101);
});

const LEAVES_END = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const t0 = wtime();
await comm.compute(0.1);
console.log('rank ' + comm.rank + ' computed in ' + (wtime() - t0));
if (comm.rank % 2 === 1) await comm.send(new Float64Array(1), comm.rank - 1);
else await comm.recv(comm.rank + 1);
`;

test('a rank whose program ended later still shared the cores before: leaves that end after their send slow the others as long as they compute', async () => {
  const program = join(dir, 'leaves-end.ts');
  writeFileSync(program, LEAVES_END);
  const platform = write('cores-2-leaves.json', knownMachine({ threads: { send: 1e-7, recv: 1e-7, latency: 1e-7, perByte: 1e-11 }, procs: KNOWN.procs }, 2));
  const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '-n', '4', program]);
  assert.equal(r.code, 0, explain(r));
  const computed = [...r.stdout.matchAll(/rank (\d) computed in ([\d.eE+-]+)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
  assert.equal(computed.length, 4, r.stdout);
  for (const [rank, seconds] of computed) assert.ok(seconds > 0.2 - 1e-9 && seconds < 0.201, `rank ${rank} of 4 on 2 cores computed 0.1 s of work in ${seconds} s`);
});

const ALL_AT_ONCE = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const token = new Uint8Array(8);
await comm.barrier();
const t0 = wtime();
for (let round = 0; round < 20; round++) {
  const sends = [];
  for (let r = 0; r < comm.size; r++) if (r !== comm.rank) sends.push(comm.isend(token, r, round));
  for (let r = 0; r < comm.size; r++) if (r !== comm.rank) await comm.recvInto(new Uint8Array(8), r, round);
  for (const s of sends) await s.wait();
}
await comm.barrier();
if (comm.rank === 0) console.log('span ' + (wtime() - t0));
`;

test("between processes the path's own CPU is the ranks': a message alone costs the same, messages sent at once by more processes than cores wait for the cores", async () => {
  const ring = join(dir, 'path-cpu-ring.ts');
  writeFileSync(ring, RING_HOPS);
  const burst = join(dir, 'path-cpu-burst.ts');
  writeFileSync(burst, ALL_AT_ONCE);
  const withPath = (cores: number, pathCpu: number): string => {
    const machine = knownMachine(KNOWN, cores);
    return write(`path-cpu-${cores}-${pathCpu}.json`, { ...machine, classes: { ...machine.classes, 'inter-process': { ...machine.classes['inter-process']!, pathCpu } } });
  };
  const sim = async (platform: string, program: string, np: number): Promise<number> => {
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '--procs', '-n', String(np), program]);
    assert.equal(r.code, 0, explain(r));
    return Number(/^(?:hop|span) ([\d.eE+-]+)$/m.exec(r.stdout)?.[1]);
  };
  const half = KNOWN.procs.latency / 2;
  // Two processes on two cores passing a token: the path's CPU moved from the latency to the two ends.
  const hop = await sim(withPath(2, 0), ring, 2);
  const hopWith = await sim(withPath(2, half), ring, 2);
  assert.ok(Math.abs(hopWith / hop - 1) < 0.01, `a hop costs the same: ${hopWith} s with the path's CPU at the ends, ${hop} s in the latency`);
  // Four processes on one core, each sending to all at once: the path's work queues for the core.
  const free = await sim(withPath(1, 0), burst, 4);
  const busy = await sim(withPath(1, half), burst, 4);
  assert.ok(busy > free * 1.3, `all at once: ${busy} s with the path's CPU on the core, ${free} s without`);
});

const EXCHANGE_CALLS = `
import { init, wtime } from 'tsmpi';
const comm = await init();
const mine = new Uint8Array(8), theirs = new Uint8Array(8);
const peer = 1 - comm.rank;
for (let i = 0; i < 10; i++) await comm.sendrecvInto(mine, peer, theirs, peer, 3, 3);
await comm.barrier();
const t0 = wtime();
for (let i = 0; i < 50; i++) await comm.sendrecvInto(mine, peer, theirs, peer, 3, 3);
if (comm.rank === 0) console.log('call ' + (wtime() - t0) / 50);
`;

test("between processes the sender's work after a frame has left: a token passed along costs the same, an exchange pays it each call before it handles what came", async () => {
  const ring = join(dir, 'after-send-ring.ts');
  writeFileSync(ring, RING_HOPS);
  const exchange = join(dir, 'after-send-exchange.ts');
  writeFileSync(exchange, EXCHANGE_CALLS);
  const after = 100e-6;
  const withAfter = (afterSend: number): string => {
    const machine = knownMachine(KNOWN, 2);
    return write(`after-send-${afterSend}.json`, { ...machine, classes: { ...machine.classes, 'inter-process': { ...machine.classes['inter-process']!, afterSend } } });
  };
  const sim = async (platform: string, program: string, label: string): Promise<number> => {
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '--procs', '-n', '2', program]);
    assert.equal(r.code, 0, explain(r));
    return Number(new RegExp(`^${label} ([\\d.eE+-]+)$`, 'm').exec(r.stdout)?.[1]);
  };
  const hop = await sim(withAfter(0), ring, 'hop');
  const hopWith = await sim(withAfter(after), ring, 'hop');
  assert.ok(Math.abs(hopWith / hop - 1) < 0.01, `a hop costs the same: ${hopWith} s with the work after the send, ${hop} s without`);
  const call = await sim(withAfter(0), exchange, 'call');
  const callWith = await sim(withAfter(after), exchange, 'call');
  const p = KNOWN.procs;
  // Without it the two frames cross at once: an exchange lasts one one-way time.
  assert.ok(Math.abs(call / (p.send + p.latency + p.recv) - 1) < 0.05, `an exchange without: ${call} s a call`);
  assert.ok(Math.abs(callWith / (p.send + after + p.recv) - 1) < 0.05, `an exchange with: ${callWith} s a call`);
});

const BURST = `
import { init, waitAll, wtime, type Request } from 'tsmpi';
const comm = await init();
const N = 8;
if (comm.rank === 0) {
  await comm.send(new Uint8Array(1), 1, 99);
  const requests: Request<void>[] = [];
  const t0 = wtime();
  for (let i = 0; i < N; i++) requests.push(comm.isend(new Uint8Array([i, 100 + i]), 1, i));
  const calls = wtime() - t0;
  await waitAll(requests);
  console.log('calls ' + calls);
} else {
  await comm.recv(0, 99);
  const got: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < N; i++) {
    const m = await comm.recv<Uint8Array>(0, i);
    got.push(m[0]!, m[1]!);
    at.push(wtime());
  }
  console.log('got ' + got.join(','));
  console.log('at ' + at.join(' '));
}
`;
test("between processes a burst of isends is held back as the runtime holds it: the first leaves at once, the rest at the rank's next poll, together; each call costs the burst's figure; nothing lost, in order", async () => {
  const program = join(dir, 'burst.ts');
  writeFileSync(program, BURST);
  const run = async (burstSend: number | undefined): Promise<{ calls: number; got: string; at: number[] }> => {
    const platform = write(`burst-${burstSend ?? 'none'}.json`, knownMachine({ ...KNOWN, procs: { ...KNOWN.procs, ...(burstSend !== undefined ? { burstSend } : {}) } }, 2));
    const r = await tsmpi(['sim', '--quiet', '--compute', 'declared', '--platform', platform, '--procs', '-n', '2', program]);
    assert.equal(r.code, 0, explain(r));
    return { calls: Number(/^calls (.*)$/m.exec(r.stdout)![1]), got: /^got (.*)$/m.exec(r.stdout)![1]!, at: /^at (.*)$/m.exec(r.stdout)![1]!.split(' ').map(Number) };
  };
  const p = KNOWN.procs;
  const near = (got: number, want: number, what: string): void => assert.ok(Math.abs(got - want) < 1e-9, `${what}: ${got} s, modelled ${want}`);
  const expected = Array.from({ length: 8 }, (_, i) => `${i},${100 + i}`).join(',');
  const held = await run(KNOWN_BURST_SEND);
  const plain = await run(undefined);
  for (const r of [held, plain]) assert.equal(r.got, expected);
  // The calls: the first a send's, the others a burst's (held) or a send's each (no figure: nothing held).
  near(held.calls, p.send + 7 * KNOWN_BURST_SEND, 'eight isends, held');
  near(plain.calls, 8 * p.send, 'eight isends, none held');
  // Held, frames 2 to 8 arrive together, as one transfer: the receiver has all seven at once.
  for (let i = 2; i < 8; i++) assert.equal(held.at[i], held.at[1], `held: frame ${i + 1} taken with frame 2`);
  // The first left at once; the others at the poll after the calls, their write costing what a
  // send costs beyond a burst's; then the receiver takes the seven. (Within 0.5 us: the frames'
  // own bytes cross the pipe too.)
  const second = held.at[1]! - held.at[0]!;
  const expectedSecond = 6 * KNOWN_BURST_SEND + p.send + 6 * p.recv;
  assert.ok(Math.abs(second - expectedSecond) < 0.5e-6, `held: frames 2-8 taken ${second} s after frame 1, modelled ${expectedSecond} s`);
  // None held, each frame waits for the one before (a send's time apart), and the last comes later.
  for (let i = 2; i < 8; i++) near(plain.at[i]! - plain.at[i - 1]!, p.send, `none held: frame ${i + 1} after frame ${i}`);
  assert.ok(held.at[7]! < plain.at[7]!, `the burst's last frame: ${held.at[7]} s held, ${plain.at[7]} s not`);
});

const RANK_V8 = `
import { init } from 'tsmpi';
const seen = globalThis as unknown as { inits?: Set<unknown> };
(seen.inits ??= new Set()).add(init);
const comm = await init();
await comm.barrier();
if (comm.rank === comm.size - 1) console.log(\`runtimes \${seen.inits.size} serial \${process.execArgv.includes('--single-threaded')}\`);
`;

test("a prediction gives each rank its own copy of the runtime, and runs V8 single-threaded when the ranks fill the host's cores; the settings turn either off", async () => {
  const program = join(dir, 'rank-v8.ts');
  writeFileSync(program, RANK_V8);
  const platform = write('rank-v8.json', knownMachine(KNOWN, 2));
  const run = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
    const r = await tsmpi(['sim', '--quiet', ...args, program], { env });
    assert.equal(r.code, 0, explain(r));
    return /^runtimes \d+ serial \w+$/m.exec(r.stdout)?.[0] ?? r.stdout;
  };
  // Two ranks on two cores: each its own runtime, and V8 without background threads.
  assert.equal(await run(['--platform', platform, '-n', '2']), 'runtimes 2 serial true');
  assert.equal(await run(['--platform', platform, '--procs', '-n', '3']), 'runtimes 3 serial true');
  // One rank leaves a core to V8's threads, as in a real run.
  assert.equal(await run(['--platform', platform, '-n', '1']), 'runtimes 1 serial false');
  assert.equal(await run(['--platform', platform, '-n', '2'], { TSMPI_SIM_RANK_RUNTIMES: 'off' }), 'runtimes 1 serial true');
  assert.equal(await run(['--platform', platform, '-n', '2'], { TSMPI_SIM_SERIAL_V8: 'off' }), 'runtimes 2 serial false');
  // Not a prediction: a made-up platform, or compute declared by the program.
  assert.equal(await run(['-n', '2']), 'runtimes 1 serial false');
  assert.equal(await run(['--platform', platform, '--compute', 'declared', '-n', '2']), 'runtimes 1 serial false');
  assert.equal(await run(['-n', '2'], { TSMPI_SIM_RANK_RUNTIMES: 'on', TSMPI_SIM_SERIAL_V8: 'on' }), 'runtimes 2 serial true');
  const bad = await tsmpi(['sim', '--quiet', '--platform', platform, '-n', '2', program], { env: { TSMPI_SIM_SERIAL_V8: 'yes' } });
  assert.equal(bad.code, 2, explain(bad));
  assert.match(bad.stderr, /TSMPI_SIM_SERIAL_V8/);
});

test('a placement that needs a link class the calibration lacks stops before running, saying what to calibrate', async () => {
  const machine = knownMachine(KNOWN, 2);
  const threadsOnly = write('threads-only.json', { ...machine, classes: { 'intra-process': machine.classes['intra-process'] } });
  const r = await tsmpi(['sim', '--quiet', '--platform', threadsOnly, '--procs', '-n', '2', 'examples/ring.ts']);
  assert.equal(r.code, 2, explain(r));
  assert.match(r.stderr, /has no inter-process figures, and this placement needs them/);
  assert.match(r.stderr, /tsmpi calibrate --modes threads,procs/);
  const ok = await tsmpi(['sim', '--quiet', '--platform', threadsOnly, '-n', '2', 'examples/ring.ts']);
  assert.equal(ok.code, 0, explain(ok));
  const broken = write('broken.json', { ...machine, classes: { 'intra-process': { ...machine.classes['intra-process'], send: [] } } });
  const bad = await tsmpi(['sim', '--quiet', '--platform', broken, '-n', '2', 'examples/ring.ts']);
  assert.equal(bad.code, 2, explain(bad));
  assert.match(bad.stderr, /classes\.intra-process\.send must be a non-empty list of segments/);
});

// SimGrid's own check of the twin (skipped without SimGrid, unless TSMPI_REQUIRE_SIMGRID=1).
const simgrid = findSimgrid();
const skipSimgrid = simgrid === undefined && process.env.TSMPI_REQUIRE_SIMGRID !== '1' ? 'SimGrid is not installed (apt-get install libsimgrid-dev)' : false;

test("SimGrid on the calibration's XML reproduces the calibrated ping-pong at every size: inside a host (shared memory) and between two hosts (TCP)", { skip: skipSimgrid }, () => {
  const machine = knownMachine(KNOWN, 2);
  const binary = join(dir, 'p2p-smpi');
  const compiled = spawnSync('smpicc', ['-O2', '-o', binary, fileURLToPath(new URL('../../bench/peers/p2p.c', import.meta.url))], { encoding: 'utf8' });
  assert.equal(compiled.status, 0, compiled.stderr);
  const sizes = [0, 16, 1024, 4096, 65536, 131072, 1048576, 16777216];
  for (const [hosts, linkClass] of [[1, 'intra-process'], [2, 'inter-process']] as const) {
    const xml = join(dir, `twin-${hosts}.xml`);
    writeFileSync(xml, simgridXml({ ...machine, hosts: { ...machine.hosts, count: hosts } }));
    const hostfile = join(dir, `twin-hosts-${hosts}`);
    writeFileSync(hostfile, hosts === 1 ? 'node-0\nnode-0\n' : 'node-0\nnode-1\n');
    // The C program's own computing is not the machine's: SimGrid is told not to time it.
    const r = spawnSync(simgrid!.smpirun, ['-np', '2', '-platform', xml, '-hostfile', hostfile, '--cfg=smpi/simulate-computation:no', binary, 'pingpong', ...sizes.map(String)], { encoding: 'utf8', cwd: dir, timeout: 120_000 });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`.slice(-3000));
    const simulated = new Map(r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => { const j = JSON.parse(l) as { bytes: number; oneWayUs: number }; return [j.bytes, j.oneWayUs * 1e-6]; }));
    for (const f of machine.classes[linkClass]!.measured.filter((m) => sizes.includes(m.bytes))) {
      const got = simulated.get(f.bytes);
      assert.ok(got !== undefined && Math.abs(got / f.oneWay - 1) < 0.05, `${hosts} host(s), ${f.bytes} B: SimGrid ${got} s, calibrated ${f.oneWay} s`);
    }
  }
});

test("a prediction takes the calibrated machine's eager limits: a 512 KiB send between processes goes eagerly where the calibration recorded 1 MiB, by rendezvous where it recorded 64 KiB or there is none", async () => {
  const m = knownMachine(KNOWN, 2);
  const inter = m.classes['inter-process']!;
  const eager1m = write('eager-1m.json', { ...m, classes: { ...m.classes, 'inter-process': { ...inter, eagerLimit: 1048576 } } });
  const eager64k = write('eager-64k.json', m);
  const sent = async (platform: string[]): Promise<string> => {
    const r = await tsmpi(['sim', '--quiet', '--procs', '-n', '2', ...platform, fixture('tcp-eager-default.ts'), String(512 * 1024)]);
    assert.equal(r.code, 0, explain(r));
    const lines = r.stdout.split('\n').filter((l) => l === 'eager' || l === 'rendezvous' || l === 'ok');
    assert.equal(lines[1], 'ok', explain(r));
    return lines[0]!;
  };
  assert.equal(await sent(['--platform', eager1m]), 'eager');
  assert.equal(await sent(['--platform', eager64k]), 'rendezvous');
  assert.equal(await sent([]), 'rendezvous');
});
