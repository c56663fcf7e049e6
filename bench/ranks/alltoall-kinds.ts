/**
 * Microseconds per alltoall of `bytes`-byte blocks, two ways in one job: `alltoall(blocks)` (each
 * block received as a new array, as the predict bench's alltoall program does) and `alltoallv`
 * into an array allocated once (as bench/ranks/collectives.ts times it). Three passes; rank 0
 * prints one JSON line per pass.
 *   tsmpi run -n N bench/ranks/alltoall-kinds.ts [bytes]
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
const bytes = Number(process.argv[2] ?? 65536);
const blocks = Array.from({ length: comm.size }, () => new Uint8Array(bytes));
const flat = new Uint8Array(bytes * comm.size);
const into = new Uint8Array(bytes * comm.size);
const counts = Array.from({ length: comm.size }, () => bytes);
const calls = 300;
for (let pass = 1; pass <= 3; pass++) {
  await comm.barrier();
  let t0 = wtime();
  for (let i = 0; i < calls; i++) await comm.alltoall(blocks);
  const values = ((wtime() - t0) / calls) * 1e6;
  await comm.barrier();
  t0 = wtime();
  for (let i = 0; i < calls; i++) await comm.alltoallv(flat, counts, counts, into);
  const preallocated = ((wtime() - t0) / calls) * 1e6;
  if (comm.rank === 0) console.log(JSON.stringify({ pass, bytes, alltoallUs: values, alltoallvIntoUs: preallocated }));
}
