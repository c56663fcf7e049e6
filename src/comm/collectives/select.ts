/**
 * Which algorithm each collective uses, in one place. Every rank must reach the same choice, so
 * the rules read only what every rank knows the same: the communicator size, the op, and the kind
 * and length of typed-array arguments (MPI requires matching counts). `TSMPI_COLL_<NAME>` forces
 * an algorithm; otherwise TSMPI_COLL_RULES picks the rules:
 *
 * - tsmpi: the runtime's own (Open MPI's coll/tuned shape: logarithmic trees and exchanges for
 *   small data, bandwidth-optimal rings for large typed arrays).
 * - simgrid: what SimGrid 3.32's default selector runs, message for message (a program simulated
 *   here then sends what it sends under SMPI): barrier and reduce linear, bcast a binomial tree
 *   of blocking sends (largest subtree first), allreduce a reduce to rank 0 then that bcast,
 *   gather, scatter and allgather linear with every message posted at once, alltoall by Open
 *   MPI's decision on ranks and bytes per pair (basic linear, XOR pairwise or Bruck).
 */
import type { Settings } from '../../config/tunables.js';
import type { TypedArray } from '../codec.js';
import { combinerTo, inPlaceCombiner, isTypedArray, type ReduceOp } from '../ops.js';
import { STAGED_WHOLE_MAX_BYTES } from '../staged-reduction.js';

/** Typed arrays at least this large use the bandwidth-optimal algorithms. */
export const LARGE_MESSAGE_BYTES = 64 * 1024;

// Each rule reads its TSMPI_COLL_<NAME> setting by name: a lookup by computed key was a visible
// share of a small collective's time.
function simgridRules(settings: Settings): boolean {
  return settings.collRules === 'simgrid';
}

export function isLargeArray(value: unknown): value is TypedArray {
  return isTypedArray(value) && value.byteLength >= LARGE_MESSAGE_BYTES;
}

/**
 * `shared` (a counter in shared memory, shared-barrier.ts) where the communicator's ranks can use
 * it (`sharedAvailable`: the world, every rank a thread of this process) and there are at least
 * TSMPI_SHARED_BARRIER_RANKS of them (below, waking every sleeper at once costs more than the
 * messages); else dissemination, or linear under SimGrid's rules.
 */
export function selectBarrier(settings: Settings, size = 0, sharedAvailable = false): 'shared' | 'dissemination' | 'linear' {
  const choice = settings.collBarrier;
  if (choice === 'linear' || choice === 'dissemination') return choice;
  if (choice === 'shared') return sharedAvailable ? 'shared' : 'dissemination';
  if (simgridRules(settings)) return 'linear';
  return sharedAvailable && settings.sharedBarrierRanks > 0 && size >= settings.sharedBarrierRanks ? 'shared' : 'dissemination';
}

/**
 * bcastInto of at least this many bytes on more than 2 ranks scatters and allgathers: below it a
 * binomial tree's log p whole messages cost less than the 2 (p - 1) rounds (on 2 cores, 4 and 8
 * rank threads: binomial 31 and 88 us at 64 KiB against 37 and 145, 97 and 213 at 256 KiB
 * against 108 and 352, `TSMPI_COLL_BCAST=binomial` against auto on bench/ranks/collectives.ts).
 */
export const BCAST_SCATTER_FROM = 512 * 1024;

/**
 * `sharedAvailable`: every rank is a thread of this process and the communicator is the world:
 * the bytes can go through the world's broadcast slots (shared-bcast.ts), p copies of them where
 * a tree makes 2 (p - 1). On more than 2 ranks the slots win at every size: 4 and 8 rank threads
 * on 2 cores, 8 bytes 0.54 and 1.37 us a call against 1.13 and 2.36 for the binomial tree, 64 KiB
 * 12.2 and 18.0 against 33.8 and 136, 1 MiB 120 and 288 against 247 and 988 (medians of 3-5,
 * `tsmpi run -n N bench/ranks/collectives.ts 8 65536 1048576` with BENCH_OPS=bcast, and
 * TSMPI_COLL_BCAST=binomial). On 2 the tree's one message is cheaper (8 bytes 0.20 us against
 * 0.43, 1 MiB 425 against 615).
 *
 * `crowded`: every rank of the communicator is a thread of one process that runs more rank
 * threads than cores (the same for all of them). There each round of scatter-allgather waits for
 * ranks without a core, and a binomial tree wins at every size (4 ranks on 2 cores, 1 MiB: 258 us
 * against 556).
 */
