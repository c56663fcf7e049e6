/**
 * Reading and writing SimGrid time-independent (TI) traces: `<rank> <action> <args...>` per line
 * (the accepted actions and argument forms are listed in actions.ts). Blank lines and lines that
 * start with `#` are skipped, as SimGrid's reader does. Every error names `file:line` and says
 * what to write instead.
 *
 * Two layouts, as `smpirun -replay` takes them:
 * - one file holding the lines of every rank, in any interleaving;
 * - a description file listing one trace file per line, the i-th for rank i (paths relative to
 *   the description's folder, else to the working directory as SimGrid has it). Each rank's file
 *   still starts every line with the rank; lines for other ranks are skipped, as SimGrid does.
 *
 * The writer emits SimGrid's current argument order (send/recv with a tag, wait/test with
 * src dst tag), lower-case names and sizes in bytes with no datatype column, so the output
 * replays in SimGrid as it does here, and `parseTiTrace(formatTiTrace(x))` gives x back.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ErrorCode, TsmpiError } from '../../errors.js';
import { ACTION_OPS, ANY_SOURCE, ANY_TAG, type Action } from './actions.js';
import {
  DEFAULT_DATATYPE_SIZE, INIT_ARG_DATATYPE_SIZE, SMPI_ANY_SOURCE, SMPI_ANY_TAG, SMPI_DATATYPE_SIZES,
  firstToken, forEachLine, formatNumber, meaningfulLines, parseDecimal, parseInteger, tokenize,
} from './ti-tokens.js';

export interface ParseOptions {
  /** World size, which the v-collectives need (one count per rank). Default: highest rank + 1. */
  worldSize?: number;
  /** Keep only this rank's lines (a per-rank file of the split layout); skip the others. */
  rank?: number;
  /** Told once per text when lines of other ranks were skipped (SimGrid warns too). */
  warn?: (message: string) => void;
}

/** Actions SimGrid 3.32's tracer writes that its replayer refuses, by lower-case name. */
const TRACED_NOT_REPLAYED: ReadonlyMap<string, string> = new Map([
  ['ssend', 'Ssend'], ['issend', 'ISsend'], ['bsend', 'bsend'], ['start', 'Start'], ['testany', 'testany'], ['waitany', 'waitAny'],
]);

const OPERATION = 'parse TI trace';
const P2P_FORM = '<peer> <tag> <count> [datatype] (or <peer> <count> as in traces before SimGrid 3.22)';

interface Outstanding { src: number; dst: number; tag: number }
interface RankState { dtype: number; outstanding: Outstanding[] }

/** One line being read, with the helpers that turn its arguments into values or errors. */
class Line {
  private readonly source: string;
  private readonly no: number;
  private readonly args: string[];
  readonly name: string;
  readonly rank: number;
  readonly world: number;

  constructor(source: string, no: number, rank: number, tokens: string[], world: number) {
    this.source = source;
    this.no = no;
    this.rank = rank;
    this.name = tokens[1]!.toLowerCase();
    this.args = tokens.slice(2);
    this.world = world;
  }

  get count(): number {
    return this.args.length;
  }

  fail(message: string, hint: string): never {
    throw new TsmpiError(ErrorCode.Config, `${this.source}:${this.no}: ${message}`, { operation: OPERATION, hint });
  }

  arity(min: number, max: number, form: string): void {
    if (this.args.length < min || this.args.length > max) {
      const got = this.args.length === 1 ? '1 argument' : `${this.args.length} arguments`;
      this.fail(`${this.name} takes ${form}, got ${got}`, `write "${this.rank} ${this.name} ${form}"`);
    }
  }

  text(i: number): string {
    return this.args[i]!;
  }

  int(i: number, what: string, min = -Infinity, max = Infinity): number {
    const value = parseInteger(this.args[i]!);
    if (value === undefined || value < min || value > max) {
      const range = max === Infinity ? (min === -Infinity ? 'an integer' : `an integer >= ${min}`) : `an integer in ${min}..${max}`;
      this.fail(`${this.name}: ${what} must be ${range}, got "${this.args[i]}"`, `argument ${i + 1} of ${this.name} is the ${what}`);
    }
    return value;
  }

