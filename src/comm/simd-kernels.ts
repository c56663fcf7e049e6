/**
 * Elementwise reduction loops in WebAssembly SIMD, for the built-in ops whose 128-bit lane
 * operation gives exactly the bits the scalar JavaScript loop stores: sums of every integer kind
 * (a typed-array store wraps as the lane add does) and of floats (IEEE addition, and for Float32
 * the double sum rounded once equals the single-precision sum), float products, 16- and 64-bit
 * integer products (exact products, wrapped), and the bitwise ops of integer kinds.
 *
 * Why by hand: on the project machine V8's optimised loop takes ~3 ns per element whatever the
 * kind, where the lanes take 1.1 (doubles) to 0.14 (bytes), copies in and out included (`npm run
 * bench -- reduce-kernels`). The operands cannot be handed to WebAssembly in place, so each chunk
 * is copied into the module's memory, combined there and copied back. The module is a dozen
 * instructions, assembled below with its opcodes named, instead of a toolchain in the build.
 */
import type { TypedArray } from './codec.js';

/** target = a op b over the first `target.length` elements (target may be a or b). */
export type SimdCombine = (target: TypedArray, a: TypedArray, b: TypedArray) => void;

/** Ops with lane kernels, by the op's name. */
export type SimdOpName = 'sum' | 'prod' | 'band' | 'bor' | 'bxor';

/** Element kinds by lane width: the same lane instruction serves signed and unsigned. */
type Lanes = 'f64' | 'f32' | 'i64' | 'i32' | 'i16' | 'i8';

// SIMD opcodes (0xFD prefix) of the lane instructions used.
const LANE_OPCODES: Record<SimdOpName, Partial<Record<Lanes, number>>> = {
  sum: { f64: 240, f32: 228, i64: 206, i32: 174, i16: 142, i8: 110 },
  prod: { f64: 242, f32: 230, i64: 213, i16: 149 },
  band: { i64: 78, i32: 78, i16: 78, i8: 78 },
  bor: { i64: 80, i32: 80, i16: 80, i8: 80 },
  bxor: { i64: 81, i32: 81, i16: 81, i8: 81 },
};

function lanesOf(array: TypedArray): Lanes | undefined {
  if (array instanceof Float64Array) return 'f64';
  if (array instanceof Float32Array) return 'f32';
  if (array instanceof BigInt64Array || array instanceof BigUint64Array) return 'i64';
  if (array instanceof Int32Array || array instanceof Uint32Array) return 'i32';
  if (array instanceof Int16Array || array instanceof Uint16Array) return 'i16';
  // Uint8ClampedArray clamps a sum where the lane add wraps.
  if (array instanceof Int8Array || array instanceof Uint8Array) return 'i8';
  return undefined;
}

/** Bytes per operand per pass: two operands in one 64 KiB page, resident in the first-level cache. */
const CHUNK_BYTES = 32 * 1024;

function leb128(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb128(body.length), ...body];
}

function name(text: string): number[] {
  return [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];
}

/**
 * A module exporting its memory `m` (one page) and `f(dst, src, bytes)`, which applies one lane
 * instruction 16 bytes at a time: dst = dst op src.
 */
function assemble(opcode: number): Uint8Array {
  const [localGet, localSet, i32Const, i32Add, i32Sub, i32Eqz] = [0x20, 0x21, 0x41, 0x6a, 0x6b, 0x45];
  const [block, loop, br, brIf, end, voidType] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40];
  const simd = 0xfd;
  const [v128Load, v128Store] = [0x00, 0x0b];
  const memarg = [0x04, 0x00]; // 16-byte alignment, offset 0
  const [dst, src, bytes] = [0, 1, 2];
  const advance = (local: number, by: number, op: number): number[] => [localGet, local, i32Const, by, op, localSet, local];
  const body = [
    0x00, // no locals beyond the parameters
    block, voidType, loop, voidType,
    localGet, bytes, i32Eqz, brIf, 1,
    localGet, dst,
    localGet, dst, simd, v128Load, ...memarg,
    localGet, src, simd, v128Load, ...memarg,
    simd, ...leb128(opcode),
    simd, v128Store, ...memarg,
    ...advance(dst, 16, i32Add), ...advance(src, 16, i32Add), ...advance(bytes, 16, i32Sub),
    br, 0,
    end, end, end,
  ];
  const i32 = 0x7f;
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 3, i32, i32, i32, 0]), // type: (i32, i32, i32) -> ()
    ...section(3, [1, 0]), // one function of that type
    ...section(5, [1, 0x00, 1]), // one memory, one page
    ...section(7, [2, ...name('m'), 0x02, 0, ...name('f'), 0x00, 0]),
    ...section(10, [1, ...leb128(body.length), ...body]),
  ]);
}

interface Kernel {
  run: (dst: number, src: number, bytes: number) => void;
  memory: { buffer: ArrayBuffer };
}

/** The part of the WebAssembly API used here (the compiler's libraries here do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const kernels = new Map<number, Kernel | null>();

function kernel(opcode: number): Kernel | undefined {
  let made = kernels.get(opcode);
  if (made === undefined) {
    try {
      if (wasm === undefined) throw new Error('no WebAssembly');
      const instance = new wasm.Instance(new wasm.Module(assemble(opcode)));
      made = { run: instance.exports.f as Kernel['run'], memory: instance.exports.m as Kernel['memory'] };
    } catch {
      // No WebAssembly SIMD here: the JavaScript loops serve.
      made = null;
    }
    kernels.set(opcode, made);
  }
  return made ?? undefined;
}

/**
 * The lane combine of op `name` for arrays like `like`, or undefined where none gives the scalar
 * loop's bits. Its views of the module's memory are made once per kind.
 */
export function simdCombine(opName: string, like: TypedArray): SimdCombine | undefined {
  const lanes = lanesOf(like);
  const opcode = lanes === undefined ? undefined : LANE_OPCODES[opName as SimdOpName]?.[lanes];
  const made = opcode === undefined ? undefined : kernel(opcode);
  if (made === undefined) return undefined;
  const Kind = like.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => TypedArray;
  const width = like.BYTES_PER_ELEMENT;
  const chunk = CHUNK_BYTES / width;
  const first = new Kind(made.memory.buffer, 0, chunk);
  const second = new Kind(made.memory.buffer, CHUNK_BYTES, chunk);
  const { run } = made;
  return (target, a, b) => {
    const n = target.length;
    for (let start = 0; start < n; start += chunk) {
      const end = Math.min(n, start + chunk);
      const count = end - start;
      // A whole chunk is copied by `set` of the view itself, the tail by a subarray of it.
      const into = count === chunk ? first : (first.subarray(0, count) as TypedArray);
      // An operand that fits one pass whole is copied as it is, not through a new view of it.
      const whole = start === 0 && end === n;
      into.set((whole && a.length === n ? a : a.subarray(start, end)) as never);
      (count === chunk ? second : (second.subarray(0, count) as TypedArray)).set((whole && b.length === n ? b : b.subarray(start, end)) as never);
      // Lanes past `count` in the last vector combine stale bytes and are not copied out.
      run(0, CHUNK_BYTES, (count * width + 15) & ~15);
      target.set(into as never, start);
    }
  };
}
