/**
 * A FIFO of items with removal anywhere, for the matching queues. Taking the front is O(1)
 * (Array#shift is O(n) once arrays grow: 110,000 unexpected messages made each shift cost
 * 190 us); removing from the middle is a splice, which matching needs only when a receive skips
 * over messages it does not want.
 *
 * ```
 *  items: [ taken | taken | a | b | c | ... ]
 *                           ^ head           ^ items.length
 * ```
 * The taken prefix is cut off once it is at least half of the array.
 */
export class IndexQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The item at position `i` from the front (0-based). */
  at(i: number): T {
    return this.items[this.head + i] as T;
  }

  /** Removes and returns the item at position `i` from the front. */
  removeAt(i: number): T {
    const index = this.head + i;
    const item = this.items[index] as T;
    if (i === 0) {
      this.items[index] = undefined;
      this.head++;
      if (this.head === this.items.length) {
        this.items.length = 0;
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
    } else {
      this.items.splice(index, 1);
    }
    return item;
  }

  /** Position of `item` from the front, or -1. */
  indexOf(item: T): number {
    const i = this.items.indexOf(item, this.head);
    return i < 0 ? -1 : i - this.head;
  }
}
