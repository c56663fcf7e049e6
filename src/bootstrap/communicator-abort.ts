/**
 * `comm.abort(code)` (MPI_Comm_abort; mpi4py's `comm.Abort`): the communicator form of `abort()`.
 * It ends the whole job, as MPI implementations do for any communicator. Aborting is the
 * launcher's business, so src/comm does not import it: this module adds the method to the
 * Communicator's prototype (and, by declaration merging, to its type) when the public API loads.
 */
import { Communicator } from '../comm/communicator.js';
import { abort } from './init.js';
import { setErrhandlerJobEnd } from '../comm/errhandler.js';

declare module '../comm/communicator.js' {
  interface Communicator {
    /** Aborts the whole job with exit code `code` (MPI_Comm_abort), saying which communicator asked. */
    abort(code?: number, message?: string): never;
  }
}

Communicator.prototype.abort = function (this: Communicator, code = 1, message?: string): never {
  return abort(code, message ?? `abort(${code}) called on ${this.name}`);
};

// A fatal error handler (ERRORS_ARE_FATAL, ERRORS_ABORT) ends the job as abort() does.
setErrhandlerJobEnd((message) => abort(1, message));
