// Which algorithm each collective takes: tsmpi's own rules, SimGrid's (TSMPI_COLL_RULES=simgrid),
// and a forced choice winning over either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSettings } from '../../src/config/tunables.ts';
import { Op, type ReduceOp } from '../../src/comm/ops.ts';
import { selectAllgather, selectAllreduce, selectAlltoall, selectBarrier, selectBcast, selectBcastInto, selectGather, selectReduce, selectReduceScatter, selectScatter, selectStagedExchange, selectStagedGather, selectVectorExchange, REDUCE_SCATTER_DOUBLING_BELOW, REDUCE_SCATTER_HALVING_BELOW } from '../../src/comm/collectives/select.ts';

const tsmpi = readSettings({});
const simgrid = readSettings({ TSMPI_COLL_RULES: 'simgrid' });
const pairs = (n: number, bytes: number): Uint8Array[] => Array.from({ length: n }, () => new Uint8Array(bytes));

test("tsmpi's rules are the runtime's defaults", () => {
  assert.equal(selectBarrier(tsmpi), 'dissemination');
  // The world's ranks all threads of this process: arrivals counted in shared memory, from
  // TSMPI_SHARED_BARRIER_RANKS ranks (4 per core by default; 0: never unless forced).
  const cores = readSettings({}, { cores: 2 });
  assert.equal(cores.sharedBarrierRanks, 8);
  assert.equal(selectBarrier(cores, 8, true), 'shared');
  assert.equal(selectBarrier(cores, 7, true), 'dissemination');
  assert.equal(selectBarrier(cores, 64, false), 'dissemination');
  assert.equal(selectBarrier(readSettings({ TSMPI_SHARED_BARRIER_RANKS: '0' }), 64, true), 'dissemination');
  assert.equal(selectBarrier(readSettings({ TSMPI_SHARED_BARRIER_RANKS: '4' }), 4, true), 'shared');
  assert.equal(selectBcast(tsmpi), 'binomial');
  assert.equal(selectBcastInto(tsmpi, 8, 1 << 20), 'scatter-allgather');
  // Scatter-allgather from 512 KiB on more than 2 ranks; a binomial tree below, on 2 ranks, and
  // where every rank is a thread of one process with more rank threads than cores.
  assert.equal(selectBcastInto(tsmpi, 8, 512 * 1024), 'scatter-allgather');
  assert.equal(selectBcastInto(tsmpi, 8, 512 * 1024 - 1), 'binomial');
  assert.equal(selectBcastInto(tsmpi, 2, 1 << 20), 'binomial');
  assert.equal(selectBcastInto(tsmpi, 8, 1 << 20, true), 'binomial');
  // The world's broadcast slots, where the bytes fit them and every rank is a thread here: on
  // more than 2 ranks, by default; forced, at any size they are available to; never under SimGrid's rules.
  assert.equal(selectBcastInto(tsmpi, 4, 8, false, true), 'shared');
  assert.equal(selectBcastInto(tsmpi, 8, 1024, true, true), 'shared');
  assert.equal(selectBcastInto(tsmpi, 2, 8, false, true), 'binomial');
  assert.equal(selectBcastInto(tsmpi, 4, 8, false, false), 'binomial');
  assert.equal(selectBcastInto(readSettings({ TSMPI_COLL_BCAST: 'shared' }), 2, 8, false, true), 'shared');
  assert.equal(selectBcastInto(readSettings({ TSMPI_COLL_BCAST: 'shared' }), 4, 8, false, false), 'binomial');
  assert.equal(selectBcastInto(simgrid, 4, 8, false, true), 'binomial-blocking');
  // bcast of any value: through the slots only when forced (small values lose there).
  assert.equal(selectBcast(tsmpi, true), 'binomial');
  assert.equal(selectBcast(simgrid, true), 'binomial-blocking');
  assert.equal(selectBcast(readSettings({ TSMPI_COLL_BCAST: 'shared' }), true), 'shared');
  assert.equal(selectBcast(readSettings({ TSMPI_COLL_BCAST: 'shared' }), false), 'binomial');
  assert.equal(selectBcast(readSettings({ TSMPI_COLL_BCAST: 'linear' }), true), 'linear');
  assert.equal(selectBcastInto(readSettings({ TSMPI_COLL_BCAST: 'scatter-allgather' }), 8, 1 << 20, true), 'scatter-allgather');
  assert.equal(selectReduce(tsmpi), 'binomial');
  assert.equal(selectAllreduce(tsmpi, 8, 1, Op.sum), 'recursive-doubling');
  // Large arrays around a ring; on 2 ranks only where both are threads of one process.
  const large = new Float64Array(1 << 13);
  assert.equal(selectAllreduce(tsmpi, 8, large, Op.sum), 'ring');
  assert.equal(selectAllreduce(tsmpi, 2, large, Op.sum, true), 'ring');
  assert.equal(selectAllreduce(tsmpi, 2, large, Op.sum, false), 'recursive-doubling');
  assert.equal(selectAllreduce(tsmpi, 2, new Float64Array(1 << 12), Op.sum, true), 'recursive-doubling', 'below 64 KiB');
  // Through the staging regions: typed arrays from 32 KiB on more than 2 rank threads of one
  // process, with a built-in op that has typed-array loops; any size and 2 ranks when forced.
  assert.equal(selectAllreduce(tsmpi, 8, large, Op.sum, false, true), 'shared');
  assert.equal(selectAllreduce(tsmpi, 3, new Float64Array(4096), Op.max, false, true), 'shared');
  assert.equal(selectAllreduce(tsmpi, 8, new Float64Array(4095), Op.sum, false, true), 'recursive-doubling', 'below 32 KiB');
  // Small typed arrays (up to 2 KiB) of crowded rank threads (more than cores), from 5 ranks:
  // staged whole, in one barrier; not where the world is not crowded, below 5 ranks, past 2 KiB,
  // without the regions, for values that are not typed arrays, or under SimGrid's rules.
  assert.equal(selectAllreduce(tsmpi, 8, new Float64Array(1), Op.sum, false, true, true), 'shared');
  assert.equal(selectAllreduce(tsmpi, 5, new Int32Array(512), Op.max, false, true, true), 'shared');
  assert.equal(selectAllreduce(tsmpi, 8, new Float64Array(1), Op.sum, false, true, false), 'recursive-doubling');
  assert.equal(selectAllreduce(tsmpi, 4, new Float64Array(1), Op.sum, false, true, true), 'recursive-doubling');
  assert.equal(selectAllreduce(tsmpi, 8, new Float64Array(257), Op.sum, false, true, true), 'recursive-doubling', 'past 2 KiB');
  assert.equal(selectAllreduce(tsmpi, 8, new Float64Array(1), Op.sum, false, false, true), 'recursive-doubling');
  assert.equal(selectAllreduce(tsmpi, 8, 1, Op.sum, false, true, true), 'recursive-doubling');
  assert.equal(selectAllreduce(simgrid, 8, new Float64Array(1), Op.sum, false, true, true), 'reduce-bcast');
  // reduce-scatter of crowded rank threads, from 3 ranks, arrays up to 1 MiB.
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 4, 32, new Float64Array(4), true, true), 'shared');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 8 * 2048, new Float64Array(8 * 256), true, true), 'shared');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 1 << 20, new Float64Array(1 << 17), true, true), 'shared');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, (1 << 20) + 8, new Float64Array((1 << 17) + 1), true, true), 'ring');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 1 << 16, new Float64Array(1 << 13), true, false), 'recursive-halving', 'not crowded');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 2, 1 << 16, new Float64Array(1 << 13), true, true), 'ring', '2 ranks');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 64, new Float64Array(8), true, false), 'recursive-halving');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 64, new Float64Array(8), false, true), 'recursive-halving');
  assert.equal(selectReduceScatter(readSettings({ TSMPI_COLL_REDUCESCATTER: 'ring' }), Op.sum, 8, 64, new Float64Array(8), true, true), 'ring');
  // allgatherv: blocks up to 8 KiB of crowded rank threads, on 3 or more.
  assert.equal(selectStagedGather(tsmpi, 4, 8, true), true);
  assert.equal(selectStagedGather(tsmpi, 4, 8192, true), true);
  assert.equal(selectStagedGather(tsmpi, 4, 8193, true), false);
  assert.equal(selectStagedGather(tsmpi, 4, 8, false), false);
  assert.equal(selectStagedGather(tsmpi, 2, 8, true), false);
  assert.equal(selectStagedGather(simgrid, 4, 8, true), false);
  // alltoallv: crowded rank threads on 3 or more, at any block size (the rule reads no counts:
  // each rank's are its own); forced on 2 ranks; never without room for a slot per rank.
  assert.equal(selectStagedExchange(tsmpi, 3, 4096, true), true);
  assert.equal(selectStagedExchange(tsmpi, 8, 64, true), true);
  assert.equal(selectStagedExchange(tsmpi, 8, 4096, false), false);
  assert.equal(selectStagedExchange(tsmpi, 2, 4096, true), false);
  assert.equal(selectStagedExchange(simgrid, 8, 4096, true), false);
  assert.equal(selectStagedExchange(readSettings({ TSMPI_COLL_ALLTOALL: 'pairwise' }), 8, 4096, true), false);
  assert.equal(selectStagedExchange(readSettings({ TSMPI_COLL_ALLTOALL: 'shared' }), 2, 4096, false), true);
  assert.equal(selectStagedExchange(readSettings({ TSMPI_COLL_ALLTOALL: 'shared' }), 300, 0, true), false, 'no room');
  // alltoall of any values has no staged form: forced `shared` leaves it pairwise.
  assert.equal(selectAlltoall(readSettings({ TSMPI_COLL_ALLTOALL: 'shared' }), 8, pairs(8, 8)), 'pairwise');
  assert.equal(selectAllreduce(tsmpi, 2, large, Op.sum, true, true), 'ring', '2 ranks');
  assert.equal(selectAllreduce(tsmpi, 8, large, Op.create((a: unknown, b: unknown) => a) as ReduceOp, false, true), 'recursive-doubling', 'a user op');
  assert.equal(selectAllreduce(tsmpi, 8, Buffer.alloc(1 << 16), Op.bxor, false, true), 'ring', 'a Node Buffer');
  const forcedShared = readSettings({ TSMPI_COLL_ALLREDUCE: 'shared' });
  assert.equal(selectAllreduce(forcedShared, 2, new Float64Array(1), Op.sum, false, true), 'shared');
  assert.equal(selectAllreduce(forcedShared, 8, new Float64Array(1), Op.sum, false, false), 'recursive-doubling', 'not available');
  assert.equal(selectAllreduce(forcedShared, 8, 1, Op.sum, false, true), 'recursive-doubling', 'not a typed array');
  assert.equal(selectAllreduce(simgrid, 8, large, Op.sum, false, true), 'reduce-bcast');
  // reduceScatter through the staging regions only when forced, and only where it can.
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 1 << 16, large, true), 'recursive-halving');
  const forcedStaged = readSettings({ TSMPI_COLL_REDUCESCATTER: 'shared' });
  assert.equal(selectReduceScatter(forcedStaged, Op.sum, 8, 8, new Float64Array(8), true), 'shared');
  assert.equal(selectReduceScatter(forcedStaged, Op.sum, 8, 8, new Float64Array(8), false), 'ring', 'not available');
  assert.equal(selectReduceScatter(forcedStaged, Op.sum, 513, 8 * 513, new Float64Array(513), true), 'ring', 'more ranks than a 4 KiB region holds BigInt64 elements');
  assert.equal(selectReduceScatter(forcedStaged, Op.create((a: unknown) => a) as ReduceOp, 8, 64, new Float64Array(8), true), 'reduce-scatterv', 'a user op');
  assert.equal(selectGather(tsmpi), 'binomial');
  assert.equal(selectScatter(tsmpi), 'binomial');
  assert.equal(selectAllgather(tsmpi), 'bruck');
  // allgatherv through the staging regions (where they are): from 8 ranks once block x ranks
  // reaches 64 KiB, on 3 or more from blocks of 1 MiB; any size and 2 ranks when forced.
  assert.equal(selectStagedGather(tsmpi, 8, 8192), true);
  assert.equal(selectStagedGather(tsmpi, 8, 8191), false, 'under 64 KiB in all');
  assert.equal(selectStagedGather(tsmpi, 16, 4096), true);
  assert.equal(selectStagedGather(tsmpi, 4, (1 << 20) - 1), false, 'fewer than 8 ranks, a block under 1 MiB');
  assert.equal(selectStagedGather(tsmpi, 4, 1 << 20), true);
  assert.equal(selectStagedGather(tsmpi, 3, 1 << 20), true);
  assert.equal(selectStagedGather(tsmpi, 2, 1 << 20), false, '2 ranks');
  const forcedGather = readSettings({ TSMPI_COLL_ALLGATHER: 'shared' });
  assert.equal(selectStagedGather(forcedGather, 2, 8), true);
  assert.equal(selectStagedGather(readSettings({ TSMPI_COLL_ALLGATHER: 'bruck' }), 8, 1 << 20), false, 'another algorithm forced');
  assert.equal(selectStagedGather(simgrid, 8, 1 << 20), false, "SimGrid's rules");
  assert.equal(selectAllgather(forcedGather), 'bruck', 'allgather of values: shared is allgatherv only');
  assert.equal(selectAlltoall(tsmpi, 64, pairs(64, 4)), 'pairwise');
  // allgatherv and alltoallv: small blocks all at once, larger ones in rounds.
  assert.equal(selectVectorExchange(tsmpi, 8), 'linear');
  assert.equal(selectVectorExchange(tsmpi, 1024), 'linear');
  assert.equal(selectVectorExchange(tsmpi, 1025), 'rounds');
  // More rank threads than cores: blocks up to 64 KiB at once too.
  assert.equal(selectVectorExchange(tsmpi, 64 * 1024, true), 'linear');
  assert.equal(selectVectorExchange(tsmpi, 64 * 1024 + 1, true), 'rounds');
});

