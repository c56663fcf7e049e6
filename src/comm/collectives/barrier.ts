/**
 * Barrier. Shared: the world's ranks all in this process count their arrivals in shared memory
 * (shared-barrier.ts). Dissemination (Hensgen, Finkel, Manber 1988): ceil(log2 p) rounds; in
 * round k each rank signals rank + 2^k and waits for rank - 2^k. Linear (Open MPI's basic
 * linear): everyone reports to rank 0, which, with all their reports in, releases everyone at once.
 */
import type { CollectiveCall } from './call.js';
import { stepOf, type Awaitable, type Steps } from './steps.js';
import { selectBarrier } from './select.js';

// A barrier's messages carry nothing: empty raw bytes, received into an empty buffer, are
// neither encoded nor decoded (a number would cost an encode and a decode per message).
const NOTHING = new Uint8Array(0);

/**
 * This rank's barrier when it is one step, its requests made now: the shared barrier's, or the
 * pair of a 2-rank dissemination. Undefined otherwise, or when the rank is traced: run
 * {@link barrier} then.
 */
export function barrierStep(call: CollectiveCall): Awaitable | undefined {
  const size = call.size;
  if (size === 1 || call.traced) return undefined;
  const algorithm = selectBarrier(call.settings, size, call.sharedBarrierAvailable);
  if (algorithm === 'shared') return call.sharedBarrier();
  if (algorithm !== 'dissemination' || size !== 2) return undefined;
  const peer = 1 - call.rank;
  const [receive, send] = call.exchangeStep(NOTHING, NOTHING, peer);
  return stepOf(receive, send);
}

export function* barrier(call: CollectiveCall): Steps<void> {
  const { rank, size } = call;
  if (size === 1) return;
  const algorithm = selectBarrier(call.settings, size, call.sharedBarrierAvailable);
  if (algorithm === 'shared') {
    yield call.sharedBarrier();
    return;
  }
  if (algorithm === 'linear') {
    if (rank === 0) {
      yield Array.from({ length: size - 1 }, (_, i) => call.recvInto(NOTHING, i + 1));
      yield Array.from({ length: size - 1 }, (_, i) => call.send(NOTHING, i + 1));
    } else {
      yield call.send(NOTHING, 0);
      yield call.recvInto(NOTHING, 0);
    }
    return;
  }
  for (let step = 1; step < size; step *= 2) {
    const receive = call.recvInto(NOTHING, (rank - step + size) % size);
    const send = call.send(NOTHING, (rank + step) % size);
    yield receive;
    yield send;
  }
}
