// The synthetic workloads: deterministic for a seed, every send meets exactly one receive (the
// checker runs each program without time, rendezvous sends, and must see every rank finish),
// collectives in the same order on every rank, writable as a SimGrid trace, and the shape each
// generator promises (stencil neighbour counts, sparse degrees, PIC imbalance, MD cadence, sweep
// wavefront).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
import { COLLECTIVE_OPS, type Action } from '../../src/sim/replay/actions.ts';
import { formatTiTrace, parseTiTrace } from '../../src/sim/replay/ti-trace.ts';
import { allToAll } from '../../src/sim/workloads/all-to-all.ts';
import { gridDims } from '../../src/sim/workloads/builder.ts';
import { checkMatched } from '../../src/sim/workloads/check.ts';
import { molecularDynamics } from '../../src/sim/workloads/molecular-dynamics.ts';
import { particleInCell } from '../../src/sim/workloads/particle-in-cell.ts';
import { randomSparse } from '../../src/sim/workloads/random-sparse.ts';
import { listWorkloads, parseParamPairs, workloadByName } from '../../src/sim/workloads/registry.ts';
import { stencil2d, stencil3d } from '../../src/sim/workloads/stencil.ts';
import { transportSweep } from '../../src/sim/workloads/transport-sweep.ts';

type Program = Map<number, Action[]>;

const cases: { name: string; seeded: boolean; make: (seed: number) => Program }[] = [
  { name: 'stencil2d 4x3', seeded: false, make: () => stencil2d({ px: 4, py: 3, steps: 3 }) },
  { name: 'stencil2d 2x2 periodic', seeded: false, make: () => stencil2d({ px: 2, py: 2, steps: 2, periodic: true }) },
  { name: 'stencil3d 3x2x2', seeded: false, make: () => stencil3d({ px: 3, py: 2, pz: 2, steps: 2 }) },
  { name: 'stencil3d 3x3x3 periodic', seeded: false, make: () => stencil3d({ px: 3, py: 3, pz: 3, steps: 2, periodic: true }) },
  { name: 'all-to-all collective', seeded: false, make: () => allToAll({ ranks: 5, steps: 2 }) },
  { name: 'all-to-all p2p', seeded: false, make: () => allToAll({ ranks: 5, steps: 2, p2p: true }) },
  { name: 'random-sparse', seeded: true, make: (seed) => randomSparse({ ranks: 9, steps: 4, degree: 3, seed }) },
  { name: 'random-sparse any source', seeded: true, make: (seed) => randomSparse({ ranks: 9, steps: 4, degree: 3, seed, anySource: true }) },
  { name: 'particle-in-cell', seeded: true, make: (seed) => particleInCell({ ranks: 12, steps: 5, seed }) },
  { name: 'molecular-dynamics', seeded: true, make: (seed) => molecularDynamics({ ranks: 8, steps: 6, energyEvery: 2, rebalanceEvery: 3, seed }) },
  { name: 'transport-sweep', seeded: false, make: () => transportSweep({ px: 3, py: 4, steps: 2, angles: 2, zBlocks: 2 }) },
  { name: 'transport-sweep 2-D, one row', seeded: false, make: () => transportSweep({ px: 5, py: 1, steps: 1, octants: 4 }) },
];

const collectiveOps = (list: readonly Action[]): string[] => list.filter((a) => COLLECTIVE_OPS.has(a.op)).map((a) => a.op);

for (const c of cases) {
  test(`workload ${c.name}: deterministic, matched, collectives aligned, writable as a TI trace`, () => {
    const program = c.make(7);
    assert.deepStrictEqual(c.make(7), program, 'same seed, same program');
    if (c.seeded) assert.notDeepStrictEqual(c.make(8), program, 'another seed, another program');

    for (const [rank, list] of program) {
      assert.deepEqual(list[0], { op: 'init' }, `rank ${rank} opens with init`);
      assert.deepEqual(list[list.length - 1], { op: 'finalize' }, `rank ${rank} closes with finalize`);
    }
    const report = checkMatched(program);
    assert.deepEqual(report.problems, []);
    const sends = [...program.values()].flat().filter((a) => a.op === 'send' || a.op === 'isend').length;
    assert.equal(report.matched, sends, 'every send matched once');
    const first = collectiveOps(program.get(0)!);
    for (const list of program.values()) assert.deepEqual(collectiveOps(list), first);
    assert.equal(report.collectives, first.length);

    assert.deepStrictEqual(parseTiTrace(formatTiTrace(program), c.name, { worldSize: program.size }), program);
  });
}

/** Messages sent by each rank in its first superstep (up to the first waitall). */
function firstStepSends(program: Program): number[] {
  return [...program.values()].map((list) => list.slice(0, list.findIndex((a) => a.op === 'waitall')).filter((a) => a.op === 'isend').length);
}

