/** The special ranks and tags of point-to-point calls (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL). */
export const ANY_SOURCE = -1;
export const ANY_TAG = -1;
/** The null peer (MPI_PROC_NULL): a send to it or a receive from it completes at once, moving nothing. */
export const PROC_NULL = -2;
