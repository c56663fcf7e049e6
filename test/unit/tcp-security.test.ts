// The TCP transport on real loopback sockets: authenticated ranks exchange frames; a stranger,
// an impostor with the wrong secret, and an insider sending malformed or oversized frames are all
// turned away without disturbing the job's own connection. Frames copied into reused buffers
// arrive intact, and a burst of nonblocking sends is held in the corked socket until the rank polls.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { connectHandshake, jobTag } from '../../src/transport/handshake.ts';
import { FRAME_BURST, FRAME_HEADER_WORDS, type InboundFrame, type Link, type LinkEvents } from '../../src/transport/link.ts';
import { TcpTransport, type TcpEndpointAddress } from '../../src/transport/tcp-transport.ts';

const JOB = 'test-job';
const secret = Buffer.alloc(32, 7);

interface Recorder extends LinkEvents {
  frames: { peer: number; words: number[]; payload: string; raw: Buffer }[];
  closures: { peer: number; error: string | undefined }[];
  drained: Promise<void>;
}

function recorder(): Recorder {
  let release!: () => void;
  const drained = new Promise<void>((resolve) => (release = resolve));
  const r: Recorder = {
    frames: [],
    closures: [],
    drained,
    frame(link: Link, frame: InboundFrame) {
      const words = Array.from(frame.words.subarray(frame.headerIndex, frame.headerIndex + FRAME_HEADER_WORDS));
      const raw = Buffer.from(frame.bytes.subarray(frame.payloadOffset, frame.payloadOffset + frame.payloadLength));
      r.frames.push({ peer: link.peer, words, payload: raw.toString(), raw });
    },
    arrived() {},
    drain() {
      release();
    },
    closed(link: Link, error: Error | undefined) {
      r.closures.push({ peer: link.peer, error: error?.message });
    },
  };
  return r;
}

async function transport(rank: number, key: Buffer, logs: string[]): Promise<{ t: TcpTransport; address: TcpEndpointAddress; events: Recorder }> {
  const t = new TcpTransport({ rank, secret: key, jobId: JOB, listenHost: '127.0.0.1', maxFramePayload: 65536, maxFrameBytes: 1 << 20, eagerLimit: 1 << 20, log: (l) => logs.push(l) });
  const address = await t.listen();
  const events = recorder();
  t.attach(events);
  return { t, address, events };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), `timed out waiting for ${what}`);
}

function rawConnect(address: TcpEndpointAddress): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(address.port, address.host, () => resolve(s));
    s.once('error', reject);
  });
}

/** Ranks 0 and 1 of one job, each knowing the other's address. */
async function pair(logs: string[]): Promise<{ a: Awaited<ReturnType<typeof transport>>; b: Awaited<ReturnType<typeof transport>> }> {
  const a = await transport(0, secret, logs);
  const b = await transport(1, secret, logs);
  a.t.setPeers([a.address, b.address], secret);
  b.t.setPeers([a.address, b.address], secret);
  return { a, b };
}

function header(tag: number): Int32Array {
  const h = new Int32Array(FRAME_HEADER_WORDS);
  h[0] = 1;
  h[3] = tag;
  return h;
}

test('tcp: authenticated ranks exchange frames in order; strangers and impostors are refused', async () => {
  const logs: string[] = [];
  const { a, b } = await pair(logs);

  // A stranger speaks garbage to rank 1.
  const stranger = await rawConnect(b.address);
  stranger.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.padEnd(64, ' '));
  // An impostor knows the protocol but not the secret.
  const impostor = new TcpTransport({ rank: 0, secret: Buffer.alloc(32, 9), jobId: JOB, listenHost: '127.0.0.1', maxFramePayload: 65536, maxFrameBytes: 1 << 20, eagerLimit: 1 << 20, log: () => {} });
  impostor.setPeers([undefined, b.address], Buffer.alloc(32, 9));
  const impostorEvents = recorder();
  const impostorLink = impostor.createLink(1, impostorEvents);

  const link = a.t.createLink(1, a.events);
  await a.events.drained;
  for (let i = 0; i < 100; i++) assert.ok(link.trySend(header(i), Buffer.from(`message ${i}`), 0, `message ${i}`.length) || i > 0);
  await until(() => b.events.frames.length === 100, '100 frames at rank 1');
  b.events.frames.forEach((f, i) => {
    assert.equal(f.peer, 0);
    assert.equal(f.words[3], i);
    assert.equal(f.payload, `message ${i}`);
  });
  await until(() => b.t.refused >= 2, 'two refusals');
  assert.ok(logs.some((l) => /rank 1 refused a connection from 127\.0\.0\.1:\d+: not a tsmpi connection/.test(l)), logs.join('\n'));
  await until(() => impostorEvents.closures.length === 1, 'the impostor link to fail');
  assert.match(impostorEvents.closures[0]!.error!, /rank 1 could not prove it knows the job secret|cannot reach world rank 1/);
  assert.equal(impostorLink.trySend(header(0), null, 0, 0), false);
  assert.equal(b.events.closures.length, 0, 'the job connection is untouched');
  stranger.destroy();
  impostor.close();
  a.t.close();
  b.t.close();
});