  /** A rank of the world; with `any`, any negative value (SMPI's -555, the tracer's -333, -1) is any source. */
  peer(i: number, what: string, any = false): number {
    const value = this.int(i, what);
    if (any && value < 0) return ANY_SOURCE;
    if (value < 0 || value >= this.world) {
      this.fail(`${this.name}: ${what} ${value} is not a rank of this ${this.world}-rank trace`, `ranks are 0..${this.world - 1}${any ? '; -555 (MPI_ANY_SOURCE) means any source' : ''}`);
    }
    return value;
  }

  tag(i: number, any: boolean): number {
    const value = this.int(i, 'tag');
    if (any && (value === ANY_TAG || value === SMPI_ANY_TAG)) return ANY_TAG;
    if (value < 0) this.fail(`${this.name}: tag must be >= 0, got ${value}`, any ? 'use -444 (MPI_ANY_TAG) for any tag' : 'MPI tags are non-negative');
    return value;
  }

  /** A non-negative decimal (a count, flops or seconds). */
  amount(i: number, what: string): number {
    const value = parseDecimal(this.args[i]!);
    if (value === undefined || value < 0) {
      this.fail(`${this.name}: ${what} must be a non-negative number, got "${this.args[i]}"`, `argument ${i + 1} of ${this.name} is the ${what}, e.g. 1e6`);
    }
    return value === 0 ? 0 : value;
  }

  /** A receive's count: any number; zero or less means "size unknown" (SimGrid probes) and reads as 0. */
  receiveCount(i: number): number {
    const value = parseDecimal(this.args[i]!);
    if (value === undefined) this.fail(`${this.name}: count must be a number, got "${this.args[i]}"`, `argument ${i + 1} of ${this.name} is the count, e.g. 1e6 (0 or less: size unknown)`);
    return value > 0 ? value : 0;
  }

  /** The size of the datatype named at argument i, or the rank's default when there is none. */
  dtype(i: number, state: RankState): number {
    if (i >= this.args.length) return state.dtype;
    const id = parseInteger(this.args[i]!);
    const known = id === undefined ? undefined : SMPI_DATATYPE_SIZES.get(id);
    if (known === undefined) {
      this.fail(`${this.name}: unknown datatype id "${this.args[i]}"`, 'SMPI datatype ids: 0 double, 1 int, 2 char, 3 short, 4 long, 5 float, 6 byte, ... 37; leave it out for the default');
    }
    return known.size;
  }

  /** n integer counts from argument `start` on (SimGrid reads these with stoi). */
  counts(start: number, n: number, what: string): number[] {
    const out: number[] = [];
    for (let k = 0; k < n; k++) out.push(this.int(start + k, `${what} ${k}`, 0));
    return out;
  }
}

/** The rank a line starts with, or an error naming the line. */
function lineRank(source: string, no: number, token: string): number {
  const rank = parseInteger(token);
  if (rank === undefined || rank < 0) {
    throw new TsmpiError(ErrorCode.Config, `${source}:${no}: a line must start with a rank (an integer >= 0), got "${token}"`, { operation: OPERATION, hint: 'write "<rank> <action> <args...>", e.g. "0 compute 1e9"' });
  }
  return rank;
}

/**
 * Reads one TI trace text: the lines of one or several ranks, in any interleaving. Every rank
 * below the world size gets an entry (with `rank`, only that one).
 */