test("SimGrid's rules pick SimGrid 3.32's algorithms", () => {
  assert.equal(selectBarrier(simgrid), 'linear');
  assert.equal(selectBarrier(simgrid, 64, true), 'linear');
  assert.equal(selectBcast(simgrid), 'binomial-blocking');
  assert.equal(selectBcastInto(simgrid, 8, 1 << 20), 'binomial-blocking');
  assert.equal(selectReduce(simgrid), 'linear');
  assert.equal(selectAllreduce(simgrid, 8, new Float64Array(1 << 16), Op.sum), 'reduce-bcast');
  assert.equal(selectGather(simgrid), 'linear');
  assert.equal(selectScatter(simgrid), 'linear');
  assert.equal(selectAllgather(simgrid), 'linear');
  assert.equal(selectVectorExchange(simgrid, 1 << 20), 'linear');
  // Open MPI's alltoall decision, by ranks and bytes per pair of typed arrays.
  assert.equal(selectAlltoall(simgrid, 16, pairs(16, 262144)), 'linear');
  assert.equal(selectAlltoall(simgrid, 16, pairs(16, 4)), 'bruck');
  assert.equal(selectAlltoall(simgrid, 64, pairs(64, 262144)), 'xor-pairwise');
  assert.equal(selectAlltoall(simgrid, 64, pairs(64, 1000)), 'bruck');
  // SimGrid's pairwise needs a power of two: basic linear elsewhere.
  assert.equal(selectAlltoall(simgrid, 96, pairs(96, 262144)), 'linear');
  // Values whose encoded size the ranks cannot agree on: basic linear.
  assert.equal(selectAlltoall(simgrid, 64, Array.from({ length: 64 }, () => ({ x: 1 }))), 'linear');
});

