/**
 * How a value becomes payload bytes and back. Typed arrays, Buffers and DataViews move as their
 * raw bytes (no serialisation; the receiver gets the same kind of array back). Numbers and
 * strings take short fast paths. Everything else is encoded with msgpackr in structured-clone
 * mode (cycles, Map, Set, Date, RegExp, Error, BigInt and nested typed arrays survive); values
 * that cannot cross a thread or process boundary (functions, symbols) throw ERR_ENCODE.
 */
import { createRequire } from 'node:module';
import type { Packr } from 'msgpackr';
import { copyBytes, copyOut } from '../transport/copy-bytes.js';
import { ErrorCode, TsmpiError } from '../errors.js';

/** Every typed array kind JavaScript has. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** What buffer operations (`recvInto`, `bcastInto`) accept: any typed array, Buffer or DataView. */
export type BufferLike = TypedArray | DataView;

/** Payload kinds, carried in the frame header. Values are wire format: never renumber. */
export const PayloadKind = {
  Uint8: 0,
  Int8: 1,
  Uint8Clamped: 2,
  Int16: 3,
  Uint16: 4,
  Int32: 5,
  Uint32: 6,
  Float32: 7,
  Float64: 8,
  BigInt64: 9,
  BigUint64: 10,
  NodeBuffer: 11,
  DataView: 12,
  Number: 16,
  String: 17,
  Packed: 18,
} as const;

type ArrayCtor = {
  new (length: number): TypedArray;
  new (buffer: ArrayBuffer, byteOffset?: number, length?: number): TypedArray;
  BYTES_PER_ELEMENT: number;
};

const arrayCtors: (ArrayCtor | undefined)[] = [];
arrayCtors[PayloadKind.Uint8] = Uint8Array;
arrayCtors[PayloadKind.Int8] = Int8Array;
arrayCtors[PayloadKind.Uint8Clamped] = Uint8ClampedArray;
arrayCtors[PayloadKind.Int16] = Int16Array;
arrayCtors[PayloadKind.Uint16] = Uint16Array;
arrayCtors[PayloadKind.Int32] = Int32Array;
arrayCtors[PayloadKind.Uint32] = Uint32Array;
arrayCtors[PayloadKind.Float32] = Float32Array;
arrayCtors[PayloadKind.Float64] = Float64Array;
arrayCtors[PayloadKind.BigInt64] = BigInt64Array as unknown as ArrayCtor;
arrayCtors[PayloadKind.BigUint64] = BigUint64Array as unknown as ArrayCtor;

// A small typed array is staged through these (aligned, private) and copied element by element
// into an array sized by count, which V8 allocates on its own heap: a new ArrayBuffer takes a
// backing store from the allocator and counts as external memory for the collector (a received
// Float64Array(1) cost a 2-rank exchange of one double 2.6 us against 0.9 us for a number).
const SMALL_ARRAY_BYTES = 64;
const smallArrayStage = new ArrayBuffer(SMALL_ARRAY_BYTES);
const smallArrayBytes = new Uint8Array(smallArrayStage);
const smallArrayViews = arrayCtors.map((ctor) => (ctor === undefined ? undefined : new ctor(smallArrayStage)));

/** The raw kind of a buffer-like value, or -1 when it is not one. */
export function rawKindOf(value: unknown): number {
  if (!ArrayBuffer.isView(value)) return -1;
  const ctor = value.constructor;
  if (ctor === Uint8Array) return PayloadKind.Uint8;
  if (ctor === Float64Array) return PayloadKind.Float64;
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? PayloadKind.NodeBuffer : PayloadKind.Uint8;
  if (value instanceof Float64Array) return PayloadKind.Float64;
  if (value instanceof Int32Array) return PayloadKind.Int32;
  if (value instanceof Float32Array) return PayloadKind.Float32;
  if (value instanceof Uint32Array) return PayloadKind.Uint32;
  if (value instanceof Int8Array) return PayloadKind.Int8;
  if (value instanceof Uint8ClampedArray) return PayloadKind.Uint8Clamped;
  if (value instanceof Int16Array) return PayloadKind.Int16;
  if (value instanceof Uint16Array) return PayloadKind.Uint16;
  if (value instanceof BigInt64Array) return PayloadKind.BigInt64;
  if (value instanceof BigUint64Array) return PayloadKind.BigUint64;
  if (value instanceof DataView) return PayloadKind.DataView;
  return -1;
}

/** True for kinds whose payload is raw bytes (a receive into a buffer accepts them). */
export function isRawKind(kind: number): boolean {
  return kind <= PayloadKind.DataView || kind === PayloadKind.Number;
}

