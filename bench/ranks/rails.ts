// Rank program of `bench rails` (2 ranks in different processes, normally in the two namespaces
// of test/infra/rails.sh; or on two simulated hosts under `tsmpi sim`). Rank 1 posts its receive
// and says so; rank 0 then times one message from its send to rank 1's "done", so the figure is
// the message's delivery time (plus one request-to-send round trip and one small message, ~0.2 ms).
// Times come from the rank's clock: real in a real run, virtual in the simulator.
//   static  W R size...   : W untimed then R timed messages per size, one JSON line per timed one
//   stream  bytes seconds : messages of `bytes` back to back for `seconds`, one JSON line each
//                           with its end on the rank's clock (`clock`, s) and on the wall clock
//                           (`end`, ms since the epoch, for the real driver's rate changes)
import { communicationState, init } from 'tsmpi';

const comm = await init();
const [mode = 'static', ...rest] = process.argv.slice(2);
const READY = 3;
const DATA = 2;
const DONE = 4;

async function one(bytes: number, payload: Uint8Array | undefined, into: Uint8Array | undefined): Promise<number> {
  if (comm.rank === 1) {
    const received = comm.recvInto(into!, 0, DATA);
    await comm.send(0, 0, READY);
    await received;
    await comm.send(0, 0, DONE);
    return 0;
  }
  await comm.recv(1, READY);
  const start = comm.clock.now();
  await comm.send(payload!, 1, DATA);
  await comm.recv(1, DONE);
  return comm.clock.now() - start;
}

function buffers(bytes: number): { payload: Uint8Array | undefined; into: Uint8Array | undefined } {
  return comm.rank === 0 ? { payload: new Uint8Array(bytes).fill(7), into: undefined } : { payload: undefined, into: new Uint8Array(bytes) };
}

if (comm.rank <= 1) {
  if (mode === 'static') {
    const [warm = '1', reps = '3', ...sizes] = rest;
    for (const size of sizes.map(Number)) {
      const { payload, into } = buffers(size);
      for (let i = 0; i < Number(warm); i++) await one(size, payload, into);
      for (let i = 0; i < Number(reps); i++) {
        const seconds = await one(size, payload, into);
        if (comm.rank === 0) console.log(JSON.stringify({ bench: 'rails', bytes: size, seconds }));
      }
    }
  } else if (mode === 'stream') {
    const bytes = Number(rest[0] ?? 16 << 20);
    const seconds = Number(rest[1] ?? 6);
    const { payload, into } = buffers(bytes);
    const end = comm.clock.now() + seconds;
    // Rank 0 decides when to stop and tells rank 1 with each READY/DONE exchange's partner message.
    for (;;) {
      let more = 1;
      if (comm.rank === 0) {
        more = comm.clock.now() < end ? 1 : 0;
        await comm.send(more, 1, 5);
      } else {
        more = await comm.recv<number>(0, 5);
      }
      if (!more) break;
      const took = await one(bytes, payload, into);
      if (comm.rank === 0) console.log(JSON.stringify({ bench: 'rails-stream', bytes, seconds: took, end: Date.now(), clock: comm.clock.now() }));
    }
  } else {
    throw new Error(`unknown mode ${mode}: static or stream`);
  }
}
await comm.barrier();
if (comm.rank === 0) console.log(JSON.stringify({ bench: 'rails-state', state: JSON.stringify(communicationState().rails ?? null) }));