export function selectBcastInto(settings: Settings, size: number, bytes: number, crowded = false, sharedAvailable = false): 'binomial' | 'binomial-blocking' | 'scatter-allgather' | 'linear' | 'shared' {
  const choice = settings.collBcast;
  if (choice === 'shared') return sharedAvailable ? 'shared' : 'binomial';
  if (choice === 'binomial' || choice === 'binomial-blocking' || choice === 'linear') return choice;
  if (choice === 'scatter-allgather') return size > 1 && bytes >= size ? 'scatter-allgather' : 'binomial';
  if (simgridRules(settings)) return 'binomial-blocking';
  if (sharedAvailable && size > 2) return 'shared';
  return size > 2 && bytes >= BCAST_SCATTER_FROM && !crowded ? 'scatter-allgather' : 'binomial';
}

/**
 * bcast of any value: the binomial tree unless forced. The broadcast slots take a value too (its
 * readers learn its length from them) when TSMPI_COLL_BCAST=shared: a 1 MiB Float64Array on 4
 * and 8 rank threads 393-517 and 1109-1316 us a call against 637-1148 and 2164-2220 in the tree,
 * but a small object 3.1-5.9 us against 2.7-3.1 on 3 ranks and 11.9-13.6 against 10.6-12.4 on 8
 * (`tsmpi run -n N bench/ranks/bcast-values.ts` with TSMPI_COLL_BCAST=shared and =binomial, 2-4
 * runs each way); the readers cannot know
 * a value's size in advance, so the choice cannot depend on it.
 */
export function selectBcast(settings: Settings, sharedAvailable = false): 'binomial' | 'binomial-blocking' | 'linear' | 'shared' {
  const choice = settings.collBcast;
  if (choice === 'shared') return sharedAvailable ? 'shared' : 'binomial';
  if (choice === 'linear' || choice === 'binomial-blocking') return choice;
  if (choice === 'auto' && simgridRules(settings)) return 'binomial-blocking';
  return 'binomial';
}

export function selectReduce(settings: Settings): 'binomial' | 'linear' {
  const choice = settings.collReduce;
  if (choice === 'linear' || choice === 'binomial') return choice;
  return simgridRules(settings) ? 'linear' : 'binomial';
}

/**
 * Typed arrays from STAGED_ALLREDUCE_FROM on a world of rank threads of one process (more than 2)
 * reduce through the staging regions (`stagingAvailable`). Elsewhere, large typed arrays reduce
 * around a ring (reduce-scatter, then allgather: each rank combines (p - 1) / p of the array),
 * else by recursive doubling (each combines it all, log p times). On 2
 * ranks the ring's second round pays only where a round is cheap, between threads of one process
 * (`inOneProcess`, the same on both ranks): 1 MiB ~0.9x and 4 MiB ~0.85x the time there, ~1.1x
 * over TCP (bench/ranks/collectives.ts under TSMPI_COLL_ALLREDUCE=ring, 2 cores).
 */
export function selectAllreduce(settings: Settings, size: number, value: unknown, op: ReduceOp, inOneProcess = false, stagingAvailable = false, crowded = false): 'recursive-doubling' | 'ring' | 'reduce-bcast' | 'shared' {
  const choice = settings.collAllreduce;
  const ringable = op.commutative && inPlaceCombiner(op) !== undefined && isTypedArray(value) && value.length >= size;
  const stageable = stagingAvailable && stageableArray(value, op);
  if (choice === 'reduce-bcast' || choice === 'recursive-doubling') return choice;
  if (choice === 'ring') return ringable ? 'ring' : 'recursive-doubling';
  if (choice === 'shared') return stageable ? 'shared' : 'recursive-doubling';
  if (simgridRules(settings)) return 'reduce-bcast';
  if (stageable && size > 2 && (value.byteLength >= STAGED_ALLREDUCE_FROM || (crowded && size >= STAGED_SMALL_ALLREDUCE_RANKS && value.byteLength <= STAGED_WHOLE_MAX_BYTES))) return 'shared';
  return ringable && (size > 2 || inOneProcess) && isLargeArray(value) ? 'ring' : 'recursive-doubling';
}

