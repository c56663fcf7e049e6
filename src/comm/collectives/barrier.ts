/**
 * Barrier. Dissemination (Hensgen, Finkel, Manber 1988): ceil(log2 p) rounds; in round k each
 * rank signals rank + 2^k and waits for rank - 2^k. Linear (Open MPI's basic linear): everyone
 * reports to rank 0, which, with all their reports in, releases everyone at once.
 */
import { waitAll } from '../request.js';
import type { CollectiveCall } from './call.js';
import { selectBarrier } from './select.js';

export async function barrier(call: CollectiveCall): Promise<void> {
  const { rank, size } = call;
  if (size === 1) return;
  if (selectBarrier(call.settings) === 'linear') {
    if (rank === 0) {
      await waitAll(Array.from({ length: size - 1 }, (_, i) => call.recv(i + 1)));
      await waitAll(Array.from({ length: size - 1 }, (_, i) => call.send(0, i + 1)));
    } else {
      await call.send(0, 0).wait();
      await call.recv(0).wait();
    }
    return;
  }
  for (let step = 1; step < size; step *= 2) {
    await call.sendrecv(0, (rank + step) % size, (rank - step + size) % size);
  }
}