test('stencil2d: 2 neighbours at corners, 3 on edges, 4 inside; 4 everywhere when periodic', () => {
  // 4 x 3 grid, rank = x + 4y:   y=2:  8  9 10 11
  //                              y=1:  4  5  6  7
  //                              y=0:  0  1  2  3
  assert.deepEqual(firstStepSends(stencil2d({ px: 4, py: 3, steps: 1 })), [2, 3, 3, 2, 3, 4, 4, 3, 2, 3, 3, 2]);
  assert.deepEqual(firstStepSends(stencil2d({ px: 4, py: 3, steps: 1, periodic: true })), new Array(12).fill(4));
  // extent 2, periodic: both x neighbours are the same rank, two messages told apart by tag
  const p = stencil2d({ px: 2, py: 3, steps: 1, periodic: true });
  assert.deepEqual(firstStepSends(p), new Array(6).fill(4));
  const toOne = p.get(0)!.filter((a) => a.op === 'isend' && a.dst === 1);
  assert.deepEqual(toOne.map((a) => (a.op === 'isend' ? a.tag : -1)), [0, 1]);
  // extent 1: no neighbour along that axis, even when periodic
  assert.deepEqual(firstStepSends(stencil2d({ px: 1, py: 3, steps: 1, periodic: true })), [2, 2, 2]);
  // then compute, once per step
  const list = stencil2d({ px: 2, py: 2, steps: 3, flops: 5 }).get(0)!;
  assert.equal(list.filter((a) => a.op === 'compute').length, 3);
  assert.deepEqual(list.slice(1, 6).map((a) => a.op), ['irecv', 'irecv', 'isend', 'isend', 'waitall']);
});

test('stencil3d: 3 at corners, 4 on edges, 5 on faces, 6 inside; 6 everywhere when periodic', () => {
  const counts = firstStepSends(stencil3d({ px: 3, py: 3, pz: 3, steps: 1 }));
  const histogram = new Map<number, number>();
  for (const k of counts) histogram.set(k, (histogram.get(k) ?? 0) + 1);
  // a 3x3x3 cube: 8 corners, 12 edges, 6 faces, 1 centre
  assert.deepEqual([...histogram].sort((a, b) => a[0] - b[0]), [[3, 8], [4, 12], [5, 6], [6, 1]]);
  assert.equal(counts[13], 6, 'rank 13 = (1,1,1) is the centre');
  assert.equal(counts[0], 3);
  assert.deepEqual(firstStepSends(stencil3d({ px: 3, py: 3, pz: 3, steps: 1, periodic: true })), new Array(27).fill(6));
});

test('random-sparse: each rank sends to `degree` distinct other ranks per step', () => {
  const p = randomSparse({ ranks: 10, steps: 5, degree: 4, minBytes: 100, maxBytes: 200, seed: 3 });
  for (const [rank, list] of p) {
    let step: number[] = [];
    for (const a of list) {
      if (a.op === 'isend') {
        step.push(a.dst);
        assert.ok(a.bytes >= 100 && a.bytes <= 200 && Number.isInteger(a.bytes));
      }
      if (a.op === 'waitall') {
        assert.equal(step.length, 4);
        assert.equal(new Set(step).size, 4);
        assert.ok(!step.includes(rank));
        step = [];
      }
    }
  }
  const any = randomSparse({ ranks: 10, steps: 2, degree: 4, maxBytes: 500, seed: 3, anySource: true });
  assert.ok([...any.values()].flat().every((a) => a.op !== 'irecv' || (a.src === -1 && a.bytes === 500)));
  assert.throws(() => randomSparse({ ranks: 4, degree: 4 }), /degree must be an integer in 0\.\.3/);
});

test('particle-in-cell: sizes and work vary by rank and step (load imbalance), one allreduce per step', () => {
  const p = particleInCell({ ranks: 16, steps: 8, seed: 5 });
  const particleBytes = [...p.values()].flat().flatMap((a) => (a.op === 'isend' && a.tag >= 8 ? [a.bytes] : []));
  assert.ok(new Set(particleBytes).size > particleBytes.length / 2, 'particle messages differ in size');
  const work = (rank: number): number[] => p.get(rank)!.flatMap((a) => (a.op === 'compute' && a.flops !== 1e7 ? [a.flops] : []));
  assert.equal(work(0).length, 8);
  assert.notDeepEqual(work(0), work(5));
  // the hot spot crosses x: the busiest rank of the first step sits at a lower x than that of the last
  const busiest = (step: number): number => [...p.keys()].reduce((best, r) => (work(r)[step]! > work(best)[step]! ? r : best), 0);
  assert.ok(busiest(0) % 4 < busiest(7) % 4, `hot spot moves along x: ${busiest(0)} then ${busiest(7)}`);
  assert.deepEqual(collectiveOps(p.get(3)!), new Array(8).fill('allreduce'));
});

