/**
 * Barrier. Dissemination (Hensgen, Finkel, Manber 1988): ceil(log2 p) rounds; in round k each
 * rank signals rank + 2^k and waits for rank - 2^k. Linear (Open MPI's basic linear): everyone
 * reports to rank 0, which, with all their reports in, releases everyone at once.
 */
import type { CollectiveCall } from './call.js';
import { wait, type Steps } from './steps.js';
import { selectBarrier } from './select.js';

export function* barrier(call: CollectiveCall): Steps<void> {
  const { rank, size } = call;
  if (size === 1) return;
  if (selectBarrier(call.settings) === 'linear') {
    if (rank === 0) {
      yield Array.from({ length: size - 1 }, (_, i) => call.recv(i + 1));
      yield Array.from({ length: size - 1 }, (_, i) => call.send(0, i + 1));
    } else {
      yield* wait(call.send(0, 0));
      yield* wait(call.recv(0));
    }
    return;
  }
  for (let step = 1; step < size; step *= 2) {
    yield* call.exchange(0, (rank + step) % size, (rank - step + size) % size);
  }
}
