/**
 * Checks that a program (rank -> actions) is well formed, by running it without time: every send
 * must meet exactly one receive, every receive one send, every rank must reach the end, and every
 * collective must be entered by all ranks in the same order with agreeing arguments.
 *
 * Matching follows MPI: a message goes to the earliest posted receive of its destination whose
 * source (or ANY_SOURCE) and tag (or ANY_TAG) fit, else waits as unexpected for the next such
 * receive; between one pair and tag, order is kept. A receive naming its source must name the
 * exact size; an any-source receive is a buffer, so the message must fit in it; a receive of
 * size 0 takes any size (SimGrid's "unknown"). By default a send completes only once matched
 * (rendezvous), the strictest protocol: a program that finishes so finishes under any protocol.
 * `wait` completes the rank's oldest outstanding request with its (src, dst, tag); `test` does
 * nothing (no time passes here); a rank's end waits for all its requests, as SimGrid's does.
 */
import { ANY_SOURCE, ANY_TAG, COLLECTIVE_OPS, type Action } from '../replay/actions.js';
import { formatAction } from '../replay/ti-trace.js';

export interface CheckOptions {
  /** `eager`: blocking sends complete at once (messages are buffered). Default `rendezvous`. */
  protocol?: 'rendezvous' | 'eager';
  /** Stop listing problems after this many. Default 20. */
  maxProblems?: number;
}

export interface MatchReport {
  ok: boolean;
  /** One line each, naming rank and action index. Empty when ok. */
  problems: string[];
  /** Point-to-point messages matched. */
  matched: number;
  /** Collectives completed (each counted once, not per rank). */
  collectives: number;
}

interface Req {
  rank: number;
  index: number;
  send: boolean;
  src: number;
  dst: number;
  tag: number;
  bytes: number;
  done: boolean;
}

interface RankRun {
  pc: number;
  pending: Req[];
  /** The request of the blocking send/recv at pc, once posted. */
  current: Req | undefined;
  /** The send and the receive of the sendrecv at pc, once posted. */
  pair: Req[] | undefined;
  /** Collectives completed so far; `joined` is the last one this rank has arrived at. */
  entered: number;
  joined: number;
  done: boolean;
}