test('molecular-dynamics: forward and reverse halo, energy every k steps, rebalancing alltoallv', () => {
  assert.deepEqual(gridDims(8, 3), [2, 2, 2]);
  const p = molecularDynamics({ ranks: 8, steps: 12, energyEvery: 4, rebalanceEvery: 6, seed: 2 });
  assert.deepEqual(collectiveOps(p.get(0)!), ['allreduce', 'alltoallv', 'allreduce', 'allreduce', 'alltoallv']);
  const sends = p.get(0)!.filter((a) => a.op === 'isend');
  assert.equal(sends.length, 12 * 12, '6 forward + 6 reverse messages per step (periodic 2x2x2)');
  const a2a = p.get(0)!.find((a) => a.op === 'alltoallv');
  assert.ok(a2a !== undefined && a2a.op === 'alltoallv' && a2a.sendBytes[0] === 0 && a2a.sendBytes.filter((b) => b > 0).length <= 4);
  assert.throws(() => molecularDynamics({ ranks: 8, px: 2 }), /parameter py must be given/);
});

test('transport-sweep: a wavefront from the corner, per octant', () => {
  // 3 x 2 grid, octant 0 sweeps +x +y: rank 0 = (0,0) receives nothing, rank 5 = (2,1) sends nothing
  // (but closes the octant with a waitall like every rank: octants are supersteps)
  const p = transportSweep({ px: 3, py: 2, steps: 1, angles: 1, zBlocks: 1, octants: 1, flops: 1 });
  const ops = (r: number): string[] => p.get(r)!.map((a) => (a.op === 'recv' ? `recv ${a.src}` : a.op === 'isend' ? `isend ${a.dst}` : a.op));
  assert.deepEqual(ops(0), ['init', 'compute', 'isend 1', 'isend 3', 'waitall', 'allreduce', 'finalize']);
  assert.deepEqual(ops(4), ['init', 'recv 3', 'recv 1', 'compute', 'isend 5', 'waitall', 'allreduce', 'finalize']);
  assert.deepEqual(ops(5), ['init', 'recv 4', 'recv 2', 'compute', 'waitall', 'allreduce', 'finalize']);
  // 2 x 2 grid, 8 octants of 2 angle groups x 3 z blocks = 6 stages. Rank 0 = (0,0) has an
  // upstream x neighbour (rank 1) in octants sweeping -x, an upstream y one (rank 2) in those
  // sweeping -y: octants 0, 1, 2, 3 give 0, 1, 1, 2 receives per stage, and 4..7 the same again,
  // so 8 per stage in all, 48 receives.
  const full = transportSweep({ px: 2, py: 2, steps: 1, angles: 2, zBlocks: 3 });
  assert.equal(full.get(0)!.filter((a) => a.op === 'recv').length, 8 * 6);
});

test('workloads by name: every generator listed with a description, k=v strings converted', () => {
  const names = listWorkloads().map((w) => w.name);
  assert.deepEqual(names, ['stencil2d', 'stencil3d', 'all-to-all', 'random-sparse', 'particle-in-cell', 'molecular-dynamics', 'transport-sweep']);
  for (const w of listWorkloads()) assert.ok(w.description.length > 20 && w.params.length > 0);
  const byStrings = workloadByName('pic', parseParamPairs(['ranks=6', 'steps=3', 'seed=4']));
  assert.deepStrictEqual(byStrings, particleInCell({ ranks: 6, steps: 3, seed: 4 }));
  assert.deepStrictEqual(workloadByName('stencil2d', { px: 3, py: '2', periodic: 'true', steps: 1 }), stencil2d({ px: 3, py: 2, periodic: true, steps: 1 }));
  assert.ok(checkMatched(workloadByName('sweep', { px: '2', py: '3' })).ok);
  assert.ok(checkMatched(workloadByName('md', { ranks: 27, steps: 3 })).ok);

  const configError = (fn: () => unknown, message: RegExp): void => {
    assert.throws(fn, (e: unknown) => e instanceof TsmpiError && e.code === ErrorCode.Config && message.test(e.message) && e.hint.length > 0);
  };
  configError(() => workloadByName('lattice-boltzmann'), /unknown workload "lattice-boltzmann"/);
  configError(() => workloadByName('stencil2d', { px: 2, py: 2, size: 3 }), /no parameter "size"/);
  configError(() => workloadByName('stencil2d', { px: '2.5', py: 2 }), /parameter px must be an integer, got "2.5"/);
  configError(() => workloadByName('stencil2d', { px: 2, py: 2, periodic: 'maybe' }), /periodic must be true or false/);
  configError(() => workloadByName('stencil2d', { px: 2 }), /parameter py must be given/);
  configError(() => stencil2d({ px: 0, py: 2 }), /parameter px must be an integer >= 1, got 0/);
  configError(() => particleInCell({ ranks: 6, px: 4 }), /px 4 x py 1 is not ranks 6/);
  configError(() => parseParamPairs(['steps']), /not key=value/);
});
