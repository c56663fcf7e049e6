// A Piscina task for bench balance: the tiny task of the per-task overhead comparison.
export default (x) => x + 1;