export function checkMatched(program: ReadonlyMap<number, readonly Action[]>, options: CheckOptions = {}): MatchReport {
  const eager = options.protocol === 'eager';
  const max = options.maxProblems ?? 20;
  const n = program.size;
  const problems: string[] = [];
  const report = (p: string): void => { if (problems.length < max) problems.push(p); };
  for (let r = 0; r < n; r++) if (!program.has(r)) report(`ranks are not 0..${n - 1}: rank ${r} is missing`);
  if (problems.length > 0) return { ok: false, problems, matched: 0, collectives: 0 };

  const lists = Array.from({ length: n }, (_, r) => program.get(r)!);
  const runs: RankRun[] = lists.map(() => ({ pc: 0, pending: [], current: undefined, pair: undefined, entered: 0, joined: -1, done: false }));
  const posted: Req[][] = lists.map(() => []);
  const unexpected: Req[][] = lists.map(() => []);
  const arrivals: { rank: number; index: number }[][] = []; // per collective: who entered it, where
  let completedCollectives = 0;
  let matched = 0;
  const ready: number[] = lists.map((_, r) => r);
  const queued = new Uint8Array(n).fill(1);
  const wake = (r: number): void => { if (!queued[r]) { queued[r] = 1; ready.push(r); } };
  const at = (req: Req): string => `rank ${req.rank} action ${req.index} (${describe(lists[req.rank]![req.index]!)})`;
  const fits = (recv: Req, send: Req): boolean => (recv.src === ANY_SOURCE || recv.src === send.src) && (recv.tag === ANY_TAG || recv.tag === send.tag);

  const complete = (recv: Req, send: Req): void => {
    recv.done = send.done = true;
    matched++;
    if (recv.bytes > 0 && (recv.src === ANY_SOURCE ? send.bytes > recv.bytes : send.bytes !== recv.bytes)) {
      report(`${at(send)} sends ${send.bytes} bytes to ${at(recv)}, which ${recv.src === ANY_SOURCE ? 'has a buffer of' : 'expects'} ${recv.bytes}`);
    }
    wake(recv.rank);
    wake(send.rank);
  };
  const post = (req: Req): void => {
    if (req.send) {
      const queue = posted[req.dst]!;
      const k = queue.findIndex((recv) => fits(recv, req));
      if (k >= 0) complete(queue.splice(k, 1)[0]!, req);
      else unexpected[req.dst]!.push(req);
      if (eager) req.done = true;
    } else {
      const queue = unexpected[req.rank]!;
      const k = queue.findIndex((send) => fits(req, send));
      if (k >= 0) complete(req, queue.splice(k, 1)[0]!);
      else posted[req.rank]!.push(req);
    }
  };

  /** Advances rank r by one action if it can; false when it is blocked or finished. */
  const step = (r: number): boolean => {
    const run = runs[r]!;
    const list = lists[r]!;
    if (run.pc >= list.length) {
      if (run.pending.every((q) => q.done)) { run.pending = []; run.done = true; }
      return false;
    }
    const a = list[run.pc]!;
    if (COLLECTIVE_OPS.has(a.op)) {
      const k = run.entered;
      if (arrivals[k] === undefined) arrivals[k] = [];
      if (run.joined !== k) {
        run.joined = k;
        arrivals[k]!.push({ rank: r, index: run.pc });
        if (arrivals[k]!.length === n) {
          completedCollectives++;
          checkCollective(k, arrivals[k]!.map((e) => lists[e.rank]![e.index]!), arrivals[k]!, lists, report);
          for (const e of arrivals[k]!) wake(e.rank);
        }
      }
      if (arrivals[k]!.length < n) return false;
      run.entered++;
      run.pc++;
      return true;
    }
    switch (a.op) {
      case 'send': case 'isend': case 'recv': case 'irecv': {
        const blocking = a.op === 'send' || a.op === 'recv';
        let req = run.current;
        if (req === undefined) {
          const isSend = a.op === 'send' || a.op === 'isend';
          req = 'dst' in a
            ? { rank: r, index: run.pc, send: true, src: r, dst: a.dst, tag: a.tag, bytes: a.bytes, done: false }
            : { rank: r, index: run.pc, send: false, src: a.src, dst: r, tag: a.tag, bytes: a.bytes, done: false };
          const peer = isSend ? req.dst : req.src;
          if (!Number.isInteger(peer) || peer >= n || peer < (isSend ? 0 : ANY_SOURCE)) {
            report(`rank ${r} action ${run.pc}: peer ${peer} is not a rank of this ${n}-rank program`);
            run.pc++;
            return true;
          }
          post(req);
          if (!blocking) { run.pending.push(req); run.pc++; return true; }
          run.current = req;
        }
        if (!req.done) return false;
        run.current = undefined;
        run.pc++;
        return true;
      }
      case 'sendrecv': {
        if (run.pair === undefined) {
          if (!Number.isInteger(a.dst) || a.dst < 0 || a.dst >= n || !Number.isInteger(a.src) || a.src < ANY_SOURCE || a.src >= n) {
            report(`rank ${r} action ${run.pc}: peers ${a.dst} and ${a.src} are not both ranks of this ${n}-rank program`);
            run.pc++;
            return true;
          }
          run.pair = [
            { rank: r, index: run.pc, send: true, src: r, dst: a.dst, tag: 0, bytes: a.sendBytes, done: false },
            { rank: r, index: run.pc, send: false, src: a.src, dst: r, tag: 0, bytes: a.recvBytes, done: false },
          ];
          for (const req of run.pair) post(req);
        }
        if (!run.pair.every((q) => q.done)) return false;
        run.pair = undefined;
        run.pc++;
        return true;
      }
      case 'wait': {
        const k = run.pending.findIndex((q) => q.tag === a.tag && q.dst === a.dst && (q.src === a.src || q.src === ANY_SOURCE));
        if (k < 0) report(`rank ${r} action ${run.pc} (${describe(a)}) matches no outstanding request`);
        else if (!run.pending[k]!.done) return false;
        else run.pending.splice(k, 1);
        run.pc++;
        return true;
      }
      case 'waitall':
        if (!run.pending.every((q) => q.done)) return false;
        run.pending = [];
        run.pc++;
        return true;
      default:
        run.pc++;
        return true;
    }
  };

  while (ready.length > 0) {
    const r = ready.pop()!;
    queued[r] = 0;
    while (step(r));
  }

  for (let r = 0; r < n; r++) {
    const run = runs[r]!;
    if (run.done) continue;
    const list = lists[r]!;
    const where = run.pc < list.length ? `action ${run.pc} (${describe(list[run.pc]!)})` : 'its end (requests still outstanding)';
    report(`rank ${r} never gets past ${where}`);
  }
  for (const queue of unexpected) for (const send of queue) report(`${at(send)} is never received`);
  for (const queue of posted) for (const recv of queue) report(`${at(recv)} never gets a message`);
  const stuck = arrivals.findIndex((e) => e !== undefined && e.length < n);
  if (stuck >= 0) {
    const inside = new Set(arrivals[stuck]!.map((e) => e.rank));
    const missing = lists.map((_, r) => r).filter((r) => !inside.has(r));
    report(`collective ${stuck} is entered by ranks ${[...inside].sort((x, y) => x - y).join(',')} but never by ${missing.join(',')}`);
  }
  return { ok: problems.length === 0, problems, matched, collectives: completedCollectives };
}

