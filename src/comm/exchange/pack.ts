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
import { decodeValue, type Encoded } from '../codec.js';
import { PACK_ITEM_OVERHEAD } from '../../policy/batch/planners.js';

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