export function parseTiTrace(text: string, source: string, options: ParseOptions = {}): Map<number, Action[]> {
  let world = options.worldSize;
  if (world === undefined) {
    let maxRank = -1;
    forEachLine(text, (no, line) => { maxRank = Math.max(maxRank, lineRank(source, no, firstToken(line))); });
    world = maxRank + 1;
  }
  const n = world;
  const out = new Map<number, Action[]>();
  const states = new Map<number, RankState>();
  if (options.rank === undefined) {
    for (let r = 0; r < n; r++) out.set(r, []);
  } else {
    out.set(options.rank, []);
  }
  let skipped = 0;
  let firstSkipped = 0;
  forEachLine(text, (no, text) => {
    const tokens = tokenize(text);
    const rank = lineRank(source, no, tokens[0]!);
    if (options.rank !== undefined && rank !== options.rank) {
      if (skipped++ === 0) firstSkipped = no;
      return;
    }
    if (tokens.length < 2) {
      throw new TsmpiError(ErrorCode.Config, `${source}:${no}: rank ${rank} has no action`, { operation: OPERATION, hint: `write "<rank> <action> <args...>"; actions: ${ACTION_OPS.join(', ')}` });
    }
    const line = new Line(source, no, rank, tokens, n);
    if (rank >= n) line.fail(`rank ${rank} is outside the ${n}-rank world`, `this trace is read as ${n} ranks; its lines must start with 0..${n - 1}`);
    let state = states.get(rank);
    if (state === undefined) {
      state = { dtype: DEFAULT_DATATYPE_SIZE, outstanding: [] };
      states.set(rank, state);
    }
    out.get(rank)!.push(parseAction(line, state));
  });
  if (skipped > 0) options.warn?.(`tsmpi sim: ${source}: ${skipped} line${skipped === 1 ? '' : 's'} of other ranks skipped (the first at line ${firstSkipped}): this file is rank ${options.rank}'s`);
  return out;
}

