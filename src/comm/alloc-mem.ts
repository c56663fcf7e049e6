/**
 * allocMem / freeMem (MPI_Alloc_mem, MPI_Free_mem; mpi4py's MPI.Alloc_mem): arrays in memory the
 * runtime can hand between the ranks of a process without a second copy. A large message sent
 * from such an array to a rank thread of the same process is copied once, by the receiver,
 * straight out of the sender's array; from an ordinary array it is copied into a shared ring and
 * out again. Anywhere else (TCP, the simulator) they are ordinary arrays.
 */
import { ErrorCode, TsmpiError } from '../errors.js';
import { allocateShared, freeShared } from '../transport/shared-memory.js';
import type { TypedArray } from './codec.js';
import type { Info } from './info.js';

/** A typed array's constructor, as allocMem takes it: `Float64Array`, `Uint8Array` ... */
export interface TypedArrayType<A extends TypedArray> {
  new (buffer: SharedArrayBuffer, byteOffset: number, length: number): A;
  readonly BYTES_PER_ELEMENT: number;
  readonly name: string;
}

/**
 * A new zeroed array in memory the rank threads of this process share: `allocMem(bytes)` gives a
 * Uint8Array of that many bytes (mpi4py's `MPI.Alloc_mem(size)`), `allocMem(Float64Array, n)` an
 * array of `n` elements of that kind. Messages from it of at least TSMPI_PULL_FROM bytes to a
 * rank of this process take one copy instead of two. `info` (MPI's hints) is accepted and not
 * read. Give the array back with {@link freeMem} when done (it is also collected as any array once
 * nothing refers to it, here and in the threads it was sent to).
 *
 * @example
 * ```ts
 * const data = allocMem(Float64Array, 1 << 17); // 1 MiB
 * await comm.bcastInto(data, 0);
 * freeMem(data);
 * ```
 */
export function allocMem(bytes: number, info?: Info | null): Uint8Array;
export function allocMem<A extends TypedArray>(type: TypedArrayType<A>, length: number, info?: Info | null): A;
export function allocMem<A extends TypedArray>(typeOrBytes: TypedArrayType<A> | number, length?: number | Info | null, _info?: Info | null): A | Uint8Array {
  if (typeof typeOrBytes === 'number') return allocateArray(Uint8Array, typeOrBytes);
  return allocateArray(typeOrBytes, length as number);
}

function allocateArray<A extends TypedArray>(type: TypedArrayType<A>, length: number): A {
  if (typeof type !== 'function' || typeof type.BYTES_PER_ELEMENT !== 'number' || !(type.BYTES_PER_ELEMENT > 0)) {
    throw new TsmpiError(ErrorCode.Type, `${String((type as { name?: unknown } | undefined)?.name ?? type)} is not a typed array type`, {
      operation: 'allocMem',
      hint: 'pass a byte count, or a typed array constructor such as Float64Array and a length',
    });
  }
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new TsmpiError(ErrorCode.Arg, `cannot allocate ${String(length)} elements`, {
      operation: 'allocMem',
      hint: 'pass a non-negative integer length',
    });
  }
  return new type(allocateShared(length * type.BYTES_PER_ELEMENT), 0, length);
}

/** Gives back an array that {@link allocMem} made (MPI_Free_mem): later messages from its memory take the ordinary path. */
export function freeMem(array: TypedArray): void {
  if (!freeShared(array.buffer)) {
    throw new TsmpiError(ErrorCode.Arg, `the ${array.constructor.name} of ${array.length} elements was not made by allocMem in this thread, or was freed already`, {
      operation: 'freeMem',
      hint: 'pass an array that allocMem returned, once',
    });
  }
}