/** A byte view of a buffer-like value (no copy). */
export function bytesOf(view: ArrayBufferView): Uint8Array {
  return view instanceof Uint8Array && view.constructor === Uint8Array
    ? view
    : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

let packr: Packr | undefined;
type AddExtension = typeof import('msgpackr').addExtension;
let addPackExtension: AddExtension | undefined;
/** Classes whose instances are handles of this rank (a communicator, a request): never sent. */
const unsendable: { Class: { readonly prototype: object }; what: string }[] = [];

/**
 * Makes a value of `Class` fail to encode, naming `what` it is: a communicator or a request is
 * this rank's handle on its own state, and a copy on another rank would look right and be wrong.
 */
export function refuseToEncode(Class: { readonly prototype: object }, what: string): void {
  unsendable.push({ Class, what });
  if (addPackExtension !== undefined) refuseExtension(addPackExtension, Class, what, 0x20 + unsendable.length - 1);
}

/**
 * Extension types from 0x20 up: msgpackr's structured clone takes letters for its own (0x73 's'
 * is Set, 0x65 'e' Error ...), and this codec 0x71-0x72.
 */
function refuseExtension(add: AddExtension, Class: { readonly prototype: object }, what: string, type: number): void {
  add({
    Class: Class as unknown as new () => object,
    type,
    write(): never {
      throw new TypeError(`${what} cannot be sent to another rank: it is this rank's handle on its own state`);
    },
    read: () => undefined,
  });
}
/**
 * msgpackr is loaded on the first encoded value, not at start-up: importing it costs each rank
 * ~15 ms (8 ranks became ready in 388 ms with it against 251 ms without), and programs that move
 * only numbers, strings and typed arrays never need it. The literal `require` lets the bundler
 * put it inside the runtime's cached script, still initialised on this first call: loaded from
 * its own files, a rank's first encoded value took ~30 ms (its native string extractor stays a
 * file of its own).
 */
function loadMsgpackr(): typeof import('msgpackr') {
  return (typeof require === 'function' ? require('msgpackr') : createRequire(import.meta.url)('msgpackr')) as typeof import('msgpackr');
}

function getPackr(): Packr {
  if (packr === undefined) {
    const { Packr: PackrClass, addExtension } = loadMsgpackr();
    addExtension({
      Class: Function,
      type: 0x71,
      write(fn: unknown): never {
        const name = typeof fn === 'function' && fn.name ? fn.name : 'anonymous';
        throw new TypeError(`function ${name} cannot be encoded`);
      },
      read: () => undefined,
    });
    addExtension({
      Class: Map,
      type: 0x72,
      write: (map: Map<unknown, unknown>) => [...map],
      read: (entries: [unknown, unknown][]) => new Map(entries),
    });
    unsendable.forEach(({ Class, what }, i) => refuseExtension(addExtension, Class, what, 0x20 + i));
    addPackExtension = addExtension;
    // copyBuffers: a Buffer inside a value must not come back as a view of the bytes it was
    // decoded from (a socket's reused assembly buffer, a ring): it would change under the receiver.
    packr = new PackrClass({ structuredClone: true, copyBuffers: true });
  }
  return packr;
}

/** An encoded value: its kind and the bytes to send (a view of the value itself for raw kinds). */
export interface Encoded {
  kind: number;
  bytes: Uint8Array;
}

const textEncoder = new TextEncoder();
// Numbers travel as 8 bytes in the machine's order (every platform Node runs on is little-endian).
const numberScratch = new Float64Array(1);
const numberBytes = new Uint8Array(numberScratch.buffer);
const textDecoder = new TextDecoder();

// A number's 8 bytes are a view of a shared slab rather than a fresh ArrayBuffer: a backing store
// per send (malloc and GC bookkeeping) cost more than the rest of a small collective step. Each
// view is handed out once, so a send waiting in a backlog keeps its own bytes.
const NUMBER_SLAB_BYTES = 8 * 4096;
let numberSlab = new Float64Array(NUMBER_SLAB_BYTES / 8);
let numberSlabNext = 0;

function numberPayload(value: number): Uint8Array {
  if (numberSlabNext === numberSlab.length) {
    numberSlab = new Float64Array(NUMBER_SLAB_BYTES / 8);
    numberSlabNext = 0;
  }
  const index = numberSlabNext++;
  numberSlab[index] = value;
  return new Uint8Array(numberSlab.buffer, index * 8, 8);
}

/** Encodes any value; raw kinds are views of the value (no copy). */
export function encodeValue(value: unknown, rank: number, operation: string): Encoded {
  const raw = rawKindOf(value);
  if (raw >= 0) return { kind: raw, bytes: bytesOf(value as ArrayBufferView) };
  if (typeof value === 'number') return { kind: PayloadKind.Number, bytes: numberPayload(value) };
  if (typeof value === 'string') return { kind: PayloadKind.String, bytes: textEncoder.encode(value) };
  try {
    return { kind: PayloadKind.Packed, bytes: getPackr().pack(value) };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new TsmpiError(ErrorCode.Encode, `cannot encode the value: ${reason}`, {
      rank,
      operation,
      hint: 'send plain data (objects, arrays, numbers, strings, Map, Set, Date, typed arrays); functions, symbols and tsmpi handles (communicators, groups, requests) cannot cross ranks',
      cause,
    });
  }
}

/** Decodes `bytes[offset, offset + length)` of the given kind into a fresh value. */
export function decodeValue(kind: number, bytes: Uint8Array, offset: number, length: number): unknown {
  switch (kind) {
    case PayloadKind.Number:
      for (let i = 0; i < 8; i++) numberBytes[i] = bytes[offset + i]!;
      return numberScratch[0];
    case PayloadKind.String:
      return textDecoder.decode(bytes.subarray(offset, offset + length));
    case PayloadKind.Packed:
      // msgpackr's native string extractor (msgpackr-extract) reads `source.buffer` and takes it
      // for an ArrayBuffer: given a SharedArrayBuffer (a view of a shared-memory ring) its
      // napi_get_arraybuffer_info fails and it reads through an uninitialised pointer (corrupt
      // strings, "cannot decode", SIGSEGV; messages of 140 bytes and more). Decode a private copy.
      if (bytes.buffer instanceof SharedArrayBuffer) return getPackr().unpack(copyOut(bytes, offset, length));
      return getPackr().unpack(bytes.subarray(offset, offset + length));
    case PayloadKind.NodeBuffer: {
      const out = Buffer.allocUnsafe(length);
      copyBytes(out, 0, bytes, offset, length);
      return out;
    }
    case PayloadKind.DataView: {
      const ab = new ArrayBuffer(length);
      copyBytes(new Uint8Array(ab), 0, bytes, offset, length);
      return new DataView(ab);
    }
    default: {
      const ctor = arrayCtors[kind];
      if (ctor === undefined) throw new RangeError(`unknown payload kind ${kind}`);
      const count = length / ctor.BYTES_PER_ELEMENT;
      if (length <= SMALL_ARRAY_BYTES) {
        for (let i = 0; i < length; i++) smallArrayBytes[i] = bytes[offset + i]!;
        const staged = smallArrayViews[kind]!;
        const out = new ctor(count);
        for (let i = 0; i < count; i++) out[i] = staged[i]!;
        return out;
      }
      // Out of a ring (a SharedArrayBuffer) `set` is a relaxed atomic copy, slower than copyBytes'
      // memcpy (`npm run bench -- copy`).
      const ab = new ArrayBuffer(length);
      copyBytes(new Uint8Array(ab), 0, bytes, offset, length);
      return new ctor(ab, 0, count);
    }
  }
}

/** A typed array of `kind` over `bytes` (which must be aligned), without copying. */
export function viewAs(kind: number, bytes: Uint8Array): unknown {
  if (kind === PayloadKind.Uint8) return bytes;
  if (kind === PayloadKind.NodeBuffer) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (kind === PayloadKind.DataView) return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ctor = arrayCtors[kind];
  if (ctor === undefined) return decodeValue(kind, bytes, 0, bytes.length);
  return new ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / ctor.BYTES_PER_ELEMENT);
}

/** The element size of a raw kind (1 for byte kinds). */
export function elementBytes(kind: number): number {
  return arrayCtors[kind]?.BYTES_PER_ELEMENT ?? 1;
}

/** A short name of a kind for messages. */
export function kindName(kind: number): string {
  for (const [name, value] of Object.entries(PayloadKind)) if (value === kind) return name;
  return `kind ${kind}`;
}

/** A new typed array of the same kind as `like`, with `length` elements. */
export function allocateLike<A extends TypedArray>(like: A, length: number): A {
  if (Buffer.isBuffer(like)) return Buffer.alloc(length) as unknown as A;
  const ctor = like.constructor as unknown as new (length: number) => A;
  return new ctor(length);
}

/** The value an {@link Encoded} stands for; raw kinds become views of its (owned) bytes. */
export function decodeEncoded(encoded: Encoded): unknown {
  const { kind, bytes } = encoded;
  if (isRawKind(kind) && kind !== PayloadKind.Number && bytes.byteOffset % elementBytes(kind) === 0) return viewAs(kind, bytes);
  return decodeValue(kind, bytes, 0, bytes.length);
}