/**
 * A typed array (not a Node Buffer) whose op has typed-array loops: a staged collective can view
 * the staging regions as its kind and combine them there.
 */
export function stageableArray(value: unknown, op: ReduceOp): value is TypedArray {
  return isTypedArray(value) && !Buffer.isBuffer(value) && combinerTo(op) !== undefined && inPlaceCombiner(op) !== undefined;
}

/**
 * Allreduce of typed arrays of at least this many bytes on more than 2 ranks, all threads of this
 * process (the world), goes through the staging regions (staged-reduction.ts). 8 rank threads on 2
 * cores: 64 KiB 198-274 us a call against 320-355 around the ring, 1 MiB 1826-3472 against
 * 3260-3548, 32 KiB 136-168 against 151-160 by recursive doubling, 8 KiB 75-91 against 75-83;
 * 4 rank threads: 8 KiB 28-31 against 21-25, 64 KiB 58-93 against 77-137, 1 MiB 769-1335
 * against 776-1636 (`tsmpi run -n N bench/ranks/collectives.ts SIZES` with BENCH_OPS=allreduce and
 * TSMPI_COLL_ALLREDUCE=shared, ring, recursive-doubling or unset, 3 runs each, interleaved).
 */
export const STAGED_ALLREDUCE_FROM = 32 * 1024;

/**
 * Small typed arrays (up to STAGED_WHOLE_MAX_BYTES) on a world of rank threads that outnumber the
 * cores (`crowded`) reduce through the staging regions from this many ranks: whole, in one
 * barrier (staged-reduction.ts), where recursive doubling's log2(p) rounds each wait for a partner
 * to be scheduled. 8 rank threads on 2 cores, us a call, medians of 4 runs interleaved
 * (`N=10000 OPS=barrier,allreduce LEN=1|256 tsmpi run -n N bench/ranks/collective-loops.ts`, the
 * rule's choice before it, recursive doubling, against TSMPI_COLL_ALLREDUCE=shared): 8 B 60.6 -> 30.3,
 * 2 KiB 86.1 -> 62.3; 4 rank threads 8 B 13.3 -> 14.4, 2 KiB 24.7 -> 25.0 (no gain: left to
 * recursive doubling).
 */
export const STAGED_SMALL_ALLREDUCE_RANKS = 5;

/**
 * A staged reduce-scatter stages a part of every block at a time: regions of 4 KiB (the least) hold
 * a BigInt64 element per rank up to this many ranks.
 */
export const STAGED_BLOCKS_MAX_RANKS = 512;

/**
 * reduceScatter arrays up to this many bytes go through the staging regions where 3 or more rank
 * threads of the world outnumber the cores (`crowded`): blocks averaging up to 2 KiB staged whole
 * in one barrier, larger ones a part of every block at a time. On 2 cores, us a call, medians of
 * 4 interleaved runs, the rule before (recursive halving, the ring from 256 KiB) against
 * TSMPI_COLL_REDUCESCATTER=shared (`tsmpi run -n N bench/ranks/collectives.ts SIZES`,
 * BENCH_OPS=reducescatter; sizes are the whole array): 8 rank threads 16 KiB 61.2 / 60.0, 64 KiB
 * 174 / 91.5, 256 KiB 700 / 384, 512 KiB 1374 / 914, 1 MiB 2728 / 1964, 4 MiB 9643 / 10494; 4
 * rank threads 64 KiB 46.1 / 33.5, 256 KiB 190 / 157, 1 MiB 838 / 598, 4 MiB 3671 / 4872.
 */
export const STAGED_REDUCE_SCATTER_CROWDED_MAX_BYTES = 1024 * 1024;

/**
 * reduceScatter arrays under this many bytes on more than 2 ranks reduce whole by recursive
 * doubling and keep their block: log2 p rounds where the ring waits for p - 1, each a wake-up of
 * the next rank (8 ranks on 2 cores, 8 bytes: 70-102 us a call in the ring against 16-20 for
 * Open MPI's recursive halving).
 */
