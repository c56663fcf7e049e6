/**
 * The rendezvous `tsmpi run --procs` serves to its processes: a TCP server on the launcher's
 * address that every process reaches with TSMPI_RENDEZVOUS=host:port, authenticated by the same
 * HMAC handshake as rank connections (the launcher is "rank -1", a process is its index). After
 * the handshake, newline-delimited JSON:
 *
 * ```
 *  process -> launcher  {"type":"exchange","entries":{...}}     publish + fence
 *  launcher -> process  {"type":"table","entries":{...}}        once every process has published
 *  process -> launcher  {"type":"abort","code":n,"message":"..."}  a rank failed: the job ends with n
 *  process -> launcher  {"type":"peer-gone","rank":r,...}       a rank ended (finalized, exited 0)
 *  launcher -> process  {"type":"peer-gone","rank":r,...}       relayed to every other process
 *  process -> launcher  {"type":"progress","total":n,"live":l,"waiting":w}   its ranks' progress
 *  launcher -> process  {"type":"describe"}                     what do your ranks wait for?
 *  process -> launcher  {"type":"waits","lines":[[rank,"  rank r: ..."],...]}
 *  launcher -> process  {"type":"alive"}                       every second: the launcher is there
 * ```
 * Both sides speak every second (the process's progress reports, the launcher's alive), so each
 * can tell when the other's host is cut off.
 * A process that fails before the exchange connects just to send its abort.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { wallClockMillis } from '../clock.js';
import { ErrorCode, TsmpiError } from '../errors.js';
import { acceptHandshake, connectHandshake, jobTag } from '../transport/handshake.js';
import type { ProcessProgress, WaitLine } from './job-watch.js';
import type { PeerGoneNotice } from './rank-context.js';
import type { Rendezvous } from './rendezvous.js';

export const LAUNCHER_RANK = -1;
/** How often the launcher says it is alive (ms). */
const ALIVE_INTERVAL_MS = 1000;

function lines(socket: Socket, first: Buffer, onMessage: (message: Record<string, unknown>) => void): void {
  let pending = first.toString('utf8');
  const drain = (): void => {
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() !== '') onMessage(JSON.parse(line) as Record<string, unknown>);
      nl = pending.indexOf('\n');
    }
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    drain();
  });
  drain();
}

/** The launcher's side. */
export class RendezvousServer {
  private readonly server: Server;
  private readonly secret: Buffer;
  private readonly tag: Buffer;
  private readonly expected: number;
  private readonly entries: Record<string, string> = {};
  private readonly waiting = new Map<number, Socket>();
  private readonly log: (line: string) => void;

  private readonly onAbort: (process: number, code: number, consequence: boolean) => void;
  /** What processes report of their ranks' progress, and their answers to describe(). */
  onProgress: ((process: number, progress: ProcessProgress) => void) | undefined;
  onWaits: ((process: number, lines: WaitLine[]) => void) | undefined;
  /** Authenticated connections of each process, until they close. */
  private readonly connections = new Map<number, Set<Socket>>();
  private readonly closeWaiters = new Map<number, (() => void)[]>();
  /** Every rank-ended notice so far (from, line): processes that join later get them with the table. */
  private readonly notices: { from: number; line: string }[] = [];
  private tableSent = false;
  private alive: NodeJS.Timeout | undefined;

