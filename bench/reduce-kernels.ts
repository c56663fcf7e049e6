/**
 * The reductions' elementwise loops (src/comm/op-kernels.ts): a built-in op's combine, which runs
 * long arrays of the ops and kinds that have one through WebAssembly lanes
 * (src/comm/simd-kernels.ts), against the compiled scalar loop alone, in this process,
 * and against the lanes alone at every length, interleaved: ns per element of `target = a op b`.
 *   npm run bench -- reduce-kernels
 */
import { compare } from './lib/compare.ts';
import type { Record } from './lib/jobs.ts';
import { param } from './lib/report.ts';
import type { TypedArray } from '../src/comm/codec.ts';
import { combineLoops, type CombineLoop } from '../src/comm/op-kernels.ts';
import { Op, combinerTo } from '../src/comm/ops.ts';
import { simdCombine } from '../src/comm/simd-kernels.ts';

const reps = param('REPS', 5, 'interleaved repetitions');
type Kind = new (length: number) => TypedArray;
const cases: { label: string; kind: Kind; length: number; op: 'sum' | 'prod' | 'bxor' }[] = [
  { label: 'sum Float64Array(256)', kind: Float64Array, length: 256, op: 'sum' },
  { label: 'sum Float64Array(512)', kind: Float64Array, length: 512, op: 'sum' },
  { label: 'sum Float64Array(4096)', kind: Float64Array, length: 4096, op: 'sum' },
  { label: 'sum Float64Array(65536)', kind: Float64Array, length: 65536, op: 'sum' },
  { label: 'prod Float64Array(65536)', kind: Float64Array, length: 65536, op: 'prod' },
  { label: 'sum Float32Array(65536)', kind: Float32Array, length: 65536, op: 'sum' },
  { label: 'sum Int32Array(65536)', kind: Int32Array, length: 65536, op: 'sum' },
  { label: 'bxor Uint8Array(65536)', kind: Uint8Array, length: 65536, op: 'bxor' },
  { label: 'sum BigInt64Array(65536)', kind: BigInt64Array as unknown as Kind, length: 65536, op: 'sum' },
];

const scalar = { sum: (a: number, b: number) => a + b, prod: (a: number, b: number) => a * b, bxor: (a: number, b: number) => a ^ b };
const bigScalar = { sum: (a: bigint, b: bigint) => a + b, prod: (a: bigint, b: bigint) => a * b, bxor: (a: bigint, b: bigint) => a ^ b };
// The scalar loops as the ops compile them, without lanes: one per op, as the ops keep theirs.
const scalarLoops: { [key: string]: CombineLoop } = {};
for (const op of ['sum', 'prod', 'bxor'] as const) {
  scalarLoops[op] = combineLoops(`${op} (bench, scalar)`, scalar[op]);
  scalarLoops[`${op} bigint`] = combineLoops(`${op} bigint (bench, scalar)`, bigScalar[op]);
}

const operands = cases.map((c) => {
  const big = c.kind === (BigInt64Array as unknown);
  const fill = (array: TypedArray, seed: number): TypedArray => {
    for (let i = 0; i < c.length; i++) (array as unknown as (number | bigint)[])[i] = big ? BigInt((i * seed) % 1000) : ((i * seed) % 1000) / 7;
    return array;
  };
  return { a: fill(new c.kind(c.length), 3), b: fill(new c.kind(c.length), 5), target: new c.kind(c.length), big };
});

/** ns per element of each case with `loopOf(case)`, over about 20 ms each. */
function measure(loopOf: (index: number) => CombineLoop): Record[] {
  return cases.map((c, index) => {
    const { a, b, target } = operands[index]!;
    const loop = loopOf(index);
    const rounds = Math.max(20, Math.floor((4 << 20) / c.length));
    for (let i = 0; i < rounds / 4; i++) loop(target, a, b);
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) loop(target, a, b);
    return { bench: 'reduce-kernels', label: c.label, ns: ((performance.now() - t0) * 1e6) / (rounds * c.length) };
  });
}

const ops = { sum: Op.sum, prod: Op.prod, bxor: Op.bxor };
compare({
  name: 'reduce-kernels',
  title: "Reductions' elementwise loops: a built-in op's combine (lanes from 512 elements) against the scalar loop, ns per element",
  subject: 'combine',
  unit: 'ns per element',
  better: 'lower',
  reps,
  figures: cases.map((c) => ({ label: c.label, pick: (r) => r.find((x) => x.label === c.label)?.ns as number | undefined })),
  runTsmpi: () => measure((index) => combinerTo(ops[cases[index]!.op])!),
  peers: [
    { name: 'scalar loop', run: () => measure((index) => scalarLoops[`${cases[index]!.op}${operands[index]!.big ? ' bigint' : ''}`]!) },
    // The lanes at every length, below the threshold too: where they stop paying.
    { name: 'lanes alone', run: () => measure((index) => simdCombine(cases[index]!.op, operands[index]!.a)!) },
  ],
});
