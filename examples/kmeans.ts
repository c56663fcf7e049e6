/**
 * Parallel k-means (Lloyd's algorithm): every rank holds its share of seeded 2-D points; each
 * iteration assigns every point to its nearest centroid, and one `allreduce` of the per-cluster
 * sums and counts (a Float64Array of k * 3: x, y, count) gives every rank the same new
 * centroids, so every rank moves them alike. It stops when no centroid moves. The sums are
 * grouped by rank, so their last bits depend on the number of ranks: the centroids printed (to
 * six decimals) and the points per cluster do not.
 *
 *   tsmpi run -n 4 examples/kmeans.ts [points] [k] [iterations]
 */
import { Op, init } from 'tsmpi';

const comm = await init();
const { rank, size } = comm;
const total = Number(process.argv[2] ?? 40_000);
const k = Number(process.argv[3] ?? 4);
const maxIterations = Number(process.argv[4] ?? 50);

// Point i of the whole set, from its index alone: k blobs around known centres.
function point(i: number): [number, number] {
  let s = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  const next = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
  const blob = i % k;
  const angle = (2 * Math.PI * blob) / k;
  // Wide, overlapping blobs: the clusters' borders take a few iterations to settle.
  return [10 * Math.cos(angle) + (next() - 0.5) * 16, 10 * Math.sin(angle) + (next() - 0.5) * 16];
}

// A block of the points on each rank.
const first = Math.floor((rank * total) / size);
const last = Math.floor(((rank + 1) * total) / size);
const xs = new Float64Array(last - first);
const ys = new Float64Array(last - first);
for (let i = first; i < last; i++) [xs[i - first], ys[i - first]] = point(i);

// The first k points start as the centroids (every rank knows them: a point comes from its index).
const centroids = new Float64Array(2 * k);
for (let c = 0; c < k; c++) [centroids[2 * c], centroids[2 * c + 1]] = point(c);

const t0 = performance.now();
let iterations = 0;
let moved = Infinity;
while (iterations < maxIterations && moved > 1e-9) {
  iterations++;
  const sums = new Float64Array(3 * k);
  for (let i = 0; i < xs.length; i++) {
    let best = 0;
    let bestDistance = Infinity;
    for (let c = 0; c < k; c++) {
      const dx = xs[i]! - centroids[2 * c]!;
      const dy = ys[i]! - centroids[2 * c + 1]!;
      const d = dx * dx + dy * dy;
      if (d < bestDistance) [best, bestDistance] = [c, d];
    }
    sums[3 * best]! += xs[i]!;
    sums[3 * best + 1]! += ys[i]!;
    sums[3 * best + 2]! += 1;
  }
  const all = await comm.allreduce(sums, Op.sum);
  moved = 0;
  for (let c = 0; c < k; c++) {
    const count = all[3 * c + 2]!;
    if (count === 0) continue; // an empty cluster keeps its centroid
    const x = all[3 * c]! / count;
    const y = all[3 * c + 1]! / count;
    moved = Math.max(moved, Math.hypot(x - centroids[2 * c]!, y - centroids[2 * c + 1]!));
    centroids[2 * c] = x;
    centroids[2 * c + 1] = y;
  }
}
const seconds = (performance.now() - t0) / 1000;

// The final assignment's counts, and a check that every rank holds the same centroids.
const counts = new Float64Array(k);
for (let i = 0; i < xs.length; i++) {
  let best = 0;
  let bestDistance = Infinity;
  for (let c = 0; c < k; c++) {
    const d = (xs[i]! - centroids[2 * c]!) ** 2 + (ys[i]! - centroids[2 * c + 1]!) ** 2;
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  counts[best]! += 1;
}
const totals = await comm.reduce(counts, Op.sum, 0);
const agree = await comm.allreduce(Float64Array.from(centroids), Op.max);
if (agree.some((v, i) => v !== centroids[i])) throw new Error(`rank ${rank}: centroids differ between ranks`);
if (rank === 0) {
  const order = Array.from({ length: k }, (_, c) => c).sort((a, b) => centroids[2 * a]! - centroids[2 * b]! || centroids[2 * a + 1]! - centroids[2 * b + 1]!);
  for (const c of order) console.log(`centroid (${centroids[2 * c]!.toFixed(6)}, ${centroids[2 * c + 1]!.toFixed(6)}): ${totals![c]} points`);
  console.log(`${total} points, k = ${k}: converged after ${iterations} iterations on ${size} rank${size === 1 ? '' : 's'} in ${seconds.toFixed(3)} s`);
}
