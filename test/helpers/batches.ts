/**
 * Random superstep batches that every rank can regenerate for every other rank (seeded), and
 * what `comm.exchange` must deliver for them: shared by the simulator property tests and the
 * runtime fixture.
 */
import { Rng } from '../../src/rng.ts';

export interface BatchSend {
  dest: number;
  tag: number;
  payload: unknown;
}

/** The payload of message `i` of `rank` in case `seed`: kinds and sizes vary, some are large. */
function payloadOf(rng: Rng, rank: number, i: number, bigBytes: number): unknown {
  switch (rng.int(0, 6)) {
    case 0:
      return Uint8Array.from({ length: rng.int(0, 40) }, (_, k) => (k * 7 + rank + i) & 0xff);
    case 1:
      return Float64Array.from({ length: rng.int(1, 20) }, (_, k) => rank + i / 10 + k);
    case 2:
      return `from ${rank} #${i} ${'x'.repeat(rng.int(0, 30))}`;
    case 3:
      return { rank, i, list: [i, rank, 'z'], nested: { ok: true } };
    case 4:
      return rng.int(-1000, 1000) / 7;
    case 5:
      return new Int32Array(rng.int(0, 3000)).fill(rank * 1000 + i);
    default:
      return rng.next() < 0.3 ? new Uint8Array(bigBytes).fill((rank + i) & 0xff) : new Uint16Array(rng.int(0, 100)).fill(i);
  }
}

/** Rank `rank`'s batch in case `seed` on `size` ranks (0 to `maxMessages` messages). */
export function batchOf(seed: number, rank: number, size: number, maxMessages: number, bigBytes = 300_000): BatchSend[] {
  const rng = new Rng(`${seed}:${rank}`);
  const n = rng.int(0, maxMessages);
  return Array.from({ length: n }, (_, i) => ({ dest: rng.int(0, size - 1), tag: rng.int(0, 5), payload: payloadOf(rng, rank, i, bigBytes) }));
}

/** What rank `rank` must receive: by source in rank order, in each sender's order. */
export function expectedFor(batches: readonly BatchSend[][], rank: number): { source: number; tag: number; payload: unknown }[] {
  return batches.flatMap((batch, source) => batch.filter((m) => m.dest === rank).map((m) => ({ source, tag: m.tag, payload: m.payload })));
}