/** An action as a trace line would show it, or as JSON when it could not be written. */
function describe(action: Action): string {
  try {
    return formatAction(action);
  } catch {
    return JSON.stringify(action);
  }
}

/** All ranks entered collective k: same op and root, and sizes that agree between senders and receivers. */
function checkCollective(k: number, actions: Action[], who: { rank: number; index: number }[], lists: readonly (readonly Action[])[], report: (p: string) => void): void {
  const n = lists.length;
  const byRank: Action[] = new Array<Action>(n);
  who.forEach((e, i) => { byRank[e.rank] = actions[i]!; });
  const first = byRank[0]!;
  const where = `collective ${k} (${first.op} at rank 0 action ${who.find((e) => e.rank === 0)!.index})`;
  for (let r = 1; r < n; r++) {
    const a = byRank[r]!;
    if (a.op !== first.op) { report(`${where}: rank ${r} enters ${a.op} instead`); return; }
    if ('root' in a && 'root' in first && a.root !== first.root) { report(`${where}: rank ${r} names root ${a.root}, rank 0 root ${first.root}`); return; }
  }
  const disagree = (what: string): void => report(`${where}: ${what}`);
  const same = (get: (a: Action) => number, what: string): void => {
    for (let r = 1; r < n; r++) if (get(byRank[r]!) !== get(first)) { disagree(`${what} differs: ${get(first)} at rank 0, ${get(byRank[r]!)} at rank ${r}`); return; }
  };
  const list = (a: Action, key: 'sendBytes' | 'recvBytes'): number[] => {
    const v = (a as unknown as Record<string, unknown>)[key];
    if (Array.isArray(v) && v.length === n) return v as number[];
    disagree(`${key} of a rank does not have ${n} entries`);
    return new Array<number>(n).fill(NaN);
  };
  const scalar = (a: Action, key: 'sendBytes' | 'recvBytes' | 'bytes'): number => (a as unknown as Record<string, number>)[key]!;
  const root = 'root' in first ? first.root : 0;
  switch (first.op) {
    case 'bcast': case 'reduce': case 'allreduce': same((a) => scalar(a, 'bytes'), 'size'); break;
    case 'alltoall': case 'allgather':
      same((a) => scalar(a, 'sendBytes'), 'send size');
      same((a) => scalar(a, 'recvBytes'), 'receive size');
      if (scalar(first, 'sendBytes') !== scalar(first, 'recvBytes')) disagree('send and receive sizes differ');
      break;
    case 'gather':
      for (let r = 0; r < n; r++) if (scalar(byRank[r]!, 'sendBytes') !== scalar(byRank[root]!, 'recvBytes')) { disagree(`rank ${r} sends ${scalar(byRank[r]!, 'sendBytes')}, the root expects ${scalar(byRank[root]!, 'recvBytes')}`); break; }
      break;
    case 'scatter':
      for (let r = 0; r < n; r++) if (scalar(byRank[r]!, 'recvBytes') !== scalar(byRank[root]!, 'sendBytes')) { disagree(`rank ${r} expects ${scalar(byRank[r]!, 'recvBytes')}, the root sends ${scalar(byRank[root]!, 'sendBytes')}`); break; }
      break;
    case 'gatherv': case 'allgatherv': {
      const receivers = first.op === 'gatherv' ? [root] : byRank.map((_, r) => r);
      for (const q of receivers) { const got = list(byRank[q]!, 'recvBytes'); for (let r = 0; r < n; r++) if (got[r] !== scalar(byRank[r]!, 'sendBytes')) { disagree(`rank ${q} expects ${got[r]} from rank ${r}, which sends ${scalar(byRank[r]!, 'sendBytes')}`); return; } }
      break;
    }
    case 'scatterv': {
      const sent = list(byRank[root]!, 'sendBytes');
      for (let r = 0; r < n; r++) if (sent[r] !== scalar(byRank[r]!, 'recvBytes')) { disagree(`the root sends ${sent[r]} to rank ${r}, which expects ${scalar(byRank[r]!, 'recvBytes')}`); return; }
      break;
    }
    case 'alltoallv': {
      const send = byRank.map((a) => list(a, 'sendBytes'));
      const recv = byRank.map((a) => list(a, 'recvBytes'));
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (send[i]![j] !== recv[j]![i]) { disagree(`rank ${i} sends ${send[i]![j]} to rank ${j}, which expects ${recv[j]![i]}`); return; }
      break;
    }
    case 'reducescatter': {
      const blocks = list(first, 'recvBytes').join(',');
      for (let r = 1; r < n; r++) if (list(byRank[r]!, 'recvBytes').join(',') !== blocks) { disagree(`rank ${r}'s block sizes differ from rank 0's`); return; }
      break;
    }
    default:
      break;
  }
}