  /**
   * `onAbort` hears each process that reports a failed rank: its index, the code, and whether the
   * rank failed because a link to a peer broke (a consequence of another failure).
   */
  constructor(secret: Buffer, jobId: string, expected: number, log: (line: string) => void, onAbort: (process: number, code: number, consequence: boolean) => void = () => {}) {
    this.secret = secret;
    this.tag = jobTag(jobId);
    this.expected = expected;
    this.log = log;
    this.onAbort = onAbort;
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host, port: 0 }, () => {
        const address = this.server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error('the rendezvous has no TCP address'));
          return;
        }
        const line = `${JSON.stringify({ type: 'alive' })}\n`;
        this.alive = setInterval(() => {
          for (const socket of this.waiting.values()) if (!socket.destroyed) socket.write(line);
        }, ALIVE_INTERVAL_MS);
        this.alive.unref();
        resolve(`${host}:${address.port}`);
      });
    });
  }

  private accept(socket: Socket): void {
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    socket.on('error', () => socket.destroy());
    acceptHandshake(socket, this.secret, LAUNCHER_RANK, this.tag).then(
      ({ peer, rest }) => {
        const open = this.connections.get(peer) ?? new Set<Socket>();
        this.connections.set(peer, open);
        open.add(socket);
        socket.once('close', () => {
          open.delete(socket);
          if (open.size === 0) for (const wake of this.closeWaiters.get(peer)?.splice(0) ?? []) wake();
        });
        lines(socket, rest, (message) => {
          if (message.type === 'abort') {
            const code = Number(message.code);
            this.onAbort(peer, Number.isInteger(code) && code > 0 ? code : 1, message.consequence === true);
            return;
          }
          if (message.type === 'progress') {
            this.onProgress?.(peer, { total: Number(message.total), live: Number(message.live), waiting: Number(message.waiting), lingering: Number(message.lingering ?? 0) });
            return;
          }
          if (message.type === 'waits') {
            this.onWaits?.(peer, message.lines as WaitLine[]);
            return;
          }
          if (message.type === 'clock') {
            // A clock probe (timelines across hosts): answer at once with this machine's time.
            socket.write(`${JSON.stringify({ type: 'clock', sent: message.sent, at: wallClockMillis() })}\n`);
            return;
          }
          if (message.type === 'peer-gone') {
            const line = `${JSON.stringify(message)}\n`;
            this.notices.push({ from: peer, line });
            if (this.tableSent) for (const [index, s] of this.waiting) if (index !== peer) s.write(line);
            return;
          }
          if (message.type !== 'exchange') return;
          Object.assign(this.entries, message.entries as Record<string, string>);
          this.waiting.set(peer, socket);
          if (this.waiting.size === this.expected) {
            const table = `${JSON.stringify({ type: 'table', entries: this.entries })}\n`;
            for (const [index, s] of this.waiting) {
              s.write(table);
              for (const notice of this.notices) if (notice.from !== index) s.write(notice.line);
            }
            this.tableSent = true;
          }
        });
      },
      (error: Error) => {
        this.log(`tsmpi: the rendezvous refused a connection from ${from}: ${error.message}`);
        socket.destroy();
      },
    );
  }

  /** True while process `index` has a connection open. */
  isConnected(index: number): boolean {
    return (this.connections.get(index)?.size ?? 0) > 0;
  }

  /** Resolves once no process has a connection open (every one has ended). */
  async allClosed(): Promise<void> {
    for (const index of [...this.connections.keys()]) await this.drained(index, 2 ** 31 - 1);
  }

  /** Asks every process that joined what its ranks wait for (they answer with "waits"). */
  describe(): void {
    const line = `${JSON.stringify({ type: 'describe' })}\n`;
    for (const socket of this.waiting.values()) if (!socket.destroyed) socket.write(line);
  }

  /**
   * Resolves once every connection of `process` has closed (all it sent has been read), or after
   * `timeoutMs`: a process that exited may still have bytes on the way.
   */
  drained(process: number, timeoutMs: number): Promise<void> {
    if ((this.connections.get(process)?.size ?? 0) === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const waiters = this.closeWaiters.get(process) ?? [];
      this.closeWaiters.set(process, waiters);
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    clearInterval(this.alive);
    for (const s of this.waiting.values()) s.destroy();
    this.server.close();
  }
}

/** How a process reaches its launcher. */
export interface LauncherRendezvousOptions {
  /** Seconds without a word from the launcher after which it counts as gone (0: never). */
  readonly silenceSeconds?: number;
  /** This host's name, for errors. */
  readonly host?: string;
  /** What to do when the launcher cannot be reached. */
  readonly hint?: string;
}

/** A process's side. */
export class LauncherRendezvous implements Rendezvous {
  private readonly address: string;
  private readonly secret: Buffer;
  private readonly jobId: string;
  private readonly index: number;
  private readonly options: LauncherRendezvousOptions;
  private socket: Socket | undefined;
  private table: Record<string, string> | undefined;
  private noticeHandler: ((notice: PeerGoneNotice) => void) | undefined;
  private describeHandler: (() => void) | undefined;
  private lostHandler: ((why: string) => void) | undefined;
  private lostWhy: string | undefined;
  private closing = false;
  private lastHeard = 0;
  private silenceTimer: NodeJS.Timeout | undefined;
  private readonly watcher = {
    progress: (report: ProcessProgress): void => this.send({ type: 'progress', ...report }),
    answer: (lines: WaitLine[]): void => this.send({ type: 'waits', lines }),
  };

  /** The job's watch, while the connection to the job manager is open. */
  get watch(): { progress(report: ProcessProgress): void; answer(lines: WaitLine[]): void } | undefined {
    return this.socket !== undefined && !this.socket.destroyed ? this.watcher : undefined;
  }

  onDescribe(handler: () => void): void {
    this.describeHandler = handler;
  }

  constructor(address: string, secret: Buffer, jobId: string, index: number, options: LauncherRendezvousOptions = {}) {
    this.address = address;
    this.secret = secret;
    this.jobId = jobId;
    this.index = index;
    this.options = options;
  }

