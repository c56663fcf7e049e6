/**
 * The sessions model (MPI-4's MPI_Session_init; mpi4py's Session): a program, or a library
 * inside one, opens a session of its own instead of relying on the world communicator, asks it
 * for the process sets it knows, makes a group of one, and a communicator from the group
 * (`Communicator.createFromGroup`). tsmpi's process sets are `mpi://WORLD` (every rank of the
 * job) and `mpi://SELF` (this rank). A session's init connects the rank as `init()` does (once,
 * whoever comes first); its finalize ends the session, not the rank.
 *
 * @example
 * ```ts
 * const session = await Session.init();
 * const group = session.createGroup('mpi://WORLD');
 * const comm = await Communicator.createFromGroup(group, 'my-library');
 * ```
 */
import { ErrorCode, TsmpiError, type ErrorCodeValue } from '../errors.js';
import { ErrhandlerSlot, type Errhandler, type ErrhandlerBody } from '../comm/errhandler.js';
import type { Communicator } from '../comm/communicator.js';
import { refuseToEncode } from '../comm/codec.js';
import type { Group } from '../comm/group.js';
import { Info } from '../comm/info.js';
import { init } from './init.js';

/** The process sets every session knows, in the order `nthPset` gives them. */
const PSETS = ['mpi://WORLD', 'mpi://SELF'] as const;

/** Methods a session's error handler does not govern: its own. */
const SESSION_UNGOVERNED = new Set(['getErrhandler', 'setErrhandler', 'callErrhandler']);

export class Session {
  readonly #world: Communicator;
  readonly #info: Info;
  #finalized = false;
  readonly #errhandler = new ErrhandlerSlot();

  private constructor(world: Communicator, info: Info) {
    this.#world = world;
    this.#info = info;
  }

  /** Opens a session (MPI_Session_init), connecting this rank first if nothing has yet. `info`: hints, kept. */
  static async init(info?: Info): Promise<Session> {
    const hints = new Info(info);
    if (!hints.has('thread_level')) hints.set('thread_level', 'MPI_THREAD_SINGLE');
    return new Session(await init(), hints);
  }

  /** What errors of the session's calls name it. */
  get name(): string {
    return 'session';
  }

  /** A new handle to the session's error handler (MPI_Session_get_errhandler): ERRORS_RETURN unless set. */
  getErrhandler(): Errhandler {
    return this.#errhandler.handle();
  }

  /** Sets what the session does when one of its calls fails (MPI_Session_set_errhandler; see Errhandler). */
  setErrhandler(handler: Errhandler): void {
    this.#errhandler.set(this, handler, 'Session.setErrhandler', this.#world.rank, SESSION_UNGOVERNED);
  }

  /** Runs the session's error handler as an error of `code` would (MPI_Session_call_errhandler); ERRORS_RETURN does nothing. */
  callErrhandler(code: ErrorCodeValue): void {
    this.#errhandler.call(this, code);
  }

  /** @internal The error handler where it is not ERRORS_RETURN. */
  get errhandlerInEffect(): ErrhandlerBody | undefined {
    return this.#errhandler.inEffect;
  }

  /** The session's hints (a copy: MPI_Session_get_info). */
  get info(): Info {
    this.#live('info');
    return this.#info.dup();
  }

  /** How many process sets the session knows (MPI_Session_get_num_psets). */
  get numPsets(): number {
    this.#live('numPsets');
    return PSETS.length;
  }

  /** The n-th process set's name (MPI_Session_get_nth_pset). */
  nthPset(n: number): string {
    this.#live('nthPset');
    const name = PSETS[n];
    if (!Number.isInteger(n) || name === undefined) throw this.#error(ErrorCode.Arg, `process set ${String(n)} of ${PSETS.length}`, 'nthPset', `pass 0 to ${PSETS.length - 1}`);
    return name;
  }

  /** What the session says of a process set (MPI_Session_get_pset_info): its `mpi_size`. */
  psetInfo(name: string): Info {
    return new Info([['mpi_size', String(this.#members(name, 'psetInfo').size)]]);
  }

  /** The group of a process set, this rank in it (MPI_Group_from_session_pset). */
  createGroup(name: string): Group {
    return this.#members(name, 'createGroup');
  }

  /** Ends the session (MPI_Session_finalize): its calls then throw. The rank stays connected. */
  finalize(): void {
    this.#live('finalize');
    this.#finalized = true;
  }

  /** True once finalize was called. */
  get finalized(): boolean {
    return this.#finalized;
  }

  #members(name: string, operation: string): Group {
    this.#live(operation);
    if (name === 'mpi://WORLD') return this.#world.group;
    if (name === 'mpi://SELF') return this.#world.self.group;
    throw this.#error(ErrorCode.Arg, `no process set named ${JSON.stringify(name)}`, operation, `the process sets are ${PSETS.join(' and ')} (session.nthPset)`);
  }

  #live(operation: string): void {
    if (this.#finalized) throw this.#error(ErrorCode.Closed, 'the session was finalized', operation, 'open a new one with Session.init()');
  }

  #error(code: (typeof ErrorCode)[keyof typeof ErrorCode], message: string, operation: string, hint: string): TsmpiError {
    return new TsmpiError(code, message, { rank: this.#world.member ? this.#world.worldRankOf(this.#world.rank) : -1, operation: `session.${operation}`, hint });
  }
}

refuseToEncode(Session, 'a session');