export const REDUCE_SCATTER_DOUBLING_BELOW = 16 * 1024;

/**
 * reduceScatter arrays under this many bytes on a power-of-two count of ranks (more than 2) go by
 * recursive halving where the ring could run: log2 p rounds of the ring's volume. 8 rank threads
 * on 2 cores, us a call, ring against halving: 8 KiB 77-81 / 58-68, 64 KiB 133-184 / 104-123,
 * 256 KiB 361-402 / 323-389, 512 KiB 679-857 / 682-845, 1 MiB 1293-1508 / 1709-1847; 4 rank
 * threads: 8 KiB 20-22 / 15-19, 64 KiB 39-43 / 34-40, 256 KiB 100-154 / 100-117, 1 MiB 344-383 /
 * 644-831 (`tsmpi run -n N bench/ranks/collectives.ts SIZES` with BENCH_OPS=reducescatter and
 * TSMPI_COLL_REDUCESCATTER=recursive-halving or unset, 3 runs each, interleaved). Past it the
 * halving's first round, half the array each way, loses to the ring's smaller blocks.
 */
export const REDUCE_SCATTER_HALVING_BELOW = 256 * 1024;

/** True for 1, 2, 4, 8, ... ranks (the algorithms that pair rank r with r XOR 2^k need it). */
export function isPowerOfTwo(size: number): boolean {
  return size > 0 && (size & (size - 1)) === 0;
}

/**
 * reduceScatter: recursive halving on a power-of-two count of ranks (more than 2) for arrays under
 * REDUCE_SCATTER_HALVING_BELOW where the op allows it (commutative, with typed-array loops); other
 * small arrays on more than 2 ranks by recursive doubling (exact for any op); the ring where the
 * op allows it; reduce + scatterv otherwise and under SimGrid's rules (its default for equal
 * blocks). Every rank decides the same: the arrays' lengths agree.
 *
 * Through the staging regions when forced (TSMPI_COLL_REDUCESCATTER=shared, a world of rank
 * threads), and by default where the rank threads outnumber the cores (`crowded`) and the blocks
 * average at most STAGED_WHOLE_MAX_BYTES: the arrays go whole, in one barrier (staged-reduction.ts),
 * where recursive halving's rounds each wait for a partner to be scheduled (8 rank threads on 2
 * cores, bench/ranks/collective-loops.ts with OPS=barrier,reducescatter and LEN=1|256, the rule's
 * choice before it against TSMPI_COLL_REDUCESCATTER=shared; 8-byte blocks, us a call, medians of 4
 * interleaved runs: 83.7 -> 68.6 [31.2-107.4], 2 KiB
 * blocks 123 -> 103; 4 rank threads 17.8 -> 10.2, 29.0 -> 24.0). Larger arrays: each rank copies
 * its whole array in, where the ring sends (p - 1)/p of it, and the two barriers a region cost
 * more than the ring's rounds save except in a narrow band (8 rank threads on 2 cores, 64 KiB:
 * 127-169 us a call against 199-210 around the ring; 1 MiB 2068-2153 against 1841-2185; 4 rank
 * threads, 64 KiB: 63-99 against 32-47; `tsmpi run -n N bench/ranks/collectives.ts 65536
 * 1048576` with BENCH_OPS=reducescatter, 3 runs each).
 */
export function selectReduceScatter(settings: Settings, op: ReduceOp, size: number, bytes: number, data?: unknown, stagingAvailable = false, crowded = false): 'ring' | 'recursive-halving' | 'recursive-doubling' | 'reduce-scatterv' | 'shared' {
  const ringable = op.commutative && combinerTo(op) !== undefined;
  const choice = settings.collReduceScatter;
  if (choice === 'reduce-scatterv' || choice === 'recursive-doubling') return choice;
  if (choice === 'ring') return ringable ? 'ring' : 'reduce-scatterv';
  if (choice === 'recursive-halving') return ringable && isPowerOfTwo(size) ? 'recursive-halving' : ringable ? 'ring' : 'reduce-scatterv';
  // Looked at only when forced: this runs at every call, and a small call's checks add up.
  if (choice === 'shared') return stagingAvailable && size <= STAGED_BLOCKS_MAX_RANKS && stageableArray(data, op) ? 'shared' : ringable ? 'ring' : 'reduce-scatterv';
  if (settings.collRules === 'simgrid') return 'reduce-scatterv';
  if (crowded && stagingAvailable && size > 2 && size <= STAGED_BLOCKS_MAX_RANKS && bytes <= STAGED_REDUCE_SCATTER_CROWDED_MAX_BYTES && choice === 'auto' && stageableArray(data, op)) return 'shared';
  if (ringable && size > 2 && isPowerOfTwo(size) && bytes < REDUCE_SCATTER_HALVING_BELOW) return 'recursive-halving';
  if (size > 2 && bytes < REDUCE_SCATTER_DOUBLING_BELOW) return 'recursive-doubling';
  return ringable ? 'ring' : 'reduce-scatterv';
}

