/**
 * What a completed operation reports (MPI_Status, mpi4py's Status): the matched source and tag,
 * an error code, the size in bytes, and whether the operation was cancelled. Statuses come from
 * receives, probes and requests; a program may also make one and set its fields (as mpi4py's
 * tests do). Counts in elements are taken against a typed-array kind.
 */
import type { TypedArray } from './codec.js';
import { ANY_SOURCE, ANY_TAG } from './wildcards.js';

/** MPI_UNDEFINED: a count that does not divide into whole elements, an index when no request is active. */
export const UNDEFINED = -32766;

/** The error code of a status whose operation succeeded (MPI_SUCCESS). */
export const SUCCESS = 'TSMPI_SUCCESS';

/** A typed-array kind: its constructor, e.g. Float64Array (its BYTES_PER_ELEMENT counts). */
export interface ElementKind {
  readonly BYTES_PER_ELEMENT: number;
  readonly name: string;
  prototype: TypedArray;
}

export class Status {
  /** The sender's rank in the communicator (ANY_SOURCE in an empty status, PROC_NULL from PROC_NULL). */
  source: number;
  tag: number;
  /** SUCCESS, or the TsmpiError code the operation failed with. */
  error: string;
  /** The message's payload bytes (the encoded size for values that are not typed arrays). */
  bytes: number;
  cancelled: boolean;

  /** An empty status (MPI's for a null or inactive request): any source, any tag, 0 bytes. */
  constructor(source: number = ANY_SOURCE, tag: number = ANY_TAG, bytes = 0, error: string = SUCCESS, cancelled = false) {
    this.source = source;
    this.tag = tag;
    this.bytes = bytes;
    this.error = error;
    this.cancelled = cancelled;
  }

  /**
   * How console.log shows a status: `{ source: 0, tag: 7, bytes: 8 }`, with `error` and
   * `cancelled` only when they say something.
   */
  [Symbol.for('nodejs.util.inspect.custom')](): object {
    return { source: this.source, tag: this.tag, bytes: this.bytes, ...(this.error !== SUCCESS ? { error: this.error } : {}), ...(this.cancelled ? { cancelled: true } : {}) };
  }

  /** A status with the same fields (mpi4py's `Status(status)`). */
  copy(): Status {
    return new Status(this.source, this.tag, this.bytes, this.error, this.cancelled);
  }

  /**
   * The number of whole elements of `kind` in the message (MPI_Get_count), UNDEFINED when the
   * bytes do not divide into them; without `kind`, the bytes.
   */
  getCount(kind?: ElementKind): number {
    if (kind === undefined) return this.bytes;
    const size = kind.BYTES_PER_ELEMENT;
    return this.bytes % size === 0 ? this.bytes / size : UNDEFINED;
  }

  /** The number of whole elements of `kind` received (MPI_Get_elements): a partial one does not count. */
  getElements(kind?: ElementKind): number {
    if (kind === undefined) return this.bytes;
    return Math.floor(this.bytes / kind.BYTES_PER_ELEMENT);
  }

  /** Sets the size to `count` elements of `kind` (MPI_Status_set_elements); without `kind`, bytes. */
  setElements(kind: ElementKind | undefined, count: number): void {
    this.bytes = count * (kind?.BYTES_PER_ELEMENT ?? 1);
  }
}
