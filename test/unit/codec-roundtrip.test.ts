// Property tests of the value codec: whatever a program sends arrives equal.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { PayloadKind, decodeValue, encodeValue, isRawKind, rawKindOf } from '../../src/comm/codec.ts';
import { ErrorCode, TsmpiError } from '../../src/errors.ts';
// The runtime's handle classes register with the codec as they load (refuseToEncode): the
// properties below run with every extension the runtime has.
import { GROUP_EMPTY } from '../../src/comm/group.ts';
import { REQUEST_NULL } from '../../src/comm/request.ts';
import { MESSAGE_NO_PROC } from '../../src/comm/message.ts';
import '../../src/comm/communicator.ts';

function roundTrip(value: unknown): unknown {
  const { kind, bytes } = encodeValue(value, 0, 'test');
  // Decode from an offset inside a bigger buffer, as from a ring.
  const ring = new Uint8Array(bytes.length + 24);
  ring.set(bytes, 16);
  return decodeValue(kind, ring, 16, bytes.length);
}

// Nested values as programs send them. msgpackr writes -0 inside objects as 0, so nested doubles
// exclude it (a top-level number keeps it: see below).
const leaf = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt(),
  fc.date({ noInvalidDate: true }),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object'), tie('map'), tie('set'), tie('typed')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(fc.string().filter((k) => k !== '__proto__'), tie('value'), { maxKeys: 5, noNullPrototype: true }),
  map: fc.array(fc.tuple(fc.oneof(fc.string(), fc.integer()), tie('value')), { maxLength: 4 }).map((e) => new Map(e)),
  set: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 4 }).map((e) => new Set(e)),
  typed: fc.oneof(fc.float64Array({ maxLength: 8, noDefaultInfinity: true }), fc.int32Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 })),
}));

test('codec: any nested value round-trips', () => {
  fc.assert(
    fc.property(value, (v) => {
      assert.deepStrictEqual(roundTrip(v), v);
    }),
    { numRuns: 500 },
  );
});

test('codec: every number round-trips exactly, -0 and NaN included', () => {
  fc.assert(
    fc.property(fc.double(), (n) => {
      assert.ok(Object.is(roundTrip(n), n));
    }),
  );
  for (const n of [-0, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_SAFE_INTEGER]) assert.ok(Object.is(roundTrip(n), n), String(n));
});

test('codec: strings round-trip through the UTF-8 fast path', () => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => assert.equal(roundTrip(s), s)));
});

test('codec: typed arrays of every kind move as raw bytes and come back as their kind', () => {
  const arbitraries: [string, fc.Arbitrary<ArrayBufferView>][] = [
    ['Int8Array', fc.int8Array()],
    ['Uint8Array', fc.uint8Array()],
    ['Uint8ClampedArray', fc.uint8ClampedArray()],
    ['Int16Array', fc.int16Array()],
    ['Uint16Array', fc.uint16Array()],
    ['Int32Array', fc.int32Array()],
    ['Uint32Array', fc.uint32Array()],
    ['Float32Array', fc.float32Array({ noNaN: true })],
    ['Float64Array', fc.float64Array({ noNaN: true })],
    ['BigInt64Array', fc.bigInt64Array()],
    ['BigUint64Array', fc.bigUint64Array()],
  ];
  for (const [name, arbitrary] of arbitraries) {
    fc.assert(
      fc.property(arbitrary, (array) => {
        const { kind, bytes } = encodeValue(array, 0, 'test');
        assert.ok(isRawKind(kind), name);
        assert.equal(bytes.buffer, array.buffer, `${name} is sent from its own memory`);
        const back = roundTrip(array) as ArrayBufferView;
        assert.equal(back.constructor.name, name);
        assert.deepStrictEqual(back, array);
      }),
      { numRuns: 50 },
    );
  }
  assert.equal(rawKindOf(Buffer.from('x')), PayloadKind.NodeBuffer);
  assert.ok(Buffer.isBuffer(roundTrip(Buffer.from('buffer'))));
  assert.equal(rawKindOf(new DataView(new ArrayBuffer(4))), PayloadKind.DataView);
  assert.equal(rawKindOf({}), -1);
});

test('codec: values that cannot cross ranks throw ERR_ENCODE naming the operation', () => {
  for (const bad of [() => 1, { nested: { fn: Math.max } }, Symbol('s'), [1, Symbol.iterator]]) {
    assert.throws(
      () => encodeValue(bad, 3, 'send'),
      (error: unknown) => error instanceof TsmpiError && error.code === ErrorCode.Encode && error.rank === 3 && error.operation === 'send' && error.hint.length > 0,
    );
  }
});

test('codec: a cycle survives', () => {
  const a: { self?: unknown; list: unknown[] } = { list: [] };
  a.self = a;
  a.list.push(a);
  const back = roundTrip(a) as typeof a;
  assert.equal(back.self, back);
  assert.equal(back.list[0], back);
});

test('codec: a hole in a sparse array arrives as a present undefined (documented beside -0; issue 12)', () => {
  // msgpack has no holes: structured clone would keep `1 in back` false, tsmpi's encoding cannot.
  // docs/guide.md says so; this test fails if either side changes without the other.
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [1, , 3];
  const back = roundTrip(sparse) as unknown[];
  assert.equal(back.length, 3);
  assert.deepStrictEqual([back[0], back[1], back[2]], [1, undefined, 3]);
  assert.equal(1 in back, true);
  const nested = roundTrip({ list: new Array(4) }) as { list: unknown[] };
  assert.equal(nested.list.length, 4);
  assert.equal(Object.keys(nested.list).length, 4);
  const guide = readFileSync(new URL('../../docs/guide.md', import.meta.url), 'utf8');
  assert.match(guide, /holes? in (a )?sparse arrays? arrives? as (a present )?`undefined`/);
});

test('codec: handles of a rank (groups, requests, messages) refuse to be encoded, naming what they are', () => {
  for (const [handle, what] of [[GROUP_EMPTY, 'a group'], [REQUEST_NULL, 'a request'], [MESSAGE_NO_PROC, 'a matched-probe message']] as const) {
    for (const value of [handle, { nested: [handle] }]) {
      assert.throws(() => encodeValue(value, 3, 'send'), (error: unknown) => error instanceof TsmpiError && error.code === ErrorCode.Encode && error.message.includes(what) && error.rank === 3);
    }
  }
  // Sets, Maps, dates, regular expressions and errors still round-trip beside them.
  for (const v of [new Set([1, 'a', 2n]), new Map([['k', new Set([{ a: 1 }])]]), new Date(5), /re/g]) assert.deepStrictEqual(roundTrip(v), v);
});

test('encoded numbers keep their own bytes while later numbers are encoded (views of a shared slab)', () => {
  fc.assert(
    fc.property(fc.array(fc.double(), { minLength: 1, maxLength: 9000 }), (values) => {
      // Held, as sends waiting in a backlog hold their payloads, past the slab's 4096 numbers.
      const held = values.map((v) => encodeValue(v, 0, 'test'));
      held.forEach(({ kind, bytes }, i) => {
        assert.equal(kind, PayloadKind.Number);
        assert.equal(bytes.length, 8);
        assert.ok(Object.is(decodeValue(kind, bytes, 0, 8), values[i]), `number ${i} changed after later encodes`);
      });
    }),
    { numRuns: 20 },
  );
});