export function selectGather(settings: Settings): 'binomial' | 'linear' {
  const choice = settings.collGather;
  if (choice === 'linear' || choice === 'binomial') return choice;
  return simgridRules(settings) ? 'linear' : 'binomial';
}

export function selectScatter(settings: Settings): 'binomial' | 'linear' {
  const choice = settings.collScatter;
  if (choice === 'linear' || choice === 'binomial') return choice;
  return simgridRules(settings) ? 'linear' : 'binomial';
}

/** allgather of any values (TSMPI_COLL_ALLGATHER=shared is allgatherv's alone: Bruck here). */
export function selectAllgather(settings: Settings): 'bruck' | 'ring' | 'recursive-doubling' | 'linear' {
  const choice = settings.collAllgather;
  if (choice === 'ring' || choice === 'recursive-doubling' || choice === 'linear' || choice === 'bruck') return choice;
  return simgridRules(settings) ? 'linear' : 'bruck';
}

/**
 * allgatherv goes through the staging regions (staged-gather.ts) by default on a world of rank
 * threads of this process, from STAGED_GATHER_RANKS ranks once the largest block times the ranks
 * reaches STAGED_GATHER_FROM_TOTAL, and on 3 or more ranks from blocks of STAGED_GATHER_FROM_BLOCK.
 * On 2 cores, us a call, through the rounds (linear or ring, TSMPI_COLL_ALLGATHER=bruck) against
 * the regions (=shared or the default), 3-5 runs each, interleaved (`tsmpi run -n N
 * bench/ranks/collectives.ts SIZES` with BENCH_OPS=allgather; the size is the result's):
 * - 8 ranks: 8 KiB 38-58 / 60-85, 32 KiB 66-88 / 69-87, 64 KiB 83-151 / 68-128, 256 KiB 262-379
 *   / 194-250, 1 MiB 908-2055 / 398-945;
 * - 16 ranks: 8 KiB 176-277 / 202-301, 32 KiB 282-398 / 213-266, 64 KiB 465-594 / 200-286,
 *   1 MiB 2826-3308 / 1043-1316;
 * - 4 ranks: 64 KiB 19-43 / 27-56, 256 KiB 44-131 / 49-156, 1 MiB 166-913 / 152-557 and 186-234
 *   / 187-412, 2 MiB 305-481 / 289-499 and 314-1289 / 354-1028, 4 MiB 1237-2305 / 844-1835 and
 *   833-3281 / 1229-1804; 3 ranks: 1 MiB 135-213 / 183-446, 4 MiB 666-991 / 719-767.
 * Fewer ranks per core wait less for each round of the rings, and the barrier costs what the
 * rounds save until the blocks are large.
 */
export const STAGED_GATHER_RANKS = 8;
export const STAGED_GATHER_FROM_TOTAL = 64 * 1024;
export const STAGED_GATHER_FROM_BLOCK = 1024 * 1024;

/**
 * True when an allgatherv should go through the staging regions, where they are (the caller asks
 * that last: it looks at the group): forced (TSMPI_COLL_ALLGATHER=shared) or by the rule above;
 * never under SimGrid's rules or another forced algorithm. Every rank decides the same (the
 * counts agree).
 */
