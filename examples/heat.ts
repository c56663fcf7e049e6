/**
 * A 2-D heat equation (Jacobi iteration) on an NX x NY grid, split into blocks on a 2-D grid of
 * ranks.
 *
 *   npx tsmpi run -n 4 examples/heat.ts [NX] [NY] [iterations] [tolerance]    (256 256 200 1e-4)
 *   npx tsmpi sim -n 8 --platform examples/platforms/cluster.xml --ranks-per-host 2 examples/heat.ts 64 64 50
 *
 * Shows a Cartesian communicator (`createCart` on `computeDims(size, 2)`, not periodic) whose
 * `shift` names the four neighbours, PROC_NULL off the edges of the grid, so the halo exchange
 * has no edge cases; typed arrays as raw-byte messages received straight into the halo; an
 * `iallreduce` (Op.max) of each step's residual that runs while the next step is computed; and a
 * running row sum passed along each row of ranks, then a `gatherv` of the row sums.
 * The edge above row 0 is held at 100, the other three edges at 0. Ranks form a `dims[0]` x
 * `dims[1]` grid (rows x columns); when a dimension does not divide the grid's, the first blocks
 * along it take one more.
 *
 * The printed iterations, residual and checksum are the same on any number of ranks and in every
 * launch mode: each cell's update reads the same four values in the same order whatever the
 * split, the max of the residual is exact, and each row is summed left to right across the ranks
 * of its row before rank 0 adds the row sums in global row order (a plain allreduce of per-rank
 * sums would round differently for different splits).
 */
import { computeDims, init, Op, waitAll, wtime, type Request } from 'tsmpi';

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

// Dimension 0 runs down the rows, dimension 1 across the columns. computeDims covers every rank,
// so createCart leaves none out.
const dims = computeDims(comm.size, 2);
if (dims[0]! > NY || dims[1]! > NX) throw new RangeError(`a ${dims.join('x')} grid of ranks for ${NX}x${NY} cells: every rank needs at least one row and one column`);
const cart = (await comm.createCart(dims, [false, false]))!;
const blockOf = (n: number, parts: number, index: number): number => Math.floor(n / parts) + (index < n % parts ? 1 : 0);
const rows = blockOf(NY, dims[0]!, cart.coords[0]!);
const cols = blockOf(NX, dims[1]!, cart.coords[1]!);
// The neighbouring blocks, PROC_NULL where there is none: a shift down the rows (dimension 0)
// comes from the block above and goes to the one below; across the columns, left to right.
const { source: above, dest: below } = cart.shift(0, 1);
const { source: left, dest: right } = cart.shift(1, 1);

// Local cells at rows 1..rows, columns 1..cols, in a frame of halo cells. Each halo starts at the
// value of the edge beyond it: the exchange overwrites the halos between blocks before every
// step, and PROC_NULL leaves those on the edges of the grid as they are.
const W = cols + 2;
let cur = new Float64Array((rows + 2) * W);
let next = new Float64Array((rows + 2) * W);
cur.fill(TOP, 1, 1 + cols);
next.fill(TOP, 1, 1 + cols); // both: they swap every step
const row = (a: Float64Array, i: number): Float64Array => a.subarray(i * W + 1, i * W + 1 + cols);
// Columns are not contiguous: they travel packed. The receive buffers start at 0, the side edges.
const leftOut = new Float64Array(rows);
const rightOut = new Float64Array(rows);
const leftIn = new Float64Array(rows);
const rightIn = new Float64Array(rows);

const DOWN = 1;
const UP = 2;
const RIGHT = 3;
const LEFT = 4;
const SUMS = 5;

/** Fills the halos of `a` from the four neighbours (all eight messages in flight at once). */
async function exchangeHalos(a: Float64Array): Promise<void> {
  for (let i = 1; i <= rows; i++) {
    leftOut[i - 1] = a[i * W + 1]!;
    rightOut[i - 1] = a[i * W + cols]!;
  }
  await waitAll([
    cart.irecvInto(row(a, 0), above, DOWN),
    cart.irecvInto(row(a, rows + 1), below, UP),
    cart.irecvInto(leftIn, left, RIGHT),
    cart.irecvInto(rightIn, right, LEFT),
    cart.isend(row(a, rows), below, DOWN),
    cart.isend(row(a, 1), above, UP),
    cart.isend(rightOut, right, RIGHT),
    cart.isend(leftOut, left, LEFT),
  ]);
  for (let i = 1; i <= rows; i++) {
    a[i * W] = leftIn[i - 1]!;
    a[i * W + cols + 1] = rightIn[i - 1]!;
  }
}