function parseAction(line: Line, state: RankState): Action {
  const n = line.world;
  const me = line.rank;
  switch (line.name) {
    case 'init':
      line.arity(0, 1, '[default-is-double]');
      if (line.count === 1) state.dtype = INIT_ARG_DATATYPE_SIZE;
      return { op: 'init' };
    case 'finalize':
    case 'barrier':
      line.arity(0, 0, '(no arguments)');
      return { op: line.name };
    case 'waitall':
      // SimGrid writes the call's request count; its replayer waits for every outstanding request.
      line.arity(0, 1, '[count]');
      if (line.count === 1) line.int(0, 'request count', 0);
      state.outstanding.length = 0;
      return { op: 'waitall' };
    case 'sendrecv': {
      line.arity(4, 6, '<sendcount> <dst> <recvcount> <src> [senddatatype [recvdatatype]]');
      const dst = line.peer(1, 'destination');
      const src = line.peer(3, 'source', true);
      return { op: 'sendrecv', sendBytes: line.amount(0, 'send count') * line.dtype(4, state), dst, recvBytes: line.receiveCount(2) * line.dtype(5, state), src };
    }
    case 'comm_split':
    case 'comm_dup':
      return { op: line.name };
    case 'comm_size':
      line.arity(1, 1, '<size>');
      return { op: 'comm_size', size: line.int(0, 'size', 1) };
    case 'location':
      line.arity(2, 2, '<file> <line>');
      return { op: 'location', file: line.text(0), line: line.int(1, 'line', 0) };
    case 'compute':
      line.arity(1, 1, '<flops>');
      return { op: 'compute', flops: line.amount(0, 'flops') };
    case 'sleep':
      line.arity(1, 1, '<seconds>');
      return { op: 'sleep', seconds: line.amount(0, 'seconds') };
    case 'send':
    case 'isend':
    case 'recv':
    case 'irecv': {
      const isRecv = line.name === 'recv' || line.name === 'irecv';
      line.arity(2, 4, P2P_FORM);
      const legacy = line.count === 2;
      const peer = line.peer(0, isRecv ? 'source' : 'destination', isRecv);
      const tag = legacy ? 0 : line.tag(1, isRecv);
      const count = isRecv ? line.receiveCount(legacy ? 1 : 2) : line.amount(legacy ? 1 : 2, 'count');
      const bytes = count * line.dtype(legacy ? 2 : 3, state);
      if (line.name === 'isend') state.outstanding.push({ src: me, dst: peer, tag });
      if (line.name === 'irecv') state.outstanding.push({ src: peer, dst: me, tag });
      return isRecv ? { op: line.name as 'recv' | 'irecv', src: peer, tag, bytes } : { op: line.name as 'send' | 'isend', dst: peer, tag, bytes };
    }
    case 'wait':
    case 'test': {
      const op = line.name;
      line.arity(0, 3, '<src> <dst> <tag> (or nothing, for the last isend/irecv, as in traces before SimGrid 3.22)');
      if (line.count === 0) {
        const last = state.outstanding[state.outstanding.length - 1];
        if (last === undefined) line.fail(`${op} not preceded by any isend or irecv`, `rank ${me} has no outstanding request here; remove the ${op} or add the isend/irecv it completes`);
        if (op === 'wait') state.outstanding.pop();
        return { op, ...last };
      }
      line.arity(3, 3, '<src> <dst> <tag>');
      const key = { src: line.peer(0, 'source', true), dst: line.peer(1, 'destination'), tag: line.tag(2, true) };
      const at = state.outstanding.findIndex((o) => o.src === key.src && o.dst === key.dst && o.tag === key.tag);
      if (op === 'wait' && at >= 0) state.outstanding.splice(at, 1);
      return { op, ...key };
    }
    case 'bcast':
      line.arity(1, 3, '<count> [root [datatype]]');
      return { op: 'bcast', bytes: line.amount(0, 'count') * line.dtype(2, state), root: line.count > 1 ? line.peer(1, 'root') : 0 };
    case 'reduce':
      line.arity(2, 4, '<count> <flops> [root [datatype]]');
      return { op: 'reduce', bytes: line.amount(0, 'count') * line.dtype(3, state), flops: line.amount(1, 'flops'), root: line.count > 2 ? line.peer(2, 'root') : 0 };
    case 'allreduce':
      line.arity(2, 3, '<count> <flops> [datatype]');
      return { op: 'allreduce', bytes: line.amount(0, 'count') * line.dtype(2, state), flops: line.amount(1, 'flops') };
    case 'alltoall':
    case 'allgather':
      line.arity(2, 4, '<sendcount> <recvcount> [senddatatype [recvdatatype]]');
      return { op: line.name, sendBytes: line.amount(0, 'send count') * line.dtype(2, state), recvBytes: line.amount(1, 'receive count') * line.dtype(3, state) };
    case 'gather':
    case 'scatter':
      line.arity(2, 5, '<sendcount> <recvcount> [root [senddatatype [recvdatatype]]]');
      return {
        op: line.name, sendBytes: line.amount(0, 'send count') * line.dtype(3, state),
        recvBytes: line.amount(1, 'receive count') * line.dtype(4, state), root: line.count > 2 ? line.peer(2, 'root') : 0,
      };
    case 'gatherv': {
      line.arity(1 + n, 4 + n, `<sendcount> <${n} recvcounts> [root [senddatatype [recvdatatype]]]`);
      const recv = line.counts(1, n, 'receive count').map((c) => c * line.dtype(3 + n, state));
      return { op: 'gatherv', sendBytes: line.amount(0, 'send count') * line.dtype(2 + n, state), recvBytes: recv, root: line.count > 1 + n ? line.peer(1 + n, 'root') : 0 };
    }
    case 'allgatherv': {
      line.arity(1 + n, 2 + 2 * n, `<sendcount> <${n} recvcounts> [datatype [datatype]] or [${n} displacements] or [datatype ${n} displacements]`);
      // As SimGrid reads it: more than n values after the counts = a datatype then displacements,
      // more than 2 = displacements, 1 or 2 = a datatype (the first) for both sides.
      const trailing = line.count - 1 - n;
      let size = state.dtype;
      if (trailing > n) {
        size = line.dtype(1 + n, state);
        line.counts(2 + n, n, 'displacement');
      } else if (trailing > 2) {
        if (trailing !== n) line.fail(`allgatherv: ${trailing} values after the receive counts`, `give a datatype, ${n} displacements, or a datatype and ${n} displacements`);
        line.counts(1 + n, n, 'displacement');
      } else if (trailing > 0) {
        size = line.dtype(1 + n, state);
        if (trailing === 2) line.dtype(2 + n, state);
      }
      return { op: 'allgatherv', sendBytes: line.amount(0, 'send count') * size, recvBytes: line.counts(1, n, 'receive count').map((c) => c * size) };
    }
    case 'scatterv': {
      line.arity(1 + n, 4 + n, `<${n} sendcounts> <recvcount> [root [senddatatype [recvdatatype]]]`);
      const send = line.counts(0, n, 'send count').map((c) => c * line.dtype(2 + n, state));
      return { op: 'scatterv', sendBytes: send, recvBytes: line.amount(n, 'receive count') * line.dtype(3 + n, state), root: line.count > 1 + n ? line.peer(1 + n, 'root') : 0 };
    }
    case 'alltoallv': {
      line.arity(2 + 2 * n, 4 + 2 * n, `<sendbuf> <${n} sendcounts> <recvbuf> <${n} recvcounts> [senddatatype recvdatatype]`);
      if (line.count === 3 + 2 * n) line.fail('alltoallv: one datatype given, SimGrid reads both or none', 'write both the send and the receive datatype, or neither');
      line.amount(0, 'send buffer size');
      line.amount(1 + n, 'receive buffer size');
      const send = line.counts(1, n, 'send count').map((c) => c * line.dtype(2 + 2 * n, state));
      const recv = line.counts(2 + n, n, 'receive count').map((c) => c * line.dtype(3 + 2 * n, state));
      return { op: 'alltoallv', sendBytes: send, recvBytes: recv };
    }
    case 'reducescatter': {
      line.arity(1 + n, 2 + n, `<${n} recvcounts> <flops> [datatype]`);
      const size = line.dtype(1 + n, state);
      return { op: 'reducescatter', recvBytes: line.counts(0, n, 'receive count').map((c) => c * size), flops: line.amount(n, 'flops'), ...(size !== 1 ? { elementBytes: size } : {}) };
    }
    default: {
      const traced = TRACED_NOT_REPLAYED.get(line.name);
      if (traced !== undefined) {
        line.fail(`${traced} is written by SimGrid's tracer but replayed neither by SimGrid 3.32 nor here`, `trace a program that uses ${traced === 'ISsend' ? 'MPI_Isend' : traced === 'Ssend' || traced === 'bsend' ? 'MPI_Send' : traced === 'Start' ? 'MPI_Isend/MPI_Irecv instead of persistent requests' : 'MPI_Waitall/MPI_Wait'} instead, or edit the line into a replayable action (${ACTION_OPS.join(', ')})`);
      }
      return line.fail(`unknown action "${line.name}"`, `SimGrid's replayer knows: ${ACTION_OPS.join(', ')}`);
    }
  }
}

