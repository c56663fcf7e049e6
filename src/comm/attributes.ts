/**
 * Attribute caching (MPI_Comm_create_keyval, MPI_Comm_set_attr ...; mpi4py's Create_keyval,
 * Set_attr, Get_attr, Delete_attr): a program or library hangs values on a communicator or a
 * window under a key it made, with callbacks that say what a dup copies and what a delete or a
 * free releases. Keys are local handles of the rank that made them.
 */
import { ErrorCode, TsmpiError } from '../errors.js';

/**
 * What a dup does with an attribute: `true` copies the value itself, `false` (or none) copies
 * nothing, a function returns the dup's value (`undefined`: none), as MPI's copy callback.
 */
export type AttributeCopy<O> = boolean | ((object: O, keyval: number, value: unknown) => unknown);
/** Called when an attribute goes: deleted, replaced by a new value, or its object freed. */
export type AttributeDelete<O> = (object: O, keyval: number, value: unknown) => void;

/** What freeKeyval returns, and what no key is (MPI_KEYVAL_INVALID). */
export const KEYVAL_INVALID = -1;

/** Predefined keys every communicator answers (Communicator.getAttr says with what). */
export const ATTR_TAG_UB = 1;
export const ATTR_HOST = 2;
export const ATTR_IO = 3;
export const ATTR_WTIME_IS_GLOBAL = 4;
export const ATTR_APPNUM = 5;
export const ATTR_UNIVERSE_SIZE = 6;

interface Keyval {
  readonly kind: string;
  readonly copy: AttributeCopy<never>;
  readonly remove: AttributeDelete<never> | undefined;
  freed: boolean;
}

const keyvals = new Map<number, Keyval>();
// Predefined keys (attributes.ts's ATTR_*) sit below this; made keys above.
let nextKeyval = 100;

/** A new key for objects of `kind` ('communicator', 'window'). */
export function createKeyval<O>(kind: string, copy: AttributeCopy<O> = false, remove?: AttributeDelete<O>): number {
  if (typeof copy !== 'boolean' && typeof copy !== 'function') throw new TsmpiError(ErrorCode.Arg, 'the copy callback is not a boolean or a function', { operation: 'createKeyval', hint: 'pass true (copy the value), false (copy nothing) or (object, keyval, value) => newValue' });
  if (remove !== undefined && typeof remove !== 'function') throw new TsmpiError(ErrorCode.Arg, 'the delete callback is not a function', { operation: 'createKeyval', hint: 'pass (object, keyval, value) => void, or nothing' });
  const keyval = nextKeyval++;
  keyvals.set(keyval, { kind, copy: copy as AttributeCopy<never>, remove: remove as AttributeDelete<never> | undefined, freed: false });
  return keyval;
}

/**
 * Frees a key (MPI_Comm_free_keyval): no new attribute may use it; attributes already set keep
 * their callbacks until they go. Returns KEYVAL_INVALID, to assign back.
 */
export function freeKeyval(kind: string, keyval: number): number {
  const entry = keyvals.get(keyval);
  if (entry === undefined || entry.kind !== kind || entry.freed) throw keyvalError(keyval, kind, 'freeKeyval');
  entry.freed = true;
  return KEYVAL_INVALID;
}

function keyvalError(keyval: number, kind: string, operation: string): TsmpiError {
  return new TsmpiError(ErrorCode.Arg, `${String(keyval)} is not a live ${kind} keyval`, { operation, hint: `make one with ${kind === 'window' ? 'Win' : 'Communicator'}.createKeyval()` });
}

/** One object's attributes, by key, in the order they were set. */
export class AttributeStore<O> {
  readonly #kind: string;
  readonly #values = new Map<number, unknown>();

  constructor(kind: string) {
    this.#kind = kind;
  }

  #keyval(keyval: number, operation: string, live: boolean): Keyval {
    const entry = keyvals.get(keyval);
    if (entry === undefined || entry.kind !== this.#kind || (live && entry.freed)) throw keyvalError(keyval, this.#kind, operation);
    return entry;
  }

  /** Sets the attribute; a value already there goes first (its delete callback runs). */
  set(object: O, keyval: number, value: unknown): void {
    this.#keyval(keyval, 'setAttr', true);
    if (this.#values.has(keyval)) this.delete(object, keyval);
    this.#values.set(keyval, value);
  }

  /** The attribute's value, or undefined when it is not set. */
  get(keyval: number): unknown {
    this.#keyval(keyval, 'getAttr', false);
    return this.#values.get(keyval);
  }

  /** Removes the attribute (its delete callback runs); nothing when it is not set. */
  delete(object: O, keyval: number): void {
    const entry = this.#keyval(keyval, 'deleteAttr', false);
    if (!this.#values.has(keyval)) return;
    const value = this.#values.get(keyval);
    this.#values.delete(keyval);
    (entry.remove as AttributeDelete<O> | undefined)?.(object, keyval, value);
  }

  /**
   * What a dup of `object` (into `target`, the dup's store) gets, as each key's copy callback
   * says. A callback may return a promise (a copy that is itself a dup, say): the result then
   * waits for every such promise, and each attribute is set to what it resolves to.
   */
  copyInto(object: O, target: AttributeStore<O>): Promise<void> | undefined {
    const pending: Promise<void>[] = [];
    for (const [keyval, value] of this.#values) {
      const copy = keyvals.get(keyval)!.copy as AttributeCopy<O>;
      const copied = copy === true ? value : copy === false ? undefined : copy(object, keyval, value);
      if (copied instanceof Promise) pending.push(copied.then((resolved) => void (resolved !== undefined && target.#values.set(keyval, resolved))));
      else if (copied !== undefined) target.#values.set(keyval, copied);
    }
    return pending.length > 0 ? Promise.all(pending).then(() => undefined) : undefined;
  }

  /** Every attribute goes, in the order they were set (the object is freed). */
  clear(object: O): void {
    for (const keyval of [...this.#values.keys()]) this.delete(object, keyval);
  }
}
