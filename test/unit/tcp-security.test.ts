// The TCP transport on real loopback sockets: authenticated ranks exchange frames; a stranger,
// an impostor with the wrong secret, and an insider sending malformed or oversized frames are all
// turned away without disturbing the job's own connection.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { connectHandshake, jobTag } from '../../src/transport/handshake.ts';
import { FRAME_HEADER_WORDS, type InboundFrame, type Link, type LinkEvents } from '../../src/transport/link.ts';
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
