/**
 * All-to-all.
 * - pairwise (default): p - 1 rounds; in round s rank r sends to r + s and receives from r - s,
 *   so every link carries one message per round and no rank is flooded.
 * - linear: post every receive and send at once.
 * alltoallv (a typed array cut by send counts): receive counts by a pairwise exchange (unless
 * given), then pairwise rounds that receive every block straight into its place.
 */
import { allocateLike, bytesOf, type TypedArray } from '../codec.js';
import { ErrorCode, TsmpiError } from '../../errors.js';
import type { CollectiveCall } from './call.js';
import { checkCounts, displacements, type Concatenated } from './gather.js';
import { selectAlltoall } from './select.js';

export async function alltoall<T>(call: CollectiveCall, values: readonly T[]): Promise<T[]> {
  const { rank, size } = call;
  if (!Array.isArray(values) || values.length !== size) {
    throw new TsmpiError(ErrorCode.Count, `alltoall needs an array of ${size} values (values[i] goes to rank i)`, {
      rank,
      operation: call.operation,
      hint: `pass an array of length ${size}`,
    });
  }
  const out: T[] = new Array(size);
  out[rank] = values[rank]!;
  if (selectAlltoall(call.settings) === 'linear') {
    const receives = Array.from({ length: size }, (_, r) => (r === rank ? undefined : call.recv<T>(r)));
    const sends = values.map((v, r) => (r === rank ? undefined : call.send(v, r)));
    for (let r = 0; r < size; r++) if (r !== rank) out[r] = await receives[r]!.wait();
    for (const send of sends) if (send) await send.wait();
    return out;
  }
  for (let step = 1; step < size; step++) {
    const dest = (rank + step) % size;
    const source = (rank - step + size) % size;
    out[source] = await call.sendrecv<T>(values[dest], dest, source);
  }
  return out;
}

export async function alltoallv<A extends TypedArray>(call: CollectiveCall, data: A, sendCounts: readonly number[], knownRecvCounts?: readonly number[]): Promise<Concatenated<A>> {
  const { rank, size } = call;
  checkCounts(sendCounts, size, call.operation, rank, 'sendCounts');
  const sendDispls = displacements(sendCounts);
  const sendTotal = sendDispls[size - 1]! + sendCounts[size - 1]!;
  if (sendTotal !== data.length) {
    throw new TsmpiError(ErrorCode.Count, `sendCounts add up to ${sendTotal} but the data has ${data.length} elements`, {
      rank,
      operation: call.operation,
      hint: 'sendCounts must add up to the length of the data',
    });
  }
  let recvCounts: number[];
  if (knownRecvCounts !== undefined) {
    checkCounts(knownRecvCounts, size, call.operation, rank, 'recvCounts');
    recvCounts = [...knownRecvCounts];
  } else {
    recvCounts = await alltoall(call, [...sendCounts]);
  }
  const recvDispls = displacements(recvCounts);
  const out = allocateLike(data, recvDispls[size - 1]! + recvCounts[size - 1]!);
  out.subarray(recvDispls[rank]!, recvDispls[rank]! + recvCounts[rank]!).set(data.subarray(sendDispls[rank]!, sendDispls[rank]! + sendCounts[rank]!) as never);
  for (let step = 1; step < size; step++) {
    const dest = (rank + step) % size;
    const source = (rank - step + size) % size;
    const into = out.subarray(recvDispls[source]!, recvDispls[source]! + recvCounts[source]!);
    const receive = into.length > 0 ? call.recvInto(bytesOf(into), source) : undefined;
    const send = sendCounts[dest]! > 0 ? call.send(data.subarray(sendDispls[dest]!, sendDispls[dest]! + sendCounts[dest]!), dest) : undefined;
    if (receive) await receive.wait();
    if (send) await send.wait();
  }
  return { data: out, counts: recvCounts, displs: recvDispls };
}
