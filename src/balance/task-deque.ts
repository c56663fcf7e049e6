/**
 * A double-ended queue of tasks: the owner takes from the head, thieves and migrations take from
 * the tail. The matching queues' ring (IndexQueue: a circular buffer that doubles when full) with
 * operations at both ends, each O(1) (an Array's shift is O(n): the piscina#452 lesson, where
 * 100 k queued tasks made a pool crawl).
 */
import { IndexQueue } from '../comm/index-queue.js';

export class TaskDeque<T> extends IndexQueue<T> {
  pushBack(item: T): void {
    this.push(item);
  }

  pushFront(item: T): void {
    if (this.count === this.slots.length) this.grow();
    this.head = (this.head - 1) & this.mask;
    this.slots[this.head] = item;
    this.count++;
  }

  popFront(): T | undefined {
    return this.count === 0 ? undefined : this.removeAt(0);
  }

  popBack(): T | undefined {
    if (this.count === 0) return undefined;
    this.count--;
    const at = (this.head + this.count) & this.mask;
    const item = this.slots[at];
    this.slots[at] = undefined;
    return item;
  }

  /** Removes up to `n` items from the front, in queue order. */
  takeFront(n: number): T[] {
    const out: T[] = [];
    while (out.length < n && this.count > 0) out.push(this.removeAt(0));
    return out;
  }

  /** Removes up to `n` items from the back; they are returned in queue order. */
  takeBack(n: number): T[] {
    const out: T[] = [];
    while (out.length < n && this.count > 0) out.push(this.popBack()!);
    return out.reverse();
  }

  /** Removes the first item for which `match` holds; returns it, or undefined. O(n). */
  removeFirst(match: (item: T) => boolean): T | undefined {
    for (let i = 0; i < this.count; i++) if (match(this.at(i))) return this.removeAt(i);
    return undefined;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }
}
