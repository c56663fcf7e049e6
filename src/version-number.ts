/** tsmpi's version, as package.json gives it (a unit test keeps the two equal): the runtime bundle reads no file for it. */
export const TSMPI_VERSION = '0.1.0';

/** The MPI standard version whose semantics tsmpi follows (MPI_VERSION, MPI_SUBVERSION): MPI-4.0's calls are what it adds last. */
export const MPI_STANDARD_VERSION: readonly [major: number, minor: number] = Object.freeze([4, 0] as const);
