/** The global symbol's name under which the simulator provides each rank's copy of the runtime. */
export const RANK_RUNTIME_KEY = 'tsmpi.rank-runtime';

/**
 * The global symbol's name under which a rank thread keeps the runtime it loaded before the
 * program (rank-thread.ts): `{ path, exports }`, `path` the runtime script's. 'tsmpi' in the
 * program's bundle (app-loader.ts) and the package's entry (scripts/bundle.mjs) take it from there.
 */
export const PRELOADED_RUNTIME_KEY = 'tsmpi.runtime';