export function selectStagedGather(settings: Settings, size: number, largestBlockBytes: number, crowded = false): boolean {
  const choice = settings.collAllgather;
  if (choice === 'shared') return true;
  if (choice !== 'auto' || simgridRules(settings) || size < 3) return false;
  return (
    largestBlockBytes >= STAGED_GATHER_FROM_BLOCK ||
    (size >= STAGED_GATHER_RANKS && largestBlockBytes * size >= STAGED_GATHER_FROM_TOTAL) ||
    (crowded && largestBlockBytes <= STAGED_GATHER_CROWDED_MAX_BLOCK)
  );
}

/**
 * Blocks up to this many bytes also go through the staging regions where the rank threads
 * outnumber the cores (`crowded`): one barrier against rounds that each wait for ranks to be
 * scheduled. On 2 cores, us a call, medians of 3-4 interleaved runs, linear or ring against the
 * regions (`N=10000 OPS=barrier,allgather LEN=1|256|512|1024 tsmpi run -n N
 * bench/ranks/collective-loops.ts`, TSMPI_COLL_ALLGATHER=shared or unset; N=5000 at 512 and 1024): 8 ranks, blocks of 8 B 55.4 -> 33.8, 2 KiB 105 -> 41.2, 4 KiB 147 -> 54.3;
 * 4 ranks 8 B 12.0 -> 13.3, 2 KiB 24.8 -> 16.6, 4 KiB 29.2 -> 23.2, 8 KiB 35.5 -> 28.2.
 */
export const STAGED_GATHER_CROWDED_MAX_BLOCK = 8 * 1024;

/**
 * Blocks of allgatherv and alltoallv up to this many bytes go all at once. Ranks that wait for
 * each round paid for every round in scheduling: 8-byte blocks on 8 ranks on 2 cores took 76 us
 * (allgatherv) and 93 us (alltoallv) in rounds against 41 and 45 us posted at once, and 16 ranks
 * 310 and 599 us against 173 and 188 (`tsmpi run -n N bench/ranks/collectives.ts 8` with
 * TSMPI_COLL_RULES=tsmpi and simgrid, whose vector exchanges are linear); at 16 and 8 KiB blocks
 * neither won throughout.
 */
const VECTOR_LINEAR_MAX_BLOCK_BYTES = 1024;

/**
 * The same where every rank is a thread of one process that runs more rank threads than cores
 * (`crowded`): there each round waits for its partner to be scheduled, and a rank with every
 * transfer posted moves whichever can move whenever it runs. On 2 cores (`tsmpi run -n N
 * bench/ranks/collectives.ts 16384 65536 1048576`, BENCH_OPS=alltoall or allgather, rounds
 * against TSMPI_COLL_RULES=simgrid, whose vector exchanges are linear, 3 runs each, medians in
 * us): alltoallv on 4 ranks 24.1 / 52.4 / 645 in rounds against 18.0 / 42.7 / 580 at once, on 8
 * 101 / 134 / 891 against 53.1 / 85.4 / 937; allgatherv on 4 ranks 17.7 / 27.6 / 166 against
 * 10.9 / 17.0 / 157, on 8 83.2 / 102 / 632 against 50.1 / 78.8 / 1354 (blocks of a quarter and
 * an eighth of the sizes).
 */
const CROWDED_VECTOR_LINEAR_MAX_BLOCK_BYTES = 64 * 1024;

/**
 * allgatherv's and alltoallv's data: a ring / pairwise rounds, or every message posted at once
 * (small blocks, larger ones on a crowded process, and always under SimGrid's rules).
 * `largestBlockBytes`: allgatherv's from counts every rank has; alltoallv's from this rank's own
 * counts, which other ranks do not know, and may be: both of its variants send one message per
 * ordered pair with the call's tag, so ranks that chose differently still match. `crowded` is the
 * same on every rank.
 */
export function selectVectorExchange(settings: Settings, largestBlockBytes: number, crowded = false): 'rounds' | 'linear' {
  const linearUpTo = crowded ? CROWDED_VECTOR_LINEAR_MAX_BLOCK_BYTES : VECTOR_LINEAR_MAX_BLOCK_BYTES;
  return simgridRules(settings) || largestBlockBytes <= linearUpTo ? 'linear' : 'rounds';
}

