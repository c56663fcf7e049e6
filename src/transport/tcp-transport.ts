/**
 * The TCP side of a rank: a listener on the rank's configured address (never on every
 * interface), connections to peers opened lazily on the first frame (or all at once when asked),
 * each authenticated by the HMAC handshake. A connection that fails the handshake is refused and
 * logged; the job carries on.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { acceptHandshake, connectHandshake, jobTag } from './handshake.js';
import type { Link, LinkEvents } from './link.js';
import { PublishBatch } from './publish-batch.js';
import { TcpReceiveLink, TcpSendLink, tcpLimits } from './tcp-link.js';
import { readByEvents, readIntoReusedBuffer } from './tcp-reader.js';

export interface TcpEndpointAddress {
  host: string;
  port: number;
}

export interface TcpTransportOptions {
  /** World rank of this rank. */
  rank: number;
  secret: Buffer;
  jobId: string;
  /** Address to listen on (one of this node's addresses). */
  listenHost: string;
  /** Largest frame payload this rank sends (the DATA chunk size). */
  maxFramePayload: number;
  /** Largest frame accepted from a peer; larger ones close the connection. */
  maxFrameBytes: number;
  /** Messages up to this size go eagerly over TCP (see TSMPI_TCP_EAGER_LIMIT). */
  eagerLimit: number;
  /** Read accepted connections into the thread's reused buffer (TSMPI_TCP_READ_BUFFER); else a new Buffer per read. */
  reuseReadBuffer?: boolean;
  /** Where refusals and connection problems are reported. */
  log: (line: string) => void;
}

/** Connection attempts to a peer before its link fails (its listener should be up already). */
const CONNECT_ATTEMPTS = 5;

export class TcpTransport {
  readonly rank: number;
  private readonly options: TcpTransportOptions;
  private secret: Buffer;
  private readonly tag: Buffer;
  private server: Server | undefined;
  private events: LinkEvents | undefined;
  private readonly waiting: (() => void)[] = [];
  private addresses: readonly (TcpEndpointAddress | undefined)[] = [];
  private readonly sockets = new Set<Socket>();
  /** Connections that arrived before this rank learnt the job secret. */
  private readonly beforeSecret: (() => void)[] = [];
  /** The bursts of sends the rank's links hold back until its next poll (publish-batch.ts). */
  private readonly batch = new PublishBatch();
  /** Connections refused by the handshake (diagnostics and tests). */
  refused = 0;

  constructor(options: TcpTransportOptions) {
    this.options = options;
    this.secret = options.secret;
    this.rank = options.rank;
    this.tag = jobTag(options.jobId);
  }

  /** Opens the listener; resolves with the address peers must connect to. */
  listen(): Promise<TcpEndpointAddress> {
    return new Promise((resolve, reject) => {
      // Paused: an accepted socket is read only once it reads into the thread's buffer (tcp-reader.ts).
      const server = createServer({ pauseOnConnect: true }, (socket) => this.accept(socket));
      server.once('error', reject);
      server.listen({ host: this.options.listenHost, port: 0, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', (error) => this.options.log(`tsmpi: rank ${this.rank}: listener error: ${error.message}`));
        server.unref();
        this.server = server;
        const address = server.address();
        if (address === null || typeof address === 'string') {
          reject(new Error('the listener has no TCP address'));
          return;
        }
        resolve({ host: this.options.listenHost, port: address.port });
      });
    });
  }

  /** The peers' addresses (index = world rank) and the job secret, known after the rendezvous. */
  setPeers(addresses: readonly (TcpEndpointAddress | undefined)[], secret: Buffer): void {
    this.addresses = addresses;
    this.secret = secret;
    for (const accept of this.beforeSecret.splice(0)) accept();
  }

  /** Hands over the endpoint's events; connections accepted before this wait paused. */
  attach(events: LinkEvents): void {
    this.events = events;
    for (const resume of this.waiting.splice(0)) resume();
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    if (this.secret.length === 0) {
      // A faster process already has the addresses; this one will know the secret in a moment
      // (its host is delivering the same exchange): the handshake waits for it.
      this.track(socket);
      this.beforeSecret.push(() => this.accept(socket));
      return;
    }
    const reader = this.options.reuseReadBuffer === true ? readIntoReusedBuffer(socket) : readByEvents(socket);
    if (reader.socket !== socket) this.sockets.delete(socket);
    socket = reader.socket;
    if (!this.sockets.has(socket)) this.track(socket);
    const from = `${socket.remoteAddress}:${socket.remotePort}`;
    acceptHandshake(socket, this.secret, this.rank, this.tag).then(
      ({ peer, rest }) => {
        socket.pause();
        const start = (): void => {
          new TcpReceiveLink(peer, tcpLimits(this.options.maxFramePayload, this.options.eagerLimit), socket, this.events!, rest, this.options.maxFrameBytes, reader.consume);
          socket.resume();
        };
        if (this.events !== undefined) start();
        else this.waiting.push(start);
      },
      (error: Error) => {
        this.refused++;
        this.options.log(`tsmpi: rank ${this.rank} refused a connection from ${from}: ${error.message}`);
        socket.destroy();
      },
    );
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** The sending link to `peer` (its connection opens now, in the background). */
  createLink(peer: number, events: LinkEvents): Link {
    return new TcpSendLink(peer, tcpLimits(this.options.maxFramePayload, this.options.eagerLimit), events, this.batch, () => this.connect(peer));
  }

  /** The rank polls: links write the frames of a burst they hold back. */
  pollStarts(): void {
    this.batch.pollStarts();
  }

  private async connect(peer: number): Promise<Socket> {
    const address = this.addresses[peer];
    if (address === undefined) throw new Error(`no address is known for world rank ${peer}`);
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = netConnect({ host: address.host, port: address.port, localAddress: this.options.listenHost, noDelay: true });
          s.once('connect', () => {
            s.off('error', reject);
            resolve(s);
          });
          s.once('error', reject);
        });
        this.track(socket);
        const { rest } = await connectHandshake(socket, this.secret, this.rank, peer, this.tag);
        if (rest.length > 0) throw new Error(`rank ${peer} sent data before any frame was asked for`);
        return socket;
      } catch (error) {
        lastError = error as Error;
        if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') break;
      }
    }
    throw new Error(`cannot reach world rank ${peer} at ${address.host}:${address.port}: ${lastError?.message ?? 'unknown error'}`);
  }

  close(): void {
    this.server?.close();
    for (const socket of this.sockets) socket.destroy();
  }
}