/** Where an action sits, for the writer's errors (built only when one is thrown). */
interface Place { rank: number; index: number; action: Action }

function unwritable(at: Place, what: string, value: unknown): never {
  const where = at.rank >= 0 ? `rank ${at.rank} action ${at.index}` : 'action';
  throw new TsmpiError(ErrorCode.Config, `${where} (${at.action.op}): ${what} cannot be written to a TI trace, got ${JSON.stringify(value)}`, {
    operation: 'format TI trace',
    hint: 'ranks, tags, roots and v-collective sizes are non-negative integers; other sizes, flops and seconds are finite numbers >= 0',
  });
}

/** A non-negative integer; with `any`, -1 is written as SMPI's wildcard value `any`. */
function wInt(at: Place, v: number, what: string, any?: number): string {
  if (any !== undefined && v === -1) return String(any);
  return Number.isSafeInteger(v) && v >= 0 ? String(v) : unwritable(at, what, v);
}

function wNum(at: Place, v: number, what: string): string {
  return Number.isFinite(v) && v >= 0 ? formatNumber(v) : unwritable(at, what, v);
}

function wList(at: Place, vs: number[], what: string, world: number | undefined): string {
  if (world !== undefined && vs.length !== world) unwritable(at, `${what} (one per rank of ${world})`, vs);
  let out = '';
  for (let i = 0; i < vs.length; i++) out += (i > 0 ? ' ' : '') + wInt(at, vs[i]!, what);
  return out;
}

function wSum(vs: number[]): string {
  let sum = 0;
  for (const v of vs) sum += v;
  return formatNumber(sum);
}

/** One action as the text after the rank: SimGrid's current argument order, sizes in bytes. */
export function formatAction(action: Action, world?: number): string {
  return writeAction({ rank: -1, index: -1, action }, world);
}

