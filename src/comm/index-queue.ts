/**
 * A FIFO with removal anywhere, for the matching queues: a circular buffer that doubles when full.
 * Taking the front is O(1) (Array#shift is O(n) once arrays grow: 110,000 unexpected messages made
 * each shift cost 190 us, and emptying an array by `length = 0` showed up at 5% of a send/receive
 * pair); removing from the middle shifts the items before it, which matching needs only when a
 * receive skips over messages it does not want.
 *
 * ```
 *  slots: [ . . c d e . . . a b ]      capacity 10 (a power of two in practice)
 *                   ^ head + length     ^ head       (indices wrap around)
 * ```
 */
export class IndexQueue<T> {
  protected slots: (T | undefined)[] = new Array(16);
  protected mask = 15;
  protected head = 0;
  protected count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.slots.length) this.grow();
    this.slots[(this.head + this.count) & this.mask] = item;
    this.count++;
  }

  /** The item at position `i` from the front (0-based, i < length). */
  at(i: number): T {
    return this.slots[(this.head + i) & this.mask] as T;
  }

  /** Removes and returns the item at position `i` from the front. */
  removeAt(i: number): T {
    const mask = this.mask;
    const item = this.slots[(this.head + i) & mask] as T;
    // Close the gap by moving the i items in front of it one step back.
    for (let j = i; j > 0; j--) this.slots[(this.head + j) & mask] = this.slots[(this.head + j - 1) & mask];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & mask;
    this.count--;
    return item;
  }

  /** Position of `item` from the front, or -1. */
  indexOf(item: T): number {
    for (let i = 0; i < this.count; i++) if (this.slots[(this.head + i) & this.mask] === item) return i;
    return -1;
  }

  protected grow(): void {
    const bigger: (T | undefined)[] = new Array(this.slots.length * 2);
    for (let i = 0; i < this.count; i++) bigger[i] = this.slots[(this.head + i) & this.mask];
    this.slots = bigger;
    this.mask = bigger.length - 1;
    this.head = 0;
  }
}
