/**
 * What a rank does, one action at a time: the vocabulary of SimGrid's time-independent (TI)
 * traces (`simgrid/simgrid:src/smpi/internals/smpi_replay.cpp`), as the replayer executes it on a
 * simulated communicator. A program is a `Map<rank, Action[]>`; ti-trace.ts reads and writes it
 * in SimGrid's text form, and the generators in ../workloads/ build it.
 *
 * ## Units (our reading of SimGrid)
 * SimGrid's TI sizes are *counts of a datatype*, not bytes: `send 1 0 1e6` is 1e6 elements of the
 * line's datatype. The datatype is an optional trailing id (SMPI's `Datatype::decode`: 0 double,
 * 1 int, 2 char, 3 short, 4 long, 5 float, 6 byte, ...); without one, the rank's default applies,
 * which `init` sets: `init` alone means MPI_BYTE (SimGrid's "TAU" default), `init <anything>`
 * means MPI_DOUBLE (the "MPE" default). The parser multiplies each count by its datatype's size
 * (LP64 sizes) once, so every size below is in **bytes**, and the writer emits bytes with no
 * datatype column after a bare `init`, which SimGrid reads back as MPI_BYTE: the same bytes.
 * Compute amounts (`compute`, and the reduction cost of `reduce`, `allreduce`, `reducescatter`)
 * are flops; `sleep` is seconds.
 *
 * ## Accepted lines: `<rank> <action> <args...>` (names are case-insensitive)
 * | action | arguments | meaning |
 * |---|---|---|
 * | init | `[x]` | start; any argument makes MPI_DOUBLE the default datatype |
 * | finalize | | end |
 * | comm_size | `<n>` | world size as the program saw it (no effect on replay) |
 * | comm_split, comm_dup | anything | accepted and ignored, as SimGrid does |
 * | location | `<file> <line>` | source position of what follows (no effect on replay) |
 * | compute | `<flops>` | compute this many flops on the rank's host |
 * | sleep | `<seconds>` | idle |
 * | send, isend | `<dst> <tag> <count> [dt]` (SimGrid >= 3.22) or `<dst> <count>` (older, tag 0) | blocking / non-blocking send |
 * | recv, irecv | `<src> <tag> <count> [dt]` or `<src> <count>` | receive; src -555 (SMPI's MPI_ANY_SOURCE) or -1 = any source, tag -444 or -1 = any tag, count <= 0 = size unknown |
 * | wait, test | `<src> <dst> <tag>`, or nothing (older traces: the rank's last isend/irecv) | complete / poll one request, named by its (src, dst, tag) |
 * | waitall | `[n]` | complete every outstanding request of the rank (n, the count the program passed, is ignored as SimGrid does) |
 * | sendRecv | `<sendcount> <dst> <recvcount> <src> [senddatatype [recvdatatype]]` | MPI_Sendrecv, tag 0 (the tracer records none) |
 * | barrier | | |
 * | bcast | `<count> [root [dt]]` | root defaults to 0 |
 * | reduce | `<count> <flops> [root [dt]]` | |
 * | allreduce | `<count> <flops> [dt]` | |
 * | alltoall | `<sendcount> <recvcount> [dt1 [dt2]]` | counts per peer |
 * | allgather | `<sendcount> <recvcount> [dt1 [dt2]]` | recvcount per rank |
 * | gather, scatter | `<sendcount> <recvcount> [root [dt1 [dt2]]]` | per-rank counts |
 * | gatherv | `<sendcount> <recvcount x n> [root [dt1 [dt2]]]` | n = world size |
 * | allgatherv | `<sendcount> <recvcount x n> [dt [dt2]] / [disp x n] / [dt disp x n]` | one datatype for both sides, as SimGrid reads it; displacements ignored |
 * | scatterv | `<sendcount x n> <recvcount> [root [dt1 [dt2]]]` | |
 * | alltoallv | `<sendbuf> <sendcount x n> <recvbuf> <recvcount x n> [dt1 dt2]` | buffer sizes are ignored (the writer emits the sums) |
 * | reducescatter | `<recvcount x n> <flops> [dt]` | |
 *
 * Any negative source of a receive, wait or test is MPI_ANY_SOURCE (SimGrid 3.32's tracer writes
 * -333, SMPI's own value is -555).
 *
 * Not accepted: scan/exscan and anything else SimGrid's replayer does not register; the actions
 * SimGrid 3.32's tracer writes but its replayer refuses (Ssend, ISsend, bsend, Start, testany,
 * waitAny) are refused with their own message.
 */

/** `src` of a receive that takes a message from any rank. SMPI writes MPI_ANY_SOURCE as -555. */
export const ANY_SOURCE = -1;
/** `tag` of a receive that takes any tag. SMPI writes MPI_ANY_TAG as -444. */
export const ANY_TAG = -1;

