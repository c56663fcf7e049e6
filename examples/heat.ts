/**
 * A 2-D heat equation (Jacobi iteration) on an NX x NY grid, split into blocks of rows.
 *
 *   npx tsmpi run -n 4 examples/heat.ts [NX] [NY] [iterations] [tolerance]    (256 256 200 1e-4)
 *   npx tsmpi sim -n 8 --platform examples/platforms/cluster.xml --ranks-per-host 2 examples/heat.ts 64 64 50
 *
 * Shows typed arrays (Float64Array) as raw-byte messages, halo rows moved with `sendrecv` and
 * `recvInto`, an `allreduce` (Op.max) of the residual every iteration, and a `gatherv` of row sums.
 * The edge above row 0 is held at 100, the other three edges at 0. Any rank count up to NY works;
 * when P does not divide NY the first NY mod P ranks take one row more.
 *
 * The printed iterations, residual and checksum are the same on any number of ranks and in every
 * launch mode: each cell's update reads the same four values in the same order whatever the
 * split, the max of the residual is exact, and the checksum adds per-row sums in global row order
 * on rank 0 (a plain allreduce of per-rank sums would round differently for different splits).
 */
import { init, Op, wtime } from 'tsmpi';

const comm = await init();
const numbers = process.argv.slice(2).map(Number);
const NX = numbers[0] ?? 256;
const NY = numbers[1] ?? 256;
const maxIterations = numbers[2] ?? 200;
const tolerance = numbers[3] ?? 1e-4;
const TOP = 100.0;
if (!(Number.isInteger(NX) && NX > 0 && Number.isInteger(NY) && NY > 0 && Number.isInteger(maxIterations) && maxIterations >= 0 && tolerance >= 0)) {
  throw new RangeError(`usage: heat.ts [NX] [NY] [iterations] [tolerance]; got ${process.argv.slice(2).join(' ')}`);
}
if (comm.size > NY) throw new RangeError(`${comm.size} ranks for ${NY} rows: every rank needs at least one row`);

// Row blocks: the first NY % P ranks get one extra row.
const rowsOf = (r: number): number => Math.floor(NY / comm.size) + (r < NY % comm.size ? 1 : 0);
const counts = Array.from({ length: comm.size }, (_, r) => rowsOf(r));
const rows = counts[comm.rank]!;
const up = comm.rank - 1; // -1: this rank holds the top edge
const down = comm.rank + 1 < comm.size ? comm.rank + 1 : -1; // -1: the bottom edge

// Local rows 1..rows plus a halo row above (0) and below (rows + 1); columns 0 and NX + 1 are
// the fixed side edges (0), so the stencil needs no special cases.
const W = NX + 2;
let cur = new Float64Array((rows + 2) * W);
let next = new Float64Array((rows + 2) * W);
if (up < 0) {
  // Both buffers: they swap every iteration and the edge row is never received.
  cur.fill(TOP, 1, 1 + NX);
  next.fill(TOP, 1, 1 + NX);
}
const row = (a: Float64Array, i: number): Float64Array => a.subarray(i * W + 1, i * W + 1 + NX);

const UPWARD = 1;
const DOWNWARD = 2;

/** Sends `out` to `dest` and receives `into` from `source`; -1 means no such neighbour. */
async function shift(out: Float64Array, dest: number, into: Float64Array, source: number, tag: number): Promise<void> {
  if (dest >= 0 && source >= 0) {
    // A typed array arrives as a new Float64Array (raw bytes, no encoding): copy it into the halo.
    into.set(await comm.sendrecv<Float64Array>(out, dest, source, tag, tag));
  } else if (dest >= 0) {
    await comm.send(out, dest, tag);
  } else if (source >= 0) {
    await comm.recvInto(into, source, tag); // straight into the halo row, no copy
  }
}

const start = wtime();
let iterations = 0;
let residual = Infinity;
while (iterations < maxIterations) {
  // My first row goes up while the halo below arrives, then my last row goes down.
  await shift(row(cur, 1), up, row(cur, rows + 1), down, UPWARD);
  await shift(row(cur, rows), down, row(cur, 0), up, DOWNWARD);

  let localMax = 0;
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= NX; j++) {
      const k = i * W + j;
      const v = 0.25 * (cur[k - W]! + cur[k + W]! + cur[k - 1]! + cur[k + 1]!);
      const d = Math.abs(v - cur[k]!);
      if (d > localMax) localMax = d;
      next[k] = v;
    }
  }
  [cur, next] = [next, cur];
  iterations++;
  residual = await comm.allreduce(localMax, Op.max); // max is exact: no rounding depends on P
  if (residual < tolerance) break;
}
const elapsed = wtime() - start;

// Per-row sums (left to right), gathered in global row order and added up on rank 0.
const rowSums = new Float64Array(rows);
for (let i = 1; i <= rows; i++) {
  let s = 0;
  for (let j = 1; j <= NX; j++) s += cur[i * W + j]!;
  rowSums[i - 1] = s;
}
const gathered = await comm.gatherv(rowSums, 0, counts);
if (comm.rank === 0) {
  let checksum = 0;
  for (const s of gathered!.data) checksum += s;
  const converged = residual < tolerance ? 'converged' : 'iteration limit';
  console.log(`heat ${NX}x${NY} on ${comm.size} rank${comm.size === 1 ? "" : "s"}: ${iterations} iterations (${converged}), residual ${residual.toExponential(6)}, checksum ${checksum.toPrecision(12)}`);
  console.log(`heat time: ${elapsed.toFixed(3)} s, ${((elapsed / Math.max(1, iterations)) * 1e6).toFixed(1)} us per iteration, rows per rank ${counts.join(' ')}`);
}
