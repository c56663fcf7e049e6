/** The global symbol's name under which the simulator provides each rank's copy of the runtime. */
export const RANK_RUNTIME_KEY = 'tsmpi.rank-runtime';