/**
 * alltoallv goes through the staging regions (staged-exchange.ts) by default on a world of 3 or
 * more rank threads of this process that outnumber its cores (`crowded`), at every block size:
 * there each pairwise round waited for its partner to be scheduled, and messages posted at once
 * for a wake-up each. Forced by TSMPI_COLL_ALLTOALL=shared; never under SimGrid's rules or another
 * forced algorithm, nor where a region's half cannot hold a slot per rank (`slotBytes` 0). Each
 * rank's own counts are its alone, so the rule looks only at what every rank shares: the choice is
 * the same on all. On 2 cores, us a call, medians of 5 interleaved runs against the rule before
 * (TSMPI_COLL_ALLTOALL=pairwise; `node dist/cli/main.js run -n N bench/ranks/collectives.ts 8
 * 65536 1048576`, BENCH_OPS=alltoall): 8 ranks 50.5 -> 20.4, 152 -> 77.6, 1603 -> 1409; 4 ranks
 * 8.8 -> 6.7, 39.4 -> 20.8, 495 -> 377.
 */
export function selectStagedExchange(settings: Settings, size: number, slotBytes: number, crowded = false): boolean {
  if (slotBytes === 0) return false;
  const choice = settings.collAlltoall;
  if (choice === 'shared') return true;
  return choice === 'auto' && !simgridRules(settings) && size >= 3 && crowded;
}

/**
 * alltoall. Under SimGrid's rules the bytes per pair decide, which every rank knows the same only
 * for typed arrays (MPI's equal counts): other values take the basic linear algorithm.
 */
export function selectAlltoall(settings: Settings, size: number, values: readonly unknown[]): 'pairwise' | 'xor-pairwise' | 'bruck' | 'linear' {
  const choice = settings.collAlltoall;
  if (choice === 'xor-pairwise') return isPowerOfTwo(size) ? 'xor-pairwise' : 'pairwise';
  if (choice === 'pairwise' || choice === 'bruck' || choice === 'linear') return choice;
  if (!simgridRules(settings)) return 'pairwise';
  const first = values[0];
  if (!ArrayBuffer.isView(first)) return 'linear';
  const algorithm = simgridAlltoallAlgorithm(size, first.byteLength);
  if (algorithm === 'basic-linear') return 'linear';
  // SimGrid's pairwise needs a power of two (its replay aborts otherwise): basic linear here.
  if (algorithm === 'pairwise') return isPowerOfTwo(size) ? 'xor-pairwise' : 'linear';
  return 'bruck';
}

/** Which alltoall algorithm SimGrid 3.32's Open MPI decision picks, by ranks and bytes per pair. */
export function simgridAlltoallAlgorithm(n: number, bytesPerPair: number): 'basic-linear' | 'pairwise' | 'bruck' {
  const b = bytesPerPair;
  if (n === 2) {
    // The two-rank rule alternates; its table, from small to large blocks.
    const steps: [number, 'pairwise' | 'basic-linear'][] = [[2, 'pairwise'], [4, 'basic-linear'], [16, 'pairwise'], [64, 'basic-linear'], [256, 'pairwise'], [4096, 'basic-linear'], [32768, 'pairwise'], [1048576, 'basic-linear']];
    for (const [below, algorithm] of steps) if (b < below) return algorithm;
    return 'pairwise';
  }
  if (n < 8) return b >= 524288 && b < 1048576 ? 'pairwise' : 'basic-linear';
  if (n < 16) return 'basic-linear';
  if (n < 32) return b < 4 ? 'basic-linear' : b < 512 ? 'bruck' : 'basic-linear';
  if (n < 64) return b < 512 ? 'bruck' : 'basic-linear';
  if (n < 256) return b < 1024 ? 'bruck' : b < 262144 ? 'basic-linear' : 'pairwise';
  if (n < 512) return b < 1024 ? 'bruck' : b < 32768 ? 'basic-linear' : 'pairwise';
  if (n < 1024) return b < 512 ? 'bruck' : b < 262144 ? 'basic-linear' : 'pairwise';
  if (n < 2048) return b < 512 ? 'bruck' : 'basic-linear';
  if (n < 4096) return b < 1024 ? 'bruck' : 'basic-linear';
  return b < 2048 ? 'bruck' : 'basic-linear';
}