test('a forced algorithm wins over either rule set', () => {
  const forced = readSettings({ TSMPI_COLL_RULES: 'simgrid', TSMPI_COLL_BCAST: 'binomial', TSMPI_COLL_ALLTOALL: 'pairwise', TSMPI_COLL_BARRIER: 'dissemination' });
  assert.equal(selectBcast(forced), 'binomial');
  assert.equal(selectAlltoall(forced, 16, pairs(16, 4)), 'pairwise');
  assert.equal(selectBarrier(forced), 'dissemination');
  assert.equal(selectBarrier(forced, 64, true), 'dissemination');
  // shared at any size where it can be used; dissemination where it cannot.
  const shared = readSettings({ TSMPI_COLL_BARRIER: 'shared' });
  assert.equal(selectBarrier(shared, 2, true), 'shared');
  assert.equal(selectBarrier(shared, 64, false), 'dissemination');
  // xor-pairwise on a size that is not a power of two falls back to the rotating pairwise.
  assert.equal(selectAlltoall(readSettings({ TSMPI_COLL_ALLTOALL: 'xor-pairwise' }), 6, pairs(6, 4)), 'pairwise');
});

test('reduceScatter: recursive halving below 256 KiB on a power of two, recursive doubling for other small arrays on more than 2 ranks, the ring for commutative built-in ops, reduce + scatterv for the rest and under SimGrid\'s rules', () => {
  const large = 64 * 1024;
  // A power-of-two count of ranks: log2 p rounds of the ring's volume, up to 256 KiB.
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 4, large), 'recursive-halving');
  assert.equal(selectReduceScatter(tsmpi, Op.bxor, 8, large), 'recursive-halving');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, 64), 'recursive-halving');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 16, REDUCE_SCATTER_HALVING_BELOW - 8), 'recursive-halving');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 8, REDUCE_SCATTER_HALVING_BELOW), 'ring');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 6, large), 'ring');
  // Small, where halving cannot run: log2 p rounds, for any op (the rounds combine in rank order).
  assert.equal(selectReduceScatter(tsmpi, Op.replace, 8, 64), 'recursive-doubling');
  assert.equal(selectReduceScatter(tsmpi, Op.replace, 3, 8), 'recursive-doubling');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 6, 64), 'recursive-doubling');
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 6, REDUCE_SCATTER_DOUBLING_BELOW), 'ring');
  // 2 ranks: the ring's one exchange is already a single round.
  assert.equal(selectReduceScatter(tsmpi, Op.sum, 2, 8), 'ring');
  // Not commutative, or no typed-array loop: rank order needs the reduce.
  assert.equal(selectReduceScatter(tsmpi, Op.replace, 4, large), 'reduce-scatterv');
  assert.equal(selectReduceScatter(tsmpi, Op.create<unknown>((a, b) => (a as number) + (b as number), { commutative: true }), 4, large), 'reduce-scatterv');
  assert.equal(selectReduceScatter(simgrid, Op.sum, 8, 8), 'reduce-scatterv');
  // Forced: the ring only where the op allows it.
  assert.equal(selectReduceScatter(readSettings({ TSMPI_COLL_REDUCESCATTER: 'ring' }), Op.noOp, 4, 8), 'reduce-scatterv');
  assert.equal(selectReduceScatter(readSettings({ TSMPI_COLL_REDUCESCATTER: 'ring', TSMPI_COLL_RULES: 'simgrid' }), Op.sum, 8, 8), 'ring');
  assert.equal(selectReduceScatter(readSettings({ TSMPI_COLL_REDUCESCATTER: 'reduce-scatterv' }), Op.sum, 8, 8), 'reduce-scatterv');
  assert.equal(selectReduceScatter(readSettings({ TSMPI_COLL_REDUCESCATTER: 'recursive-doubling' }), Op.sum, 4, large), 'recursive-doubling');
  // Forced halving: on a power of two and where the op allows it, else the ring or reduce + scatterv.
  const halving = readSettings({ TSMPI_COLL_REDUCESCATTER: 'recursive-halving' });
  assert.equal(selectReduceScatter(halving, Op.sum, 8, 1 << 20), 'recursive-halving');
  assert.equal(selectReduceScatter(halving, Op.sum, 2, 8), 'recursive-halving');
  assert.equal(selectReduceScatter(halving, Op.sum, 6, 8), 'ring');
  assert.equal(selectReduceScatter(halving, Op.replace, 8, 8), 'reduce-scatterv');
});