// Poll the residual's reduction about every 4096 cells: often enough to keep it moving, rarely
// enough to cost nothing next to the stencil.
const POLL_ROWS = Math.max(1, Math.floor(4096 / cols));

/** One Jacobi step from `from` into `to`; returns this block's largest change. */
function step(from: Float64Array, to: Float64Array, reducing: Request<number> | undefined): number {
  let localMax = 0;
  for (let i = 1; i <= rows; i++) {
    for (let j = 1; j <= cols; j++) {
      const k = i * W + j;
      const v = 0.25 * (from[k - W]! + from[k + W]! + from[k - 1]! + from[k + 1]!);
      const d = Math.abs(v - from[k]!);
      if (d > localMax) localMax = d;
      to[k] = v;
    }
    // On shared memory, test() moves the reduction on without an await; over TCP it moves
    // during the next await (the halo exchange, the wait).
    if (i % POLL_ROWS === 0) reducing?.test();
  }
  return localMax;
}

const start = wtime();
let iterations = 0;
let residual = Infinity;
// The residual of the last step, being reduced while the next step is exchanged and computed.
// When it says the last step converged, the step computed meanwhile is dropped: `cur` is kept.
let reducing: Request<number> | undefined;
for (;;) {
  const another = iterations < maxIterations;
  let localMax = 0;
  if (another) {
    await exchangeHalos(cur);
    localMax = step(cur, next, reducing);
  }
  if (reducing !== undefined) {
    residual = await reducing.wait(); // max is exact: no rounding depends on the split
    if (residual < tolerance) break;
  }
  if (!another) break;
  [cur, next] = [next, cur];
  iterations++;
  reducing = cart.iallreduce(localMax, Op.max);
}
const elapsed = wtime() - start;

// Row sums, left to right across the whole grid: each rank adds its columns to the running sums
// from the left (0 from PROC_NULL) and passes them on; the last rank of each row holds its sums.
const rowSums = new Float64Array(rows);
await cart.recvInto(rowSums, left, SUMS);
for (let i = 1; i <= rows; i++) {
  let s = rowSums[i - 1]!;
  for (let j = 1; j <= cols; j++) s += cur[i * W + j]!;
  rowSums[i - 1] = s;
}
await cart.send(rowSums, right, SUMS);

// Ranks are numbered row-major, so the last rank of each row comes in global row order.
const lastColumn = dims[1]! - 1;
const counts = Array.from({ length: cart.size }, (_, r) => {
  const [r0, r1] = cart.coordsOf(r);
  return r1 === lastColumn ? blockOf(NY, dims[0]!, r0!) : 0;
});
const gathered = await cart.gatherv(cart.coords[1] === lastColumn ? rowSums : rowSums.subarray(0, 0), 0, counts);
if (cart.rank === 0) {
  let checksum = 0;
  for (const s of gathered!.data) checksum += s;
  const converged = residual < tolerance ? 'converged' : 'iteration limit';
  const blocks = (n: number, parts: number): string => Array.from({ length: parts }, (_, p) => blockOf(n, parts, p)).join(' ');
  console.log(`heat ${NX}x${NY} on ${comm.size} rank${comm.size === 1 ? "" : "s"}: ${iterations} iterations (${converged}), residual ${residual.toExponential(6)}, checksum ${checksum.toPrecision(12)}`);
  console.log(`heat time: ${elapsed.toFixed(3)} s, ${((elapsed / Math.max(1, iterations)) * 1e6).toFixed(1)} us per iteration, ${dims.join('x')} ranks, rows per block ${blocks(NY, dims[0]!)}, columns per block ${blocks(NX, dims[1]!)}`);
}
