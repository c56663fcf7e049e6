/**
 * How an exchange of two blocks between two ranks speeds up as the ranks run: 40 chunks of 100
 * alltoalls (64 KiB blocks unless a size is given), each chunk's mean time per call in us, from
 * the ranks' first call on. Between processes the first ~1200 calls ran at ~450 us here and the
 * calls after ~2500 at ~140 (docs/simulator.md, "Where the evening table's misses come from");
 * bench/lib/raw-exchange.mjs is the same exchange on bare Node sockets.
 *   tsmpi run -n 2 --procs bench/ranks/exchange-warmup.ts [BYTES]
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 2) throw new Error(`exchange-warmup: run it on 2 ranks (-n 2), not ${comm.size}`);
const bytes = Number(process.argv[2] ?? 65536);
if (!Number.isInteger(bytes) || bytes < 0) throw new Error(`exchange-warmup: the block size must be a byte count, not ${process.argv[2]}`);
const blocks = Array.from({ length: comm.size }, () => new Uint8Array(bytes));
const chunks: string[] = [];
for (let chunk = 0; chunk < 40; chunk++) {
  await comm.barrier();
  const t0 = wtime();
  for (let i = 0; i < 100; i++) await comm.alltoall(blocks);
  chunks.push(((wtime() - t0) / 100 * 1e6).toFixed(0));
}
if (comm.rank === 0) console.log(`${bytes} B blocks: us per alltoall, chunks of 100 calls: ${chunks.join(' ')}`);
