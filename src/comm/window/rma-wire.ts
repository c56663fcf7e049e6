/**
 * The messages of one-sided windows, as raw bytes on the window's own context: a 16-byte header
 * (four 32-bit words) and a payload. Sent as Uint8Arrays they take the raw path (no encoding).
 *
 * word 0: kind | op << 8 | element kind << 16    word 1: byte offset in the target's window
 * word 2: the origin's operation id                word 3: byte length (GET), lock type (LOCK)
 */
import { ErrorCode, TsmpiError } from '../../errors.js';
import { elementBytes, viewAs, type TypedArray } from '../codec.js';
import { Op, inPlaceCombiner, type AnyOp } from '../ops.js';

export const RmaKind = {
  Put: 1,
  Get: 2,
  Accumulate: 3,
  FetchAndOp: 4,
  CompareAndSwap: 5,
  Lock: 6,
  Unlock: 7,
  /** A target opened an exposure epoch to the receiving origin (post); no reply. */
  Post: 8,
  /** An origin ended its access epoch on the receiving target (complete); acknowledged. */
  Complete: 9,
  /** Target -> origin: the operation was applied. */
  Ack: 16,
  /** Target -> origin: data for a get, fetchAndOp or compareAndSwap. */
  Data: 17,
  /** Target -> origin: the lock is granted. */
  Granted: 18,
  /** Target -> origin: the operation fell outside the memory attached to a dynamic window (the payload says why). */
  Refused: 19,
} as const;

export const HEADER_BYTES = 16;

/** The ops a window applies at the target, by wire number (never renumber). */
const windowOps = ['replace', 'noOp', 'sum', 'prod', 'min', 'max', 'land', 'lor', 'band', 'bor', 'lxor', 'bxor'] as const;
type WindowOpName = (typeof windowOps)[number];

/** The wire number of a built-in op a window can apply, or an ERR_OP naming the operation. */
export function windowOpCode(op: AnyOp<unknown>, operation: string, rank: number): number {
  const code = windowOps.indexOf(op?.name as WindowOpName);
  if (code < 0 || (Op as Record<string, unknown>)[op.name] !== op) {
    throw new TsmpiError(ErrorCode.Op, `${operation} takes a built-in element-wise op, not ${String(op?.name)}`, {
      rank,
      operation,
      hint: `pass one of ${windowOps.map((name) => `Op.${name}`).join(', ')} (MPI allows no user ops in one-sided calls)`,
    });
  }
  return code;
}

export function windowOp(code: number): AnyOp<unknown> {
  return Op[windowOps[code]!];
}

export interface RmaHeader {
  kind: number;
  op: number;
  elementKind: number;
  offset: number;
  id: number;
  extra: number;
}

/** A message: the header, then `payload` (copied in: the message owns its bytes). */
export function rmaMessage(kind: number, offset: number, id: number, extra: number, payload?: Uint8Array, op = 0, elementKind = 0): Uint8Array {
  const message = new Uint8Array(HEADER_BYTES + (payload?.byteLength ?? 0));
  // Little-endian both ways, as readHeader reads it, whatever the host.
  const header = new DataView(message.buffer, 0, HEADER_BYTES);
  header.setUint32(0, kind | (op << 8) | (elementKind << 16), true);
  header.setUint32(4, offset, true);
  header.setUint32(8, id, true);
  header.setUint32(12, extra, true);
  if (payload !== undefined) message.set(payload, HEADER_BYTES);
  return message;
}

export function readHeader(message: Uint8Array): RmaHeader {
  const view = new DataView(message.buffer, message.byteOffset, HEADER_BYTES);
  const word0 = view.getUint32(0, true);
  return { kind: word0 & 0xff, op: (word0 >>> 8) & 0xff, elementKind: word0 >>> 16, offset: view.getUint32(4, true), id: view.getUint32(8, true), extra: view.getUint32(12, true) };
}

export function payloadOf(message: Uint8Array): Uint8Array {
  return message.subarray(HEADER_BYTES);
}

/** Applies `op` element-wise: target[i] = target[i] op source[i], elements of `elementKind`. */
export function applyOp(code: number, elementKind: number, target: Uint8Array, source: Uint8Array): void {
  const name = windowOps[code];
  if (name === 'noOp') return;
  if (name === 'replace') {
    target.set(source);
    return;
  }
  const combine = inPlaceCombiner(windowOp(code))!;
  // Typed views need aligned offsets; a window's bytes may sit anywhere, so work on a copy then.
  const size = elementBytes(elementKind);
  const into = target.byteOffset % size === 0 ? target : target.slice();
  const from = source.byteOffset % size === 0 ? source : source.slice();
  combine(viewAs(elementKind, into) as TypedArray, viewAs(elementKind, from) as TypedArray);
  if (into !== target) target.set(into);
}
