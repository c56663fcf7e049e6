/**
 * What first messages cost: 3 ranks, 16-byte round trips. Ranks 0 and 1 meet first (their
 * first contact: each compiles its path and, between processes, opens its connections), then
 * warm up; ranks 1 and 2 warm up; then ranks 0 and 2, warm but never linked, meet (a new link
 * alone). Last, ranks 0 and 1 swap their first encoded value (an object: the codec's first
 * use on both) and a second one. Rank 0 prints microseconds per round trip. docs/simulator.md
 * and docs/architecture.md read it.
 *   tsmpi run -n 3 [--procs] bench/ranks/first-contact.ts
 */
import { init, wtime } from 'tsmpi';

const comm = await init();
if (comm.size !== 3) throw new Error(`first-contact runs on 3 ranks, not ${comm.size}`);
const message = new Uint8Array(16);

/** Microseconds per round trip of `trips` between ranks a and b (a sends first); others return at once. */
async function roundTrips(a: number, b: number, trips: number): Promise<number> {
  const t0 = wtime();
  for (let i = 0; i < trips; i++) {
    if (comm.rank === a) {
      await comm.send(message, b, 1);
      await comm.recvInto(message, b, 1);
    } else if (comm.rank === b) {
      await comm.recvInto(message, a, 1);
      await comm.send(message, a, 1);
    }
  }
  return ((wtime() - t0) / trips) * 1e6;
}

/** Lets the peer settle into its receive first, as the calibration's first contact does. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));
if (comm.rank === 0) await settle();
const first = await roundTrips(0, 1, 1);
const second = await roundTrips(0, 1, 1);
const warm01 = await roundTrips(0, 1, 2000);
await roundTrips(1, 2, 2000);
// Ranks 0 and 2 wait for rank 1's word, so no barrier links them first.
if (comm.rank === 1) {
  await comm.send(message, 0, 2);
  await comm.send(message, 2, 2);
} else await comm.recvInto(message, 1, 2);
if (comm.rank === 0) await settle();
const newLink = await roundTrips(0, 2, 1);
const warm02 = await roundTrips(0, 2, 2000);
// The first encoded values: the object codec's first use on both ranks.
const valueTrip = async (): Promise<number> => {
  const t0 = wtime();
  if (comm.rank === 0) {
    await comm.send({ step: 1, name: 'first' }, 1, 3);
    await comm.recv(1, 3);
  } else if (comm.rank === 1) {
    await comm.recv(0, 3);
    await comm.send({ step: 2, name: 'reply' }, 0, 3);
  }
  return (wtime() - t0) * 1e6;
};
const firstValue = await valueTrip();
const secondValue = await valueTrip();
if (comm.rank === 0) console.log(`first encoded values ${firstValue.toFixed(0)} us, the next ${secondValue.toFixed(0)} us`);
if (comm.rank === 0) console.log(`first contact ${first.toFixed(0)} us, its second round trip ${second.toFixed(0)} us, warm ${warm01.toFixed(1)} us; a new link between warm ranks ${newLink.toFixed(0)} us, warm ${warm02.toFixed(1)} us`);