export interface ComputeAction {
  op: 'compute';
  flops: number;
}
export interface SleepAction {
  op: 'sleep';
  seconds: number;
}
/** A send; the blocking form returns when the message is handed over (by the protocol's rules). */
export interface SendAction {
  op: 'send' | 'isend';
  dst: number;
  tag: number;
  bytes: number;
}
/** A receive. `bytes <= 0` means the size is not known in advance (SimGrid probes for it). */
export interface RecvAction {
  op: 'recv' | 'irecv';
  /** A rank, or {@link ANY_SOURCE}. */
  src: number;
  /** A tag, or {@link ANY_TAG}. */
  tag: number;
  bytes: number;
}
/** MPI_Sendrecv: a send to `dst` and a receive from `src`, both with tag 0. */
export interface SendRecvAction {
  op: 'sendrecv';
  dst: number;
  sendBytes: number;
  /** A rank, or {@link ANY_SOURCE}. */
  src: number;
  recvBytes: number;
}
/**
 * Waits for (or polls) the rank's outstanding request with this (src, dst, tag): an isend of
 * this rank has `src` = the rank, an irecv has `dst` = the rank.
 */
export interface WaitAction {
  op: 'wait' | 'test';
  src: number;
  dst: number;
  tag: number;
}
export interface PlainAction {
  op: 'init' | 'finalize' | 'waitall' | 'barrier' | 'comm_split' | 'comm_dup';
}
export interface CommSizeAction {
  op: 'comm_size';
  size: number;
}
export interface LocationAction {
  op: 'location';
  file: string;
  line: number;
}
export interface BcastAction {
  op: 'bcast';
  bytes: number;
  root: number;
}
export interface ReduceAction {
  op: 'reduce';
  bytes: number;
  flops: number;
  root: number;
}
export interface AllreduceAction {
  op: 'allreduce';
  bytes: number;
  flops: number;
}
/** alltoall: bytes to and from each peer; allgather: bytes sent, and received from each rank. */
export interface AllExchangeAction {
  op: 'alltoall' | 'allgather';
  sendBytes: number;
  recvBytes: number;
}
/** gather: `recvBytes` per rank, at the root; scatter: `sendBytes` per rank, from the root. */
export interface RootedExchangeAction {
  op: 'gather' | 'scatter';
  sendBytes: number;
  recvBytes: number;
  root: number;
}
export interface GathervAction {
  op: 'gatherv';
  sendBytes: number;
  /** From each rank, at the root (one entry per rank). */
  recvBytes: number[];
  root: number;
}
export interface AllgathervAction {
  op: 'allgatherv';
  sendBytes: number;
  recvBytes: number[];
}
export interface ScattervAction {
  op: 'scatterv';
  /** To each rank, from the root. */
  sendBytes: number[];
  recvBytes: number;
  root: number;
}
export interface AlltoallvAction {
  op: 'alltoallv';
  /** To each rank. */
  sendBytes: number[];
  /** From each rank. */
  recvBytes: number[];
}
export interface ReduceScatterAction {
  op: 'reducescatter';
  /** The block each rank ends with. */
  recvBytes: number[];
  /** Bytes of one element (SimGrid picks the algorithm by element count). @default 1 */
  elementBytes?: number;
  flops: number;
}

export type Action =
  | ComputeAction
  | SleepAction
  | SendAction
  | RecvAction
  | WaitAction
  | SendRecvAction
  | PlainAction
  | CommSizeAction
  | LocationAction
  | BcastAction
  | ReduceAction
  | AllreduceAction
  | AllExchangeAction
  | RootedExchangeAction
  | GathervAction
  | AllgathervAction
  | ScattervAction
  | AlltoallvAction
  | ReduceScatterAction;

export type ActionOp = Action['op'];

/** Every rank of the world takes part in these, in the same order. */
export const COLLECTIVE_OPS: ReadonlySet<ActionOp> = new Set<ActionOp>([
  'barrier', 'bcast', 'reduce', 'allreduce', 'alltoall', 'allgather', 'gather', 'scatter',
  'gatherv', 'allgatherv', 'scatterv', 'alltoallv', 'reducescatter',
]);

/** Every op name, as SimGrid registers it (lower case). */
export const ACTION_OPS: readonly ActionOp[] = [
  'init', 'finalize', 'comm_size', 'comm_split', 'comm_dup', 'location', 'compute', 'sleep',
  'send', 'isend', 'recv', 'irecv', 'sendrecv', 'wait', 'test', 'waitall', ...COLLECTIVE_OPS,
];

export function isCollective(action: Action): boolean {
  return COLLECTIVE_OPS.has(action.op);
}

/** The root of a rooted collective, or undefined. */
export function rootOf(action: Action): number | undefined {
  return 'root' in action ? action.root : undefined;
}
