/**
 * A process's stdin as one rank's (TSMPI_STDIN, mpirun's --stdin): the rank thread's
 * `process.stdin` asks over a port of its own for each next chunk, and this side reads one chunk
 * of the real stdin per request. Nothing is read before the first request, so a job that never
 * reads stdin leaves it to whoever comes next (a shell loop's input); one chunk per request is
 * the back-pressure. The port is the rank's alone: it carries nothing else, and it can be
 * listened to from the start without taking the launcher channel's queued messages.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/** What the rank's side sends: it wants the next chunk. */
export interface StdinRequest {
  type: 'more';
}
/** What this side answers: a chunk, or the end of the input. */
export type StdinReply = { type: 'chunk'; chunk: Uint8Array } | { type: 'end' };

export class StdinFeed {
  /** The port to hand the rank thread (transferred in its workerData). */
  readonly rankPort: MessagePort;
  private readonly port: MessagePort;
  private started = false;
  private ended = false;

  constructor(private readonly input: NodeJS.ReadStream = process.stdin) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.rankPort = port2;
    this.port.on('message', (message: StdinRequest) => {
      if (message.type === 'more') this.more();
    });
    // Requests arrive only while the rank reads, which keeps its own thread (and so this process) alive.
    this.port.unref();
  }

  /** The rank ended, or the job did: read no more, and let the process exit whatever stdin does. */
  close(): void {
    this.port.close();
    if (this.started) {
      this.input.pause();
      (this.input as { unref?: () => void }).unref?.();
    }
  }

  private more(): void {
    if (this.ended) return;
    if (!this.started) {
      this.started = true;
      this.input.on('data', (chunk: Buffer) => {
        this.input.pause();
        this.port.postMessage({ type: 'chunk', chunk } satisfies StdinReply);
      });
      const ended = (): void => {
        if (this.ended) return;
        this.ended = true;
        this.port.postMessage({ type: 'end' } satisfies StdinReply);
      };
      this.input.once('end', ended);
      // A stdin that cannot be read (closed, a terminal gone) ends the rank's input.
      this.input.once('error', ended);
    }
    this.input.resume();
  }
}
