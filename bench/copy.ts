/**
 * The hot path's byte copy (src/transport/copy-bytes.ts) against TypedArray.prototype.set, from
 * an ordinary array into shared memory (a ring) and back, aligned and not: GB/s per case, in this
 * process, interleaved.   npm run bench -- copy
 */
import { compare } from './lib/compare.ts';
import type { Record } from './lib/jobs.ts';
import { param } from './lib/report.ts';
import { copyBytes } from '../src/transport/copy-bytes.ts';

const reps = param('REPS', 5, 'interleaved repetitions');
const cases = [
  // A small message's payload, copied byte by byte (ns per copy = bytes / GB/s).
  { label: '1 B into shared', bytes: 1, into: true, misaligned: false },
  { label: '8 B into shared', bytes: 8, into: true, misaligned: false },
  { label: '8 B out of shared', bytes: 8, into: false, misaligned: false },
  { label: '1 KiB into shared, misaligned', bytes: 1024, into: true, misaligned: true },
  { label: '4 KiB into shared', bytes: 4096, into: true, misaligned: false },
  { label: '64 KiB into shared', bytes: 64 << 10, into: true, misaligned: false },
  { label: '64 KiB out of shared', bytes: 64 << 10, into: false, misaligned: false },
  { label: '64 KiB into shared, misaligned', bytes: 64 << 10, into: true, misaligned: true },
  { label: '1 MiB into shared', bytes: 1 << 20, into: true, misaligned: false },
];
const plain = new Uint8Array((1 << 20) + 64).fill(1);
const shared = new Uint8Array(new SharedArrayBuffer((1 << 20) + 64));

type Copy = (dst: Uint8Array, dstOffset: number, src: Uint8Array, srcOffset: number, length: number) => void;
const viaSet: Copy = (dst, dstOffset, src, srcOffset, length) => dst.set(src.subarray(srcOffset, srcOffset + length), dstOffset);

/** GB/s of each case with `copy`, over about 30 ms each. */
function measure(copy: Copy): Record[] {
  return cases.map((c) => {
    const [dst, src] = c.into ? [shared, plain] : [plain, shared];
    const dstOffset = c.misaligned ? 36 : 32;
    const rounds = Math.max(20, Math.min(4_000_000, Math.floor((64 << 20) / c.bytes)));
    for (let i = 0; i < rounds / 4; i++) copy(dst, dstOffset, src, 0, c.bytes);
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) copy(dst, dstOffset, src, 0, c.bytes);
    return { bench: 'copy', label: c.label, gbps: (c.bytes * rounds) / ((performance.now() - t0) * 1e6) };
  });
}

compare({
  name: 'copy',
  title: 'Byte copies, copyBytes against TypedArray.set',
  subject: 'copyBytes',
  unit: 'GB/s',
  better: 'higher',
  reps,
  figures: cases.map((c) => ({ label: c.label, pick: (r) => r.find((x) => x.label === c.label)?.gbps as number | undefined })),
  runTsmpi: () => measure(copyBytes),
  peers: [{ name: 'TypedArray.set', run: () => measure(viaSet) }],
});