  /** Connects and authenticates a new connection (the exchange's, or one for an early abort). */
  private async connect(): Promise<{ socket: Socket; rest: Buffer }> {
    const colon = this.address.lastIndexOf(':');
    const host = this.address.slice(0, colon);
    const port = Number(this.address.slice(colon + 1));
    // A host cut off from the launcher would otherwise retry its SYN for two minutes.
    const timeoutMs = (this.options.silenceSeconds ?? 0) > 0 ? this.options.silenceSeconds! * 1000 : 30_000;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ host, port, noDelay: true });
      const timer = setTimeout(() => s.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        const from = this.options.host === undefined ? '' : ` from ${this.options.host}${s.localAddress ? ` (${s.localAddress})` : ''}`;
        reject(
          new TsmpiError(ErrorCode.Init, `cannot reach the launcher's rendezvous at ${this.address}${from}: ${e.message}`, {
            operation: 'init',
            hint: this.options.hint ?? 'start the processes with `tsmpi run --procs`',
          }),
        );
      });
    });
    socket.on('error', () => socket.destroy());
    const { rest } = await connectHandshake(socket, this.secret, this.index, LAUNCHER_RANK, jobTag(this.jobId));
    return { socket, rest };
  }

  async exchange(entries: Readonly<Record<string, string>>): Promise<void> {
    const { socket, rest } = await this.connect();
    this.socket = socket;
    socket.unref();
    const table = new Promise<Record<string, string>>((resolve, reject) => {
      lines(socket, rest, (message) => {
        this.lastHeard = performance.now();
        if (message.type === 'table') resolve(message.entries as Record<string, string>);
        else if (message.type === 'clock') this.clockReply?.(Number(message.sent), Number(message.at));
        else if (message.type === 'peer-gone') this.noticeHandler?.(message as unknown as PeerGoneNotice);
        else if (message.type === 'describe') this.describeHandler?.();
      });
      socket.once('close', () => reject(new TsmpiError(ErrorCode.Init, 'the launcher closed the rendezvous before every process arrived', { operation: 'init', hint: 'another process of the job failed to start: see its error' })));
    });
    socket.ref();
    socket.write(`${JSON.stringify({ type: 'exchange', entries })}\n`);
    this.table = await table;
    socket.unref();
    // The launcher keeps this connection open until every process has ended: if it closes first,
    // the launcher is gone (killed), and nobody would stop this process.
    socket.once('close', () => this.lost('its connection closed'));
    const silence = this.options.silenceSeconds ?? 0;
    if (silence > 0) {
      this.lastHeard = performance.now();
      this.silenceTimer = setInterval(() => {
        const quiet = (performance.now() - this.lastHeard) / 1000;
        if (quiet >= silence) this.lost(`no word from it at ${this.address} for ${Math.round(quiet)} s (TSMPI_HOST_TIMEOUT ${silence})`);
      }, 500);
      this.silenceTimer.unref();
    }
  }

  private clockReply: ((sent: number, at: number) => void) | undefined;

  /**
   * How far the launcher's wall clock is ahead of this machine's (ms), as NTP estimates it: a few
   * probes on the exchange's connection, the one with the shortest round trip taken (its error is
   * at most half that round trip). Undefined before the exchange or when no answer comes.
   */
  async clockOffset(probes = 5): Promise<{ offsetMs: number; roundTripMs: number } | undefined> {
    if (this.socket === undefined || this.socket.destroyed) return undefined;
    let best: { offsetMs: number; roundTripMs: number } | undefined;
    for (let i = 0; i < probes; i++) {
      const answer = await new Promise<{ sent: number; at: number; back: number } | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 2000);
        this.clockReply = (sent, at) => {
          clearTimeout(timer);
          resolve({ sent, at, back: wallClockMillis() });
        };
        this.send({ type: 'clock', sent: wallClockMillis() });
      });
      if (answer === undefined) break;
      const roundTripMs = answer.back - answer.sent;
      const offsetMs = answer.at - (answer.sent + answer.back) / 2;
      if (best === undefined || roundTripMs < best.roundTripMs) best = { offsetMs, roundTripMs };
    }
    this.clockReply = undefined;
    return best;
  }

  /** The launcher is gone (`why`): the process must end. Said once, to a handler set before or after. */
  lost(why: string): void {
    clearInterval(this.silenceTimer);
    if (this.closing) return;
    this.closing = true;
    this.lostWhy = why;
    this.lostHandler?.(why);
  }

  onLost(handler: (why: string) => void): void {
    this.lostHandler = handler;
    if (this.lostWhy !== undefined) handler(this.lostWhy);
  }

  async get(key: string): Promise<string | undefined> {
    return this.table?.[key];
  }

  announce(notice: PeerGoneNotice): void {
    this.send(notice);
  }

  /** A line to the launcher on the exchange's connection (nothing before the exchange). */
  private send(message: object): void {
    const socket = this.socket;
    if (socket !== undefined && !socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  }

  onNotice(handler: (notice: PeerGoneNotice) => void): void {
    this.noticeHandler = handler;
  }

  /** Tells the launcher that a rank failed, before the process ends (connecting first if need be). */
  abort(code: number, message: string, consequence = false): void {
    const line = `${JSON.stringify({ type: 'abort', code, message, consequence })}\n`;
    const socket = this.socket;
    if (socket !== undefined && !socket.destroyed) {
      socket.write(line);
      return;
    }
    // Failed before the exchange: a connection of its own (the launcher kills us either way).
    this.connect().then(
      ({ socket: s }) => s.end(line),
      () => {},
    );
  }

  close(): void {
    this.closing = true;
    clearInterval(this.silenceTimer);
    this.socket?.destroy();
  }
}
