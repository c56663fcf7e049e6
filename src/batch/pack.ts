/**
 * The pack format of aggregated transfers: several messages of a batch in one buffer.
 *
 * ```
 * u32 LE  item count
 * per item:  i32 LE tag | u8 payload kind | u32 LE byte length | bytes
 * ```
 * Hand-written rather than msgpack: the items are already encoded payloads (typed arrays as raw
 * bytes), so packing is one copy of each into a buffer sized up front.
 */
import { decodeValue, type Encoded } from '../comm/codec.js';
import { PACK_ITEM_OVERHEAD } from '../policy/batch/planners.js';

export interface PackItem {
  tag: number;
  encoded: Encoded;
}

export function packedSize(items: readonly PackItem[]): number {
  let n = 4;
  for (const item of items) n += PACK_ITEM_OVERHEAD + item.encoded.bytes.length;
  return n;
}

export function pack(items: readonly PackItem[]): Uint8Array {
  const out = new Uint8Array(packedSize(items));
  const view = new DataView(out.buffer);
  view.setUint32(0, items.length, true);
  let at = 4;
  for (const { tag, encoded } of items) {
    view.setInt32(at, tag, true);
    out[at + 4] = encoded.kind;
    view.setUint32(at + 5, encoded.bytes.length, true);
    out.set(encoded.bytes, at + PACK_ITEM_OVERHEAD);
    at += PACK_ITEM_OVERHEAD + encoded.bytes.length;
  }
  return out;
}

/** Calls `item(tag, value)` for each packed message, in order; values are fresh copies. */
export function unpack(buffer: Uint8Array, item: (tag: number, value: unknown) => void): void {
  if (buffer.length < 4) throw new RangeError(`a packed transfer of ${buffer.length} bytes has no item count`);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const count = view.getUint32(0, true);
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + PACK_ITEM_OVERHEAD > buffer.length) throw new RangeError(`packed transfer truncated at item ${i} of ${count}`);
    const tag = view.getInt32(at, true);
    const kind = buffer[at + 4]!;
    const length = view.getUint32(at + 5, true);
    at += PACK_ITEM_OVERHEAD;
    if (at + length > buffer.length) throw new RangeError(`packed transfer truncated in item ${i} of ${count}`);
    item(tag, decodeValue(kind, buffer, at, length));
    at += length;
  }
}

/** A message on its way through forwarders: where it comes from and goes, and its place in its sender's batch. */
export interface MessageRecord {
  source: number;
  index: number;
  dest: number;
  tag: number;
  kind: number;
  bytes: Uint8Array;
}

/** Record overhead: source, index, dest, tag (i32 each), kind (u8), length (u32). */
export const RECORD_OVERHEAD = 21;

/** Packs records (the node-pair aggregation's bundles and windows). */
export function packRecords(records: readonly MessageRecord[]): Uint8Array {
  let n = 4;
  for (const r of records) n += RECORD_OVERHEAD + r.bytes.length;
  const out = new Uint8Array(n);
  const view = new DataView(out.buffer);
  view.setUint32(0, records.length, true);
  let at = 4;
  for (const r of records) {
    view.setInt32(at, r.source, true);
    view.setUint32(at + 4, r.index, true);
    view.setInt32(at + 8, r.dest, true);
    view.setInt32(at + 12, r.tag, true);
    out[at + 16] = r.kind;
    view.setUint32(at + 17, r.bytes.length, true);
    out.set(r.bytes, at + RECORD_OVERHEAD);
    at += RECORD_OVERHEAD + r.bytes.length;
  }
  return out;
}

/** The records of a packed buffer (their bytes are views of it). */
export function unpackRecords(buffer: Uint8Array, into: MessageRecord[]): void {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const count = view.getUint32(0, true);
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + RECORD_OVERHEAD > buffer.length) throw new RangeError(`record bundle truncated at record ${i} of ${count}`);
    const length = view.getUint32(at + 17, true);
    if (at + RECORD_OVERHEAD + length > buffer.length) throw new RangeError(`record bundle truncated in record ${i} of ${count}`);
    into.push({
      source: view.getInt32(at, true),
      index: view.getUint32(at + 4, true),
      dest: view.getInt32(at + 8, true),
      tag: view.getInt32(at + 12, true),
      kind: buffer[at + 16]!,
      bytes: buffer.subarray(at + RECORD_OVERHEAD, at + RECORD_OVERHEAD + length),
    });
    at += RECORD_OVERHEAD + length;
  }
}