for (const [what, lengthWord, pattern] of [
  ['malformed', 5, /sent a frame of 5 bytes/],
  ['oversized', 64 << 20, /sent a frame of 67108864 bytes \(allowed: 32 to 1048576\)/],
] as const) {
  test(`tcp: an authenticated peer that sends a ${what} frame loses its connection, the rank carries on`, async () => {
    const logs: string[] = [];
    const b = await transport(1, secret, logs);
    b.t.setPeers([undefined, b.address], secret);
    const insider = await rawConnect(b.address);
    await connectHandshake(insider, secret, 0, 1, jobTag(JOB));
    const bad = Buffer.alloc(8);
    bad.writeUInt32LE(lengthWord, 0);
    insider.write(bad);
    await until(() => b.events.closures.length === 1, 'the connection to close');
    assert.equal(b.events.closures[0]!.peer, 0);
    assert.match(b.events.closures[0]!.error!, pattern);
    assert.match(b.events.closures[0]!.error!, /the connection is closed/);
    // The rank still accepts a well-behaved connection.
    const a = await transport(0, secret, logs);
    a.t.setPeers([undefined, b.address], secret);
    const link = a.t.createLink(1, a.events);
    await a.events.drained;
    link.trySend(header(42), Buffer.from('after'), 0, 5);
    await until(() => b.events.frames.length === 1, 'a frame after the bad one');
    assert.equal(b.events.frames[0]!.payload, 'after');
    insider.destroy();
    a.t.close();
    b.t.close();
  });
}

test('tcp: copied frames of 8 KiB and more arrive intact while the link reuses their buffers, the source changed after every send', async () => {
  const logs: string[] = [];
  const { a, b } = await pair(logs);
  const link = a.t.createLink(1, a.events);
  await a.events.drained;
  // Sizes across several size classes; the same source bytes rewritten after each send, as a
  // program may once an eager send has completed.
  const sizes = Array.from({ length: 300 }, (_, i) => 8192 + ((i * 7919) % 57_000));
  const source = Buffer.alloc(65_536);
  let sent = 0;
  while (sent < sizes.length) {
    const length = sizes[sent]!;
    source.fill(sent % 251, 0, length);
    source.writeUInt32LE(sent, 0);
    if (link.trySend(header(sent), source, 0, length)) {
      sent++;
      source.fill(0xee);
    } else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await until(() => b.events.frames.length === sizes.length, `${sizes.length} frames at rank 1`);
  b.events.frames.forEach((f, i) => {
    assert.equal(f.words[3], i);
    assert.equal(f.raw.length, sizes[i], `frame ${i} length`);
    assert.equal(f.raw.readUInt32LE(0), i, `frame ${i} carries its own number`);
    for (let k = 4; k < f.raw.length; k++) if (f.raw[k] !== i % 251) assert.fail(`frame ${i} byte ${k} is ${f.raw[k]}, not ${i % 251}`);
  });
  a.t.close();
  b.t.close();
});

test('tcp: a burst of isend frames, the first written at once, the rest held in the corked socket until the rank polls, its job ends or a frame not of a burst follows; nothing lost, in order', async () => {
  const logs: string[] = [];
  const { a, b } = await pair(logs);
  const link = a.t.createLink(1, a.events);
  await a.events.drained;
  const payload = Buffer.alloc(8);
  let next = 0;
  /** Sends frame number `next` (its tag and first payload byte), flagged as a burst's or not. */
  const send = (burst: boolean): void => {
    const h = header(next);
    if (burst) h[0]! |= FRAME_BURST;
    payload.fill(next & 0xff);
    assert.ok(link.trySend(h, payload, 0, payload.length), `frame ${next} taken`);
    next++;
  };
  // Bytes a frame of 8 B takes in the socket's buffer: a length prefix, the header, the payload.
  const frameBytes = 4 + FRAME_HEADER_WORDS * 4 + 8;
  const held = (): number => link.bytesInFlight();

  send(true);
  assert.equal(held(), 0, 'the first frame of a burst is written at once');
  send(true);
  send(true);
  assert.equal(held(), 2 * frameBytes, 'the rest of the burst waits in the corked socket');
  a.t.pollStarts();
  assert.equal(held(), 0, 'the poll writes them');

  send(true);
  assert.equal(held(), 0, 'a poll began a new burst: its first frame goes at once');
  send(true);
  assert.equal(held(), frameBytes);
  await Promise.resolve();
  assert.equal(held(), 0, 'the end of the job writes what was held');

  send(true);
  send(true);
  assert.equal(held(), frameBytes);
  send(false);
  assert.equal(held(), 0, 'a frame not of a burst (a blocking send, the protocol) goes with what was held before it');
  send(true);
  assert.equal(held(), frameBytes, 'the burst goes on: its next frame is held');
  a.t.pollStarts();

  // A long burst of large borrowed frames: all arrive, in order and intact.
  await Promise.resolve();
  const big = Buffer.alloc(100_000);
  const bigFrames: number[] = [];
  while (bigFrames.length < 48) {
    const h = header(next);
    h[0]! |= FRAME_BURST;
    const view = Buffer.alloc(big.length, next & 0xff);
    // A full socket refuses (backpressure) until it drains: try again after a turn of the loop.
    if (link.trySend(h, view, 0, view.length, true)) bigFrames.push(next++);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await until(() => b.events.frames.length === next, `${next} frames at rank 1`);
  assert.deepEqual(b.events.frames.map((f) => f.words[3]), Array.from({ length: next }, (_, i) => i), 'every frame once, in order');
  b.events.frames.forEach((f, i) => {
    assert.equal(f.raw.length, bigFrames.includes(i) ? big.length : 8, `frame ${i} length`);
    assert.ok(f.raw.every((byte) => byte === (i & 0xff)), `frame ${i} carries its own bytes`);
  });
  assert.deepEqual(logs, []);
  a.t.close();
  b.t.close();
});