function writeAction(at: Place, world: number | undefined): string {
  const a = at.action;
  switch (a.op) {
    case 'init': case 'finalize': case 'waitall': case 'barrier': case 'comm_split': case 'comm_dup':
      return a.op;
    case 'comm_size': return `comm_size ${wInt(at, a.size, 'size')}`;
    case 'location': return /^\S+$/.test(a.file) ? `location ${a.file} ${wInt(at, a.line, 'line')}` : unwritable(at, 'file', a.file);
    case 'compute': return `compute ${wNum(at, a.flops, 'flops')}`;
    case 'sleep': return `sleep ${wNum(at, a.seconds, 'seconds')}`;
    case 'send': case 'isend': return `${a.op} ${wInt(at, a.dst, 'dst')} ${wInt(at, a.tag, 'tag')} ${wNum(at, a.bytes, 'bytes')}`;
    case 'recv': case 'irecv': return `${a.op} ${wInt(at, a.src, 'src', SMPI_ANY_SOURCE)} ${wInt(at, a.tag, 'tag', SMPI_ANY_TAG)} ${wNum(at, Math.max(0, a.bytes), 'bytes')}`;
    case 'sendrecv': return `sendRecv ${wNum(at, a.sendBytes, 'sendBytes')} ${wInt(at, a.dst, 'dst')} ${wNum(at, Math.max(0, a.recvBytes), 'recvBytes')} ${wInt(at, a.src, 'src', SMPI_ANY_SOURCE)}`;
    case 'wait': case 'test': return `${a.op} ${wInt(at, a.src, 'src', SMPI_ANY_SOURCE)} ${wInt(at, a.dst, 'dst')} ${wInt(at, a.tag, 'tag', SMPI_ANY_TAG)}`;
    case 'bcast': return `bcast ${wNum(at, a.bytes, 'bytes')} ${wInt(at, a.root, 'root')}`;
    case 'reduce': return `reduce ${wNum(at, a.bytes, 'bytes')} ${wNum(at, a.flops, 'flops')} ${wInt(at, a.root, 'root')}`;
    case 'allreduce': return `allreduce ${wNum(at, a.bytes, 'bytes')} ${wNum(at, a.flops, 'flops')}`;
    case 'alltoall': case 'allgather': return `${a.op} ${wNum(at, a.sendBytes, 'sendBytes')} ${wNum(at, a.recvBytes, 'recvBytes')}`;
    case 'gather': case 'scatter': return `${a.op} ${wNum(at, a.sendBytes, 'sendBytes')} ${wNum(at, a.recvBytes, 'recvBytes')} ${wInt(at, a.root, 'root')}`;
    case 'gatherv': return `gatherv ${wNum(at, a.sendBytes, 'sendBytes')} ${wList(at, a.recvBytes, 'recvBytes', world)} ${wInt(at, a.root, 'root')}`;
    case 'allgatherv': return `allgatherv ${wNum(at, a.sendBytes, 'sendBytes')} ${wList(at, a.recvBytes, 'recvBytes', world)}`;
    case 'scatterv': return `scatterv ${wList(at, a.sendBytes, 'sendBytes', world)} ${wNum(at, a.recvBytes, 'recvBytes')} ${wInt(at, a.root, 'root')}`;
    case 'alltoallv': return `alltoallv ${wSum(a.sendBytes)} ${wList(at, a.sendBytes, 'sendBytes', world)} ${wSum(a.recvBytes)} ${wList(at, a.recvBytes, 'recvBytes', world)}`;
    case 'reducescatter': return `reducescatter ${wList(at, a.recvBytes, 'recvBytes', world)} ${wNum(at, a.flops, 'flops')}`;
  }
}

/** Writes a whole program as one TI trace file, rank by rank (SimGrid's one-file layout). */
export function formatTiTrace(actions: ReadonlyMap<number, readonly Action[]>, worldSize?: number): string {
  const ranks = [...actions.keys()].sort((a, b) => a - b);
  const world = worldSize ?? (ranks.length === 0 ? 0 : ranks[ranks.length - 1]! + 1);
  const out = [`# SimGrid time-independent trace written by tsmpi: ${world} ranks, sizes in bytes (MPI_BYTE after a bare init)`];
  for (const rank of ranks) {
    if (!Number.isSafeInteger(rank) || rank < 0) throw new TsmpiError(ErrorCode.Config, `rank ${rank} cannot be written to a TI trace`, { operation: 'format TI trace', hint: 'ranks are integers 0..n-1' });
    const list = actions.get(rank)!;
    const prefix = `${rank} `;
    const at: Place = { rank, index: 0, action: { op: 'init' } };
    for (let i = 0; i < list.length; i++) {
      at.index = i;
      at.action = list[i]!;
      out.push(prefix + writeAction(at, world));
    }
  }
  return out.join('\n') + '\n';
}

