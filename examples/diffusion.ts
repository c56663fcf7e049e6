/**
 * An iterative program with uneven, drifting task cost, balanced by random diffusion (seed 3,
 * docs/techniques.md §3).
 *
 *   npx tsmpi run -n 4 examples/diffusion.ts [iterations] [--static] [--model last]
 *
 * The tasks are the cells of a 1-D domain, dealt out in blocks. A hot spot (cells that cost 8x)
 * drifts across the domain, so the rank holding it changes over time. Every iteration each rank
 * computes its cells, timing each one; then `rebalance()` measures the rank's speed, gossips the
 * deficits of the ranks with room, and moves cells from the tails of the overloaded ranks' queues.
 * A cell carries the time it took last iteration: that is its cost to the balancer (the program's
 * own measure), and it travels with the cell when it moves.
 * Rank 0 prints max / mean busy time every few iterations and the total at the end; --static
 * turns the balancer off for comparison.
 */
import { init, DiffusionBalancer, Op, wtime, type SpeedModelName } from 'tsmpi';

const comm = await init();
const iterations = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 40);
const balanced = !process.argv.includes('--static');
const modelAt = process.argv.indexOf('--model');
const model = (modelAt >= 0 ? process.argv[modelAt + 1] : 'learned') as SpeedModelName;
const cells = 64 * comm.size;
const hotWidth = cells / 8;

/** Real work: `units` times 100,000 square roots (about 0.2 ms here). */
function compute(units: number): number {
  let acc = 0;
  for (let k = 0; k < units * 100_000; k++) acc += Math.sqrt(k);
  return acc;
}
const hot = (cell: number, iteration: number): boolean => (cell - Math.floor((iteration * cells) / iterations) + cells) % cells < hotWidth;

interface Cell {
  readonly id: number;
  /** Seconds it took last iteration. */
  seconds: number;
}
// Cells in blocks: rank r starts with cells [r * 64, r * 64 + 64).
let queue: Cell[] = Array.from({ length: cells / comm.size }, (_, i) => ({ id: comm.rank * (cells / comm.size) + i, seconds: 0 }));
const balancer = new DiffusionBalancer<Cell>(comm, { cost: (cell) => cell.seconds, model });
const start = wtime();
let sink = 0;
for (let it = 0; it < iterations; it++) {
  const began = wtime();
  for (const cell of queue) {
    const t0 = wtime();
    sink += compute(hot(cell.id, it) ? 8 : 1);
    cell.seconds = wtime() - t0;
  }
  const busy = wtime() - began;
  const [maxBusy, sumBusy] = [await comm.allreduce(busy, Op.max), await comm.allreduce(busy, Op.sum)];
  if (balanced) {
    queue = (await balancer.rebalance(queue, busy)).queue;
  }
  if (comm.rank === 0 && (it % 10 === 0 || it === iterations - 1)) {
    console.log(`iteration ${it}: max / mean busy ${(maxBusy / (sumBusy / comm.size)).toFixed(2)}, rank 0 holds ${queue.length} cells`);
  }
}
const counts = await comm.gather(queue.length, 0);
if (comm.rank === 0) {
  console.log(`cells per rank at the end: ${counts!.join(' ')}`);
  console.log(`${iterations} iterations ${balanced ? `balanced (${model} model)` : 'static'} in ${(wtime() - start).toFixed(3)} s (checksum ${sink > 0 ? 'ok' : '?'})`);
}
