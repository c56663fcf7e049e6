// Rank program of `bench aggregation`. One JSON line per measurement from rank 0.
//   histogram N BYTES MODE      N items of BYTES per rank to random ranks; MODE: conveyor | direct | aggregate
//   gather N MODE               index-gather: N random 8-byte reads per rank from random owners; MODE: conveyor | direct
//   superstep K REPS PLANNER    REPS supersteps of K messages per rank, mixed sizes, random ranks
import { init, Op, type Outgoing, type PlannerName } from 'tsmpi';
import { Rng } from '../../src/rng.ts';

const comm = await init();
const [mode = 'histogram', ...args] = process.argv.slice(2);
const rng = new Rng(`aggregation:${comm.rank}`);
const report = (record: Record<string, unknown>): void => {
  if (comm.rank === 0) console.log(JSON.stringify(record));
};

async function timed(fn: () => Promise<void>): Promise<number> {
  await comm.barrier();
  const start = performance.now();
  await fn();
  await comm.barrier();
  return (performance.now() - start) / 1000;
}

if (mode === 'histogram') {
  const n = Number(args[0] ?? 100_000);
  const bytes = Number(args[1] ?? 8);
  const how = args[2] ?? 'conveyor';
  const table = new Uint32Array(1 << 16);
  const dests = Uint32Array.from({ length: n }, () => rng.int(0, comm.size - 1));
  const item = new Uint8Array(bytes);
  const view = new DataView(item.buffer);
  let received = 0;
  const seconds = await timed(async () => {
    if (how === 'conveyor') {
      const conveyor = await comm.conveyor({ onItem: (_s, it) => {
        table[(it[0]! | (it[1]! << 8)) & 0xffff]!++;
        received++;
      } });
      for (let i = 0; i < n; i++) {
        view.setUint32(0, i * 2654435761, true);
        if (!conveyor.push(dests[i]!, item)) await conveyor.advance();
      }
      await conveyor.close();
    } else {
      const sends: Outgoing[] = [];
      for (let i = 0; i < n; i++) {
        const payload = new Uint8Array(bytes);
        new DataView(payload.buffer).setUint32(0, i * 2654435761, true);
        sends.push({ dest: dests[i]!, tag: 0, payload });
      }
      const got = await comm.exchange<Uint8Array>(sends, { planner: how as PlannerName });
      for (const m of got) table[(m.payload[0]! | (m.payload[1]! << 8)) & 0xffff]!++;
      received = got.length;
    }
  });
  const total = await comm.allreduce(received, Op.sum);
  if (total !== n * comm.size) throw new Error(`histogram lost items: ${total} of ${n * comm.size}`);
  report({ bench: 'histogram', mode: how, bytes, items: total, seconds, itemsPerSecond: total / seconds });
} else if (mode === 'gather') {
  const n = Number(args[0] ?? 50_000);
  const how = args[1] ?? 'conveyor';
  const local = Float64Array.from({ length: 1 << 14 }, (_, i) => comm.rank * 1e6 + i);
  const owners = Uint32Array.from({ length: n }, () => rng.int(0, comm.size - 1));
  const indices = Uint32Array.from({ length: n }, () => rng.int(0, local.length - 1));
  const result = new Float64Array(n);
  const seconds = await timed(async () => {
    if (how === 'conveyor') {
      let replies: Awaited<ReturnType<typeof comm.conveyor>> | undefined;
      const pendingReplies: [number, Uint8Array][] = [];
      const requests = await comm.conveyor({ onItem: (source, it) => {
        // request: u32 slot, u32 index -> reply: u32 slot, f64 value
        const v = new DataView(it.buffer, it.byteOffset, it.length);
        const out = new Uint8Array(12);
        const o = new DataView(out.buffer);
        o.setUint32(0, v.getUint32(0, true), true);
        o.setFloat64(4, local[v.getUint32(4, true)]!, true);
        if (replies === undefined || !replies.push(source, out)) pendingReplies.push([source, out]);
      } });
      replies = await comm.conveyor({ onItem: (_s, it) => {
        const v = new DataView(it.buffer, it.byteOffset, it.length);
        result[v.getUint32(0, true)] = v.getFloat64(4, true);
      } });
      const req = new Uint8Array(8);
      const rv = new DataView(req.buffer);
      for (let i = 0; i < n; i++) {
        rv.setUint32(0, i, true);
        rv.setUint32(4, indices[i]!, true);
        if (!requests.push(owners[i]!, req)) await requests.advance();
        while (pendingReplies.length > 0) {
          const [d, out] = pendingReplies.shift()!;
          if (!replies.push(d, out)) await replies.advance();
        }
      }
      await requests.close();
      for (const [d, out] of pendingReplies.splice(0)) if (!replies.push(d, out)) await replies.advance();
      await replies.close();
    } else {
      const ask = await comm.exchange<Uint32Array>(Array.from({ length: n }, (_, i) => ({ dest: owners[i]!, tag: 0, payload: Uint32Array.of(i, indices[i]!) })), { planner: 'direct' });
      const answers = await comm.exchange<Float64Array>(ask.map((m) => ({ dest: m.source, tag: 0, payload: Float64Array.of(m.payload[0]!, local[m.payload[1]!]!) })), { planner: 'direct' });
      for (const a of answers) result[a.payload[0]!] = a.payload[1]!;
    }
  });
  for (let i = 0; i < n; i++) if (result[i] !== owners[i]! * 1e6 + indices[i]!) throw new Error(`index-gather: read ${i} got ${result[i]}`);
  report({ bench: 'gather', mode: how, items: n * comm.size, seconds, itemsPerSecond: (n * comm.size) / seconds });
} else if (mode === 'superstep') {
  const k = Number(args[0] ?? 200);
  const reps = Number(args[1] ?? 5);
  const planner = (args[2] ?? 'direct') as PlannerName;
  const sizes = (): number => {
    const x = rng.next();
    return x < 0.7 ? rng.int(16, 256) : x < 0.95 ? rng.int(1024, 16384) : rng.int(65536, 524288);
  };
  const batch: Outgoing[] = Array.from({ length: k }, () => ({ dest: rng.int(0, comm.size - 1), tag: rng.int(0, 3), payload: new Uint8Array(sizes()) }));
  await comm.exchange(batch, { planner }); // untimed: warm-up (and the adaptive planner's first cost sample)
  for (let r = 0; r < reps; r++) {
    const seconds = await timed(async () => void (await comm.exchange(batch, { planner })));
    report({ bench: 'superstep', planner, messages: k, seconds });
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
