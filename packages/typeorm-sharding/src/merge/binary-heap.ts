/**
 * A binary min-heap over an array. `replaceTop` swaps the smallest item for a new one with a
 * single sift, which is what a k-way merge does after each row.
 */
export class BinaryHeap<T> {
  readonly #items: T[] = [];
  readonly #compare: (a: T, b: T) => number;

  constructor(compare: (a: T, b: T) => number) {
    this.#compare = compare;
  }

  /** Number of items held. */
  get size(): number {
    return this.#items.length;
  }

  /** The smallest item, or undefined when empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  /** Adds an item. */
  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#compare(items[i] as T, items[parent] as T) >= 0) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Removes and returns the smallest item. */
  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#siftDown();
    }
    return top;
  }

  /** Replaces the smallest item (the heap must not be empty). */
  replaceTop(item: T): void {
    this.#items[0] = item;
    this.#siftDown();
  }

  #siftDown(): void {
    const items = this.#items;
    const n = items.length;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.#compare(items[right] as T, items[left] as T) < 0 ? right : left;
      if (this.#compare(items[child] as T, items[i] as T) >= 0) return;
      this.#swap(i, child);
      i = child;
    }
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
}
