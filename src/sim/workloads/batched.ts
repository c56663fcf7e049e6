/**
 * A workload's supersteps through `comm.exchange`: the sends of each rank up to a `waitall`
 * (every rank of these workloads has the same waitalls) become one batch, handed to the batch
 * planner; receives are left to the exchange; compute and collectives run as in the replay. This
 * is how the batch-scheduling benchmark runs the six application patterns in the simulator with
 * each planner. A wavefront sweep becomes a bulk-synchronous one (one exchange per octant): its
 * volume and partners are kept, its pipelining across stages is not.
 */
import { exchange } from '../../batch/exchange.js';
import type { Communicator } from '../../comm/communicator.js';
import type { PlannerName } from '../../policy/batch/types.js';
import type { Action } from '../replay/actions.js';
import { PhantomPayload, replayRank } from '../replay/replayer.js';

/** Zero bytes shared by every payload of a run (views of it are sent; nothing reads them). */
let zeros = new Uint8Array(0);
function bytesOf(n: number): Uint8Array {
  if (zeros.length < n) zeros = new Uint8Array(Math.max(n, 2 * zeros.length));
  return zeros.subarray(0, n);
}

export async function replayBatched(comm: Communicator, actions: readonly Action[], planner: PlannerName): Promise<{ supersteps: number; messages: number }> {
  const phantom = new PhantomPayload();
  let batch: { dest: number; tag: number; payload: Uint8Array }[] = [];
  let supersteps = 0;
  let messages = 0;
  const flush = async (): Promise<void> => {
    messages += batch.length;
    supersteps++;
    await exchange(comm, batch, { planner });
    batch = [];
  };
  for (const a of actions) {
    switch (a.op) {
      case 'send':
      case 'isend':
        batch.push({ dest: a.dst, tag: a.tag, payload: bytesOf(a.bytes) });
        break;
      case 'recv':
      case 'irecv':
      case 'wait':
      case 'test':
      case 'init':
      case 'finalize':
      case 'location':
      case 'comm_size':
        break;
      case 'waitall':
        await flush();
        break;
      case 'compute':
      case 'sleep':
        await replayRank(comm, [a], phantom);
        break;
      default:
        // A collective: sends before it belong to the superstep its waitall closes.
        await replayRank(comm, [a], phantom);
    }
  }
  if (batch.length > 0) throw new Error(`rank ${comm.rank}: ${batch.length} sends after the last waitall: the workload is not made of supersteps`);
  return { supersteps, messages };
}
