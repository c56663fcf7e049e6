/**
 * Checks that the ranks' adjacency lists of a distributed graph agree: an edge a -> b must be in
 * a's destinations and in b's sources, as many times in each. A graph that disagrees would make
 * a neighbour collective wait forever for a message nobody sends, so creation checks it and the
 * graph keeps the answer: MPI implementations accept such a graph (mpi4py's tests make one to
 * read its counts), and its neighbour collectives then fail at once instead of waiting.
 *
 * The common case costs one allreduce of three numbers: every edge has three 20-bit hashes, each
 * rank adds those of its out-edges and subtracts those of its in-edges, and the sums over all
 * ranks are zero when the lists agree (a disagreement goes unseen with odds of about 2^-60; sums
 * stay exact integers below 2^53 up to 2^33 edges). Only when they are not zero does an
 * alltoall of edge counts find the first disagreement to name it, on every rank alike.
 */
import type { Communicator } from '../communicator.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { Op } from '../ops.js';

const SEEDS = [0x9e3779b9, 0x85ebca6b, 0xc2b2ae35];

function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

function addEdge(sums: Float64Array, from: number, to: number, sign: number): void {
  for (let i = 0; i < SEEDS.length; i++) sums[i] += sign * (mix(mix(from ^ SEEDS[i]!) ^ to) & 0xfffff);
}

/** What disagrees, the same on every rank (the first disagreement found), or undefined when the ranks' lists agree. */
export async function checkEdges(comm: Communicator, sources: readonly number[], destinations: readonly number[]): Promise<string | undefined> {
  const sums = new Float64Array(SEEDS.length);
  for (const to of destinations) addEdge(sums, comm.rank, to, 1);
  for (const from of sources) addEdge(sums, from, comm.rank, -1);
  const total = await comm.allreduce(sums, Op.sum);
  if (total.every((x) => x === 0)) return undefined;
  const declared = new Array<number>(comm.size).fill(0);
  for (const to of destinations) declared[to]++;
  const fromEach = await comm.alltoall(declared);
  const expected = new Array<number>(comm.size).fill(0);
  for (const from of sources) expected[from]++;
  let problem: string | undefined;
  for (let r = 0; r < comm.size && problem === undefined; r++) {
    if (fromEach[r] !== expected[r]) {
      problem = `rank ${r} declares ${edges(fromEach[r]!)} to rank ${comm.rank} (its destinations), but rank ${comm.rank} declares ${edges(expected[r]!)} from rank ${r} (its sources)`;
    }
  }
  const problems = await comm.allgather(problem);
  return problems.find((p) => p !== undefined) ?? "the ranks' sources and destinations disagree";
}

/** The error of a neighbour collective on a graph whose lists disagree (`problem`, from checkEdges). */
export function inconsistentGraph(comm: Communicator, problem: string, operation: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, `the graph is inconsistent: ${problem}, so ${operation} would wait for a message nobody sends`, {
    rank: comm.worldRankOf(comm.rank),
    operation,
    hint: "an edge a -> b must be in a's destinations and in b's sources, the same number of times (createDistGraphAdjacent)",
  });
}

function edges(n: number): string {
  return n === 1 ? '1 edge' : `${n} edges`;
}