/**
 * Writes a program in the description layout `smpireplaymain` needs: `rank<i>.txt` per rank in
 * `dir` and a description file listing them (absolute paths). Returns the description's path.
 */
export async function writeTiTraceFiles(dir: string, actions: ReadonlyMap<number, readonly Action[]>): Promise<string> {
  await mkdir(dir, { recursive: true });
  let world = 0;
  for (const rank of actions.keys()) world = Math.max(world, rank + 1);
  const files: string[] = [];
  for (let rank = 0; rank < world; rank++) {
    const file = resolve(dir, `rank${rank}.txt`);
    await writeFile(file, formatTiTrace(new Map([[rank, actions.get(rank) ?? []]]), world));
    files.push(file);
  }
  const description = resolve(dir, 'description.txt');
  await writeFile(description, `${files.join('\n')}\n`);
  return description;
}

/**
 * Reads a trace in either layout: a file of `<rank> <action>` lines, or a description file
 * listing one such file per rank (the i-th line for rank i).
 */
export async function loadTiTraces(path: string, options: Pick<ParseOptions, 'warn'> = {}): Promise<Map<number, Action[]>> {
  const text = readText(path, `cannot read trace ${path}`, 'check the path given to the simulator');
  const lines = meaningfulLines(text);
  const first = lines[0];
  if (first === undefined) {
    throw new TsmpiError(ErrorCode.Config, `${path}: no trace lines`, { operation: OPERATION, hint: 'a trace has lines "<rank> <action> <args...>"; a description file lists one trace file per line' });
  }
  if (first.tokens.length >= 2) {
    if (parseInteger(first.tokens[0]!) !== undefined) return parseTiTrace(text, path);
    throw new TsmpiError(ErrorCode.Config, `${path}:${first.no}: neither a trace line nor a trace file name: "${first.tokens.join(' ')}"`, { operation: OPERATION, hint: 'a SimGrid replay_multiple job line (name, trace list, ranks, start) is not a trace: pass its trace list file' });
  }
  const world = lines.length;
  const out = new Map<number, Action[]>();
  for (let rank = 0; rank < world; rank++) {
    const { no, tokens } = lines[rank]!;
    const where = `${path}:${no}`;
    if (tokens.length !== 1) {
      throw new TsmpiError(ErrorCode.Config, `${where}: a description file lists one trace file per line, got "${tokens.join(' ')}"`, { operation: OPERATION, hint: 'write one path per line, the i-th for rank i (no spaces in paths)' });
    }
    const file = locate(tokens[0]!, path);
    const perRank = readText(file, `${where}: cannot read ${file}, the trace of rank ${rank}`, 'paths are relative to the description file or the working directory');
    const actions = parseTiTrace(perRank, file, { worldSize: world, rank, ...options }).get(rank)!;
    if (actions.length === 0) {
      throw new TsmpiError(ErrorCode.Config, `${where}: ${file} has no line for rank ${rank}`, { operation: OPERATION, hint: `the i-th file listed is rank i's trace, and each of its lines starts with that rank (${rank} here)` });
    }
    out.set(rank, actions);
  }
  return out;
}

// Synchronous reads: a trace is one small file per rank, read one after another, and the promise
// API costs each four thread-pool round trips (a 64-rank replay spent 80 ms there, twice its
// simulation).
function locate(entry: string, description: string): string {
  if (isAbsolute(entry)) return entry;
  const besideDescription = resolve(dirname(description), entry);
  return existsSync(besideDescription) ? besideDescription : resolve(entry);
}

function readText(path: string, message: string, hint: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new TsmpiError(ErrorCode.Config, `${message}: ${(cause as Error).message}`, { operation: OPERATION, hint, cause });
  }
}
