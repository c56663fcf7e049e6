/**
 * A client of the PMI-2 wire protocol that srun speaks on the descriptor in PMI_FD
 * (`srun --mpi=pmi2`, or `MpiDefault=pmi2` in slurm.conf). Written from the protocol's
 * description (MPICH's pmi2 wire documentation) and checked against Debian's slurm 22.05:
 *
 * ```
 *  -> "cmd=init pmi_version=2 pmi_subversion=0\n"      <- "cmd=response_to_init rc=0 ...\n"
 *  then each command and response is a 6-character decimal length, then "cmd=NAME;k=v;...;"
 *  -> fullinit;pmijobid=J;pmirank=R;threaded=FALSE;     <- fullinit-response;rc=0;rank=R;size=N;...
 *  -> kvs-put;key=K;value=V;                            <- kvs-put-response;rc=0;
 *  -> kvs-fence;                                         <- kvs-fence-response;rc=0;
 *  -> kvs-get;jobid=J;srcid=-1;key=K;                   <- kvs-get-response;rc=0;found=TRUE;value=V;
 *  -> finalize;                                          <- finalize-response;rc=0;
 * ```
 * Slurm does not honour ';;' escapes in values, so values must avoid ';' (rendezvous.ts encodes
 * them as base64url).
 */
import { Socket } from 'node:net';
import { ErrorCode, TsmpiError } from '../errors.js';
import type { Rendezvous } from './rendezvous.js';

function pmiError(message: string): TsmpiError {
  return new TsmpiError(ErrorCode.Init, message, {
    operation: 'PMI-2 rendezvous',
    hint: 'start the job with `srun --mpi=pmi2 tsmpi exec app.ts` (or set MpiDefault=pmi2 in slurm.conf)',
  });
}

function parseFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return fields;
}

export class Pmi2Rendezvous implements Rendezvous {
  /** This task's rank and the job's size, as PMI-2 reports them (set by connect). */
  rank: number;
  size: number;
  private readonly socket: Socket;
  private readonly jobId: string;
  private buffer = '';
  private readonly readers: { resolve: (text: string) => void; reject: (e: Error) => void; line: boolean }[] = [];
  private closedError: Error | undefined;

  private constructor(socket: Socket, jobId: string, rank: number, size: number) {
    this.socket = socket;
    this.jobId = jobId;
    this.rank = rank;
    this.size = size;
  }

  /** Connects on PMI_FD; undefined when the process was not started with PMI-2. */
  static async connect(env: NodeJS.ProcessEnv): Promise<Pmi2Rendezvous | undefined> {
    const fd = env.PMI_FD;
    if (fd === undefined || fd === '') return undefined;
    const socket = new Socket({ fd: Number(fd), readable: true, writable: true });
    socket.unref();
    const client = new Pmi2Rendezvous(socket, env.PMI_JOBID ?? '0', Number(env.PMI_RANK ?? -1), Number(env.PMI_SIZE ?? 0));
    client.listen();
    socket.write('cmd=init pmi_version=2 pmi_subversion=0\n');
    const init = await client.read(true);
    if (!/rc=0/.test(init)) throw pmiError(`PMI-2 init failed: ${init}`);
    const full = parseFields(await client.command(`cmd=fullinit;pmijobid=${client.jobId};pmirank=${client.rank};threaded=FALSE;`));
    const rank = Number(full.get('rank'));
    const size = Number(full.get('size'));
    if (!Number.isInteger(rank) || !Number.isInteger(size)) throw pmiError(`PMI-2 fullinit gave no rank or size`);
    client.rank = rank;
    client.size = size;
    return client;
  }

  private listen(): void {
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.pump();
    });
    const fail = (error: Error): void => {
      this.closedError = error;
      for (const r of this.readers.splice(0)) r.reject(error);
    };
    this.socket.on('error', (e) => fail(pmiError(`the PMI-2 connection failed: ${e.message}`)));
    this.socket.on('close', () => fail(pmiError('the PMI-2 connection closed')));
  }

  private pump(): void {
    while (this.readers.length > 0) {
      const reader = this.readers[0]!;
      let text: string;
      if (reader.line) {
        const nl = this.buffer.indexOf('\n');
        if (nl < 0) return;
        text = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
      } else {
        if (this.buffer.length < 6) return;
        const n = Number(this.buffer.slice(0, 6));
        if (this.buffer.length < 6 + n) return;
        text = this.buffer.slice(6, 6 + n);
        this.buffer = this.buffer.slice(6 + n);
      }
      this.readers.shift();
      reader.resolve(text);
    }
  }

  /** Reads a reply; the socket keeps the process alive only while a reply is awaited. */
  private read(line: boolean): Promise<string> {
    if (this.closedError) return Promise.reject(this.closedError);
    this.socket.ref();
    return new Promise<string>((resolve, reject) => {
      this.readers.push({ resolve, reject, line });
      this.pump();
    }).finally(() => {
      if (this.readers.length === 0) this.socket.unref();
    });
  }

  private command(text: string): Promise<string> {
    this.socket.write(String(text.length).padStart(6, ' ') + text);
    return this.read(false);
  }

  private async checked(text: string): Promise<Map<string, string>> {
    const response = parseFields(await this.command(text));
    if (response.get('rc') !== '0') throw pmiError(`PMI-2 "${text.split(';')[0]}" failed: rc=${response.get('rc')}`);
    return response;
  }

  async exchange(entries: Readonly<Record<string, string>>): Promise<void> {
    for (const [key, value] of Object.entries(entries)) {
      if (/[;=\s]/.test(key) || /[;\s]/.test(value)) throw pmiError(`the key/value ${key} cannot travel through PMI-2`);
      await this.checked(`cmd=kvs-put;key=${key};value=${value};`);
    }
    await this.checked('cmd=kvs-fence;');
  }

  async get(key: string): Promise<string | undefined> {
    const response = parseFields(await this.command(`cmd=kvs-get;jobid=${this.jobId};srcid=-1;key=${key};`));
    if (response.get('found') !== 'TRUE') return undefined;
    return response.get('value');
  }

  /** PMI-2 abort: srun kills every task of the step (what MPI_Abort does under SLURM). */
  abort(code: number, message: string): void {
    if (this.closedError) return;
    const safe = message.replace(/[;\n=]/g, ' ').slice(0, 200);
    const text = `cmd=abort;isworld=TRUE;msg=${safe} (exit code ${code});`;
    this.socket.write(String(text.length).padStart(6, ' ') + text);
  }

  close(): void {
    if (this.closedError) return;
    this.socket.write(String('cmd=finalize;'.length).padStart(6, ' ') + 'cmd=finalize;');
    this.socket.end();
  }
}
